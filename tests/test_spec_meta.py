"""The specs say which compiler they are written for, under which license, and which Paimon source they
describe: the commit the Java-written vectors come from (tests/vectors/java/PAIMON_COMMIT), not a moving
branch."""
import json
import re

import pytest
from conftest import JAVA_VECTORS, ROOT
from specs_yaml import load, spec_names

PAIMON_COMMIT = (JAVA_VECTORS / "PAIMON_COMMIT").read_text().strip()
PAIMON_SOURCE = "https://github.com/apache/paimon/blob/"
SPDX_LICENSES = {"Apache-2.0"}


def compiler_version() -> str:
    lock = json.loads((ROOT / "tools" / "package-lock.json").read_text())
    major, minor, _ = lock["packages"]["node_modules/kaitai-struct-compiler"]["version"].split(".")
    return f"{major}.{minor}"


def doc_refs(node) -> list[str]:
    """Every `doc-ref` in a spec, however deep (types, fields, instances, enums)."""
    if isinstance(node, dict):
        refs = node.get("doc-ref", [])
        found = [refs] if isinstance(refs, str) else list(refs)
        return found + [ref for key, value in node.items() if key != "doc-ref" for ref in doc_refs(value)]
    if isinstance(node, list):
        return [ref for item in node for ref in doc_refs(item)]
    return []


def test_the_vectors_name_a_full_commit():
    assert re.fullmatch(r"[0-9a-f]{40}", PAIMON_COMMIT)


@pytest.mark.parametrize("spec", spec_names())
def test_meta_names_the_compiler_and_an_spdx_license(spec):
    meta = load(spec)["meta"]
    assert meta["ks-version"] == compiler_version()
    assert meta["license"] in SPDX_LICENSES


@pytest.mark.parametrize("spec", spec_names())
def test_paimon_source_links_are_pinned_to_the_vectors_commit(spec):
    refs = doc_refs(load(spec))
    assert refs, f"specs/{spec}.ksy has no doc-ref"
    sources = [ref for ref in refs if ref.startswith(PAIMON_SOURCE)]
    unpinned = [ref for ref in sources if not ref.startswith(f"{PAIMON_SOURCE}{PAIMON_COMMIT}/")]
    assert not unpinned


def test_the_index_specs_link_paimon_source():
    linked = {spec for spec in spec_names() if any(ref.startswith(PAIMON_SOURCE) for ref in doc_refs(load(spec)))}
    assert linked == set(spec_names()) - {"roaring_bitmap"}
