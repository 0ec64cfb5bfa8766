"""Where a Paimon table's files are: the one object that owns a table's layout (table spec §1-§7), as
paimon-rust's ``FileIO`` with its path factory and pyiceberg's location provider do.

A :class:`TableStore` is a table root and a branch. The branch's own metadata (``schema/``, ``snapshot/``
with its ``LATEST``/``EARLIEST`` hints, ``tag/``) lies under :attr:`TableStore.meta`: the table root for
``main``, ``branch/branch-NAME/`` for any other (Paimon's ``BranchManager``). Manifests (``manifest/``),
index files (``index/``) and the bucket folders are the table's, shared by every branch. Every path of
the table layer is built here; the names put in these paths come from the metadata and are checked
where it is decoded (:mod:`fileindex.table.names`). Frozen and picklable: a Spark task gets a copy.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from fileindex.errors import UsageError
from fileindex.table.errors import TableError
from fileindex.table.names import inside
from fileindex.writing.atomic import write_atomically

MAIN = "main"
BRANCH_PREFIX = "branch-"
# the folders under a table root that hold metadata, not data files (each branch's metadata is under branch/)
METADATA_FOLDERS = ("manifest", "snapshot", "schema", "tag", "index", "statistics", "changelog", "branch")


def is_table_root(path: str | Path) -> bool:
    """Whether ``path`` is a table root: a folder with ``snapshot/`` and ``schema/``."""
    path = Path(path)
    return path.is_dir() and (path / "snapshot").is_dir() and (path / "schema").is_dir()


def table_holding(path: str | Path) -> Path | None:
    """The table root ``path`` lies in (or is), if any: where a report written there would replace or join the
    table's own files."""
    target = Path(os.path.realpath(path))
    return next((folder for folder in (target, *target.parents) if is_table_root(folder)), None)


def not_a_table(root: Path, missing: str) -> UsageError:
    """Why ``root`` is not a table root, saying what to give instead where that can be seen."""
    root = Path(root)
    if not root.exists():
        return UsageError(f"{root} does not exist: give a Paimon table's root folder")
    if not root.is_dir():
        return UsageError(f"{root} is a file: give a Paimon table's root folder (the one holding schema/ and "
                          "snapshot/)")
    tables = sorted(p for p in root.iterdir() if is_table_root(p))
    if tables:
        return UsageError(f"{root} is not a table but holds tables (a database folder?): give one of "
                          f"{', '.join(str(t) for t in tables[:5])}")
    return UsageError(f"{root}: {missing}: not a Paimon table root (the folder holding schema/ and snapshot/)")


def _numbered(folder: Path, prefix: str) -> list[int]:
    """The N of every ``prefix``N file in ``folder``, ascending."""
    names = (p.name[len(prefix):] for p in folder.glob(prefix + "*"))
    return sorted(int(n) for n in names if n.isdigit())


@dataclass(frozen=True)
class TableStore:
    """A table's layout: ``root`` is the table root, ``branch`` the branch whose metadata is read and written."""

    root: Path
    branch: str = MAIN

    @classmethod
    def at(cls, location: str | Path, branch: str | None = None) -> TableStore:
        """The store of the table at ``location`` (a path or ``file://`` URI), of ``branch`` (None: main);
        a UsageError naming the table's branches for one it does not have."""
        root = Path(str(location).removeprefix("file://"))
        if branch is None or branch == MAIN:
            return cls(root)
        if not branch.strip() or "/" in branch or "\\" in branch or branch in (".", ".."):
            raise UsageError(f"--branch {branch!r}: not a branch name (Paimon's branch names have no '/')")
        store = cls(root, branch)
        if not store.meta.is_dir():
            names = ", ".join([MAIN, *store.branch_names()])
            raise UsageError(f"--branch {branch}: {root} has no branch {branch} (its branches: {names})")
        inside(root, store.meta, "branch folder")
        return store

    # -- branches -----------------------------------------------------------------------------------

    @property
    def meta(self) -> Path:
        """The folder holding the branch's ``schema/``, ``snapshot/`` and ``tag/`` (the root for main)."""
        return self.root if self.branch == MAIN else self.root / "branch" / f"{BRANCH_PREFIX}{self.branch}"

    def branch_names(self) -> list[str]:
        """The table's branches other than main, sorted."""
        folder = self.root / "branch"
        if not folder.is_dir():
            return []
        return sorted(p.name[len(BRANCH_PREFIX):] for p in folder.glob(BRANCH_PREFIX + "*") if p.is_dir())

    def every_branch(self) -> list[TableStore]:
        """Main's store and every other branch's: their snapshots and tags name the shared manifests and files."""
        return [TableStore(self.root), *(TableStore(self.root, name) for name in self.branch_names())]

    # -- the branch's metadata -----------------------------------------------------------------------

    @property
    def snapshot_dir(self) -> Path:
        return self.meta / "snapshot"

    def snapshot_file(self, snapshot_id: int) -> Path:
        return self.snapshot_dir / f"snapshot-{snapshot_id}"

    @property
    def latest_hint(self) -> Path:
        return self.snapshot_dir / "LATEST"

    @property
    def earliest_hint(self) -> Path:
        return self.snapshot_dir / "EARLIEST"

    def snapshot_ids(self) -> list[int]:
        """The ids of the branch's ``snapshot-N`` files, ascending (listing; the hints are not read)."""
        return _numbered(self.snapshot_dir, "snapshot-")

    def snapshot_and_tag_files(self) -> list[Path]:
        """The branch's snapshot files, then its tag files (a tag is a snapshot under a name), each sorted."""
        return sorted(self.snapshot_dir.glob("snapshot-*")) + sorted((self.meta / "tag").glob("tag-*"))

    def schema_file(self, schema_id: int) -> Path:
        return self.meta / "schema" / f"schema-{schema_id}"

    def schema_ids(self) -> list[int]:
        """The ids of the branch's ``schema/schema-N`` files, ascending."""
        return _numbered(self.meta / "schema", "schema-")

    def latest_schema_id(self) -> int:
        """The highest schema id; a UsageError when the folder is no table, a TableError for a table
        (it has snapshots) whose schema files are gone."""
        ids = self.schema_ids()
        if ids:
            return ids[-1]
        if self.snapshot_ids():
            raise TableError("schema/ (schema): no schema-N file")
        raise not_a_table(self.meta, "no schema/schema-N file")

    # -- the table's shared files ---------------------------------------------------------------------

    @property
    def manifest_dir(self) -> Path:
        return self.root / "manifest"

    def manifest_file(self, name: str) -> Path:
        """A manifest, manifest list or index manifest named by the metadata (a plain name)."""
        return self.manifest_dir / name

    def index_file(self, name: str) -> Path:
        """A table-level index file (deletion vectors), under ``index/``."""
        return self.root / "index" / name

    def bucket_dir(self, partition: str | None, bucket: int) -> Path:
        """The folder of a bucket's data files: ``[partition path/]bucket-N`` under the root."""
        folder = self.root / partition if partition else self.root
        return folder / f"bucket-{bucket}"

    # -- writing ----------------------------------------------------------------------------------------

    @staticmethod
    def link(path: Path, data: bytes) -> bool:
        """Create ``path`` holding ``data`` only if it is absent, atomically (False: another writer has it):
        Paimon's commit point for snapshots and schemas, and how new manifests take fresh names."""
        return write_atomically(path, data, overwrite=False)

    def write_latest_hint(self, snapshot_id: int) -> None:
        """Point the ``LATEST`` hint at ``snapshot_id`` (replaced atomically; readers check it anyway)."""
        write_atomically(self.latest_hint, str(snapshot_id).encode())
