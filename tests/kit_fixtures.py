"""Fixtures of the conformance-kit tests (tests/kit/): one export and one run of this project's adapter per session.

Loaded for every session (tests/conftest.py's pytest_plugins): the kit is imported only when a fixture runs.
"""
import hashlib
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ADAPTER = f"{sys.executable} -m fileindex kit adapter"
WRONG = f"{sys.executable} {ROOT / 'tests' / 'kit' / 'wrong_adapter.py'}"


@pytest.fixture(scope="session")
def exported(tmp_path_factory):
    """(folder, tarball, sha256) of one export of the repository's vectors."""
    from fileindex.kit.export import export

    return export(tmp_path_factory.mktemp("kit"))


@pytest.fixture(scope="session")
def kit_folder(exported):
    return exported[0]


@pytest.fixture(scope="session")
def self_results(kit_folder, tmp_path_factory):
    from fileindex.kit.runner import run

    return run(kit_folder, [ADAPTER], tmp_path_factory.mktemp("kit-run"))


def relist(folder: Path) -> Path:
    """``folder``'s manifest.json made to list exactly the files it holds (a corpus cut down or changed by a
    test), as kit export lists them."""
    manifest = json.loads((folder / "manifest.json").read_text())
    files = [p for p in sorted(folder.rglob("*")) if p.is_file() and p != folder / "manifest.json"]
    manifest["files"] = {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    manifest["sizes"] = {p.relative_to(folder).as_posix(): p.stat().st_size for p in files}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder
