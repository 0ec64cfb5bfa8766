"""Fixtures of the conformance-kit tests (tests/kit/): one export and one run of this project's adapter per session."""
import sys
from pathlib import Path

import pytest

from fileindex.kit.export import export
from fileindex.kit.runner import run

ROOT = Path(__file__).resolve().parent.parent
ADAPTER = f"{sys.executable} -m fileindex kit adapter"
WRONG = f"{sys.executable} {ROOT / 'tests' / 'kit' / 'wrong_adapter.py'}"


@pytest.fixture(scope="session")
def exported(tmp_path_factory):
    """(folder, tarball, sha256) of one export of the repository's vectors."""
    return export(tmp_path_factory.mktemp("kit"))


@pytest.fixture(scope="session")
def kit_folder(exported):
    return exported[0]


@pytest.fixture(scope="session")
def self_results(kit_folder, tmp_path_factory):
    return run(kit_folder, [ADAPTER], tmp_path_factory.mktemp("kit-run"))
