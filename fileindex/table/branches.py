"""Paimon branches: a branch's schemas, snapshots and tags live under ``branch/branch-NAME/`` of the table
(Paimon's ``BranchManager``); its manifests and data files are the table's own, under ``manifest/`` and the
bucket folders, shared with the main branch. ``main`` is the table root itself."""
from __future__ import annotations

from pathlib import Path

from fileindex.errors import UsageError
from fileindex.table.names import inside

MAIN = "main"
PREFIX = "branch-"


def branch_names(root: Path) -> list[str]:
    """The table's branches other than main, sorted."""
    folder = Path(root) / "branch"
    return sorted(p.name[len(PREFIX):] for p in folder.glob(PREFIX + "*") if p.is_dir()) if folder.is_dir() else []


def branch_root(root: str | Path, branch: str | None) -> Path:
    """The folder holding the branch's ``schema/``, ``snapshot/`` and ``tag/`` (the table root for main);
    a UsageError naming the table's branches for one it does not have."""
    root = Path(str(root).removeprefix("file://"))
    if branch is None or branch == MAIN:
        return root
    if not branch.strip() or "/" in branch or "\\" in branch or branch in (".", ".."):
        raise UsageError(f"--branch {branch!r}: not a branch name (Paimon's branch names have no '/')")
    folder = root / "branch" / f"{PREFIX}{branch}"
    if not folder.is_dir():
        names = ", ".join([MAIN, *branch_names(root)])
        raise UsageError(f"--branch {branch}: {root} has no branch {branch} (its branches: {names})")
    return inside(root, folder, "branch folder")


def metadata_roots(root: Path) -> list[Path]:
    """The folders whose ``snapshot/`` and ``tag/`` name the table's shared manifests and files: the table
    root and every branch's folder."""
    return [Path(root), *(Path(root) / "branch" / f"{PREFIX}{name}" for name in branch_names(root))]
