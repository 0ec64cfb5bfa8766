"""Fixtures of the conformance-kit tests (tests/kit/): one export and one run of this project's adapter per session.

Loaded for every session (tests/conftest.py's pytest_plugins): the kit is imported only when a fixture runs.
"""
import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ADAPTER = f"{sys.executable} -m fileindex kit adapter"
WRONG = f"{sys.executable} {ROOT / 'tests' / 'kit' / 'wrong_adapter.py'}"
JAVA = f"{sys.executable} {ROOT / 'tools' / 'kit_java_adapter.py'}"
PEER = f"{sys.executable} {ROOT / 'tools' / 'kit_pypaimon_rust_adapter.py'}"


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


@pytest.fixture(scope="session")
def peer_python():
    """pypaimon-rust's Python ($PYPAIMON_RUST_PYTHON, or .venv-peer, made from the package registry on first use),
    announced to the adapters the runner starts so they need no second look."""
    sys.path.insert(0, str(ROOT / "tools"))
    from kit_pypaimon_rust_adapter import peer_python as find

    python = find()
    saved = os.environ.get("PYPAIMON_RUST_PYTHON")
    os.environ["PYPAIMON_RUST_PYTHON"] = python
    yield python
    if saved is None:
        del os.environ["PYPAIMON_RUST_PYTHON"]
    else:
        os.environ["PYPAIMON_RUST_PYTHON"] = saved


@pytest.fixture(scope="session")
def kit_matrix(kit_folder, peer_python, tmp_path_factory):
    """One run of the three implementations, ours, Java Paimon 0.9.0 and pypaimon-rust: the docs' matrix, and
    (through ``among``) the Java tests' and the peer tests' runs, which it contains (each producer's files are
    read by each consumer, and no check of one pair depends on the others)."""
    from java_oracle import require_jar

    from fileindex.kit.runner import run

    require_jar()
    return run(kit_folder, [ADAPTER, JAVA, PEER], tmp_path_factory.mktemp("kit-matrix"))


def among(results, *names: str):
    """``results`` as a run of the adapters ``names`` alone would have given them: the outcomes of consumers among
    them reading the corpus or what one of them wrote, and their capabilities and hints."""
    from dataclasses import replace

    from fileindex.kit.runner import CORPUS

    assert set(names) <= set(results.implementations), (names, list(results.implementations))
    kept = set(names)
    return replace(results, implementations={n: c for n, c in results.implementations.items() if n in kept},
                   outcomes=[o for o in results.outcomes if o.consumer in kept and o.producer in kept | {CORPUS}],
                   hints=[hint for hint in results.hints if any(name in hint for name in kept)])


def relist(folder: Path) -> Path:
    """``folder``'s manifest.json made to list exactly the files it holds (a corpus cut down or changed by a
    test), as kit export lists them."""
    manifest = json.loads((folder / "manifest.json").read_text())
    files = [p for p in sorted(folder.rglob("*")) if p.is_file() and p != folder / "manifest.json"]
    manifest["files"] = {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    manifest["sizes"] = {p.relative_to(folder).as_posix(): p.stat().st_size for p in files}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


def small_corpus(kit_folder, target, cases_each=3):
    """A kit folder with a few cases of each kind (the one-call contract starts a process per request)."""
    from fileindex.kit.corpus import load_json

    keep = ["containers/v1/bloom-filter/int_nulls__bloom", "containers/v2/bitmap-v1/int_nulls__bitmap_v1",
            "containers/v1/bitmap-v2/int_nulls__bitmap_v2", "bad/wrong_magic", "bad/unknown_index_type_lumina"]
    for stem in keep:
        for suffix in (".index", ".json"):
            (target / stem).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(kit_folder / (stem + suffix), target / (stem + suffix))
    shutil.copytree(kit_folder / "datasets", target / "datasets")
    shutil.copy(kit_folder / "manifest.json", target / "manifest.json")
    refusals = load_json(kit_folder / "refusals.json")["refusals"]
    (target / "refusals.json").write_text(json.dumps({"refusals": [r for r in refusals
                                                                   if r["layout"] == "bloom-filter"][:1]}))
    for sidecar in target.rglob("containers/**/*.json"):
        document = json.loads(sidecar.read_text())
        document["cases"] = document["cases"][:cases_each]
        sidecar.write_text(json.dumps(document))
    return relist(target)
