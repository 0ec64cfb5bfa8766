"""A corpus another project can vendor: LICENSE, NOTICE (the bundled third-party tables), CHANGELOG, who produced
each expected answer and which part of the format it tests, Java's FastHash per type, and a malformed body for
every index type."""
import json

from fileindex.container.file import FileIndexContainer
from fileindex.indexes.registry import INDEX_TYPES
from fileindex.kit.corpus import VERSION, cases, load_json
from fileindex.kit.provenance import COPIED_FROM_V1, DERIVED, EXPECTED_FROM, JAVA_RECORDED, PEER_RECORDED
from fileindex.kit.tables import JAVA_TABLES, table_sources

MASK = (1 << 64) - 1
NUMERIC = {"TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DATE", "TIME"}


def test_the_corpus_carries_its_license_notice_and_changelog(kit_folder):
    manifest = load_json(kit_folder / "manifest.json")
    assert {"LICENSE", "NOTICE", "CHANGELOG.md", "hashes.json"} <= set(manifest["files"])
    license_text = (kit_folder / "LICENSE").read_text()
    assert license_text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "END OF TERMS AND CONDITIONS" in license_text
    notice = (kit_folder / "NOTICE").read_text()
    assert "alibaba/paimon-cpp" in notice and "43d9d027" in notice and "Apache License, Version 2.0" in notice
    bundled = {path.parent.name for path in kit_folder.glob("tables/*/case.json")}
    assert bundled == {name for name, _ in table_sources()}
    assert all(f"tables/{name}/table/" in notice for name in bundled)
    changelog = (kit_folder / "CHANGELOG.md").read_text()
    assert f"\n## {VERSION}\n" in changelog and "\n## 1.0.0\n" in changelog
    assert (kit_folder / "VERSION").read_text().strip() == manifest["kit_version"] == VERSION


def every_case(folder):
    for version in ("v1", "v2", "multi"):
        for case in cases(folder, version):
            for item in case.sidecar["cases"]:
                yield version, case, item


def test_every_case_says_who_produced_its_expected_answer_and_what_it_tests(kit_folder):
    seen = set()
    v1 = {(c.name, json.dumps(item["where"], sort_keys=True)): item
          for c in cases(kit_folder, "v1") for item in c.sidecar["cases"]}
    for version, case, item in every_case(kit_folder):
        assert item["expected_from"] in EXPECTED_FROM and item["spec"], (case.name, item)
        seen.add(item["expected_from"])
        if version == "v1":
            assert item["expected_from"] == (DERIVED if "since" in item or "source" in item else JAVA_RECORDED)
            assert item["spec"].startswith(f"docs/format/{case.sidecar['index_type'].replace('-', '_')}.md")
        if version == "v2":  # the same payloads: version 1's answers, copied
            assert item["expected_from"] == COPIED_FROM_V1
            original = v1[(case.name, json.dumps(item["where"], sort_keys=True))]
            assert item["expected"] == original["expected"]
        if version == "multi":
            assert item["expected_from"] == (DERIVED if case.name == "multi__or_bitmap_bloom" else JAVA_RECORDED)
    java_tables = {name for name, _, _ in JAVA_TABLES}  # written and answered by Java 0.9.0 itself
    for case in cases(kit_folder, "tables"):
        files, rows = (JAVA_RECORDED, JAVA_RECORDED) if case.name in java_tables else (PEER_RECORDED, DERIVED)
        for item in case.sidecar["cases"]:
            assert item["expected_from"] == ({"files": files} if "files" in item["expected"] else {}) | {"rows": rows}
    assert all(c.sidecar["expected_from"] == DERIVED for c in cases(kit_folder, "bad"))
    assert all(r["expected_from"] == JAVA_RECORDED for r in load_json(kit_folder / "refusals.json")["refusals"])
    assert seen == {JAVA_RECORDED, DERIVED, COPIED_FROM_V1}


def logical_wang_mix(key: int) -> int:
    """Thomas Wang's mix with *logical* right shifts: the guess docs/kit.md warns against."""
    key &= MASK
    key = (~key + (key << 21)) & MASK
    key ^= key >> 24
    key = (key + (key << 3) + (key << 8)) & MASK
    key ^= key >> 14
    key = (key + (key << 2) + (key << 4)) & MASK
    key ^= key >> 28
    key = (key + (key << 31)) & MASK
    return key - (1 << 64) if key >> 63 else key


def test_the_hash_vectors_cover_every_type_and_tell_signed_shifts_from_logical_ones(kit_folder):
    vectors = load_json(kit_folder / "hashes.json")["cases"]
    types = {case["type"].split("(")[0] for case in vectors}
    assert NUMERIC | {"TIMESTAMP", "CHAR", "VARCHAR", "STRING", "BINARY", "VARBINARY", "BYTES"} <= types
    numeric = [case for case in vectors if "key" in case]
    assert all(-(1 << 63) <= case["hash"] < 1 << 63 for case in vectors)
    zero = next(case for case in numeric if case["type"] == "INT" and case["key"] == 0)
    assert zero["hash"] == 0 != logical_wang_mix(0)  # 0 is a fixed point of the mix with arithmetic shifts only
    for name in NUMERIC:  # every numeric type has a value whose hash a logical-shift guess gets wrong
        assert any(logical_wang_mix(case["key"]) != case["hash"] for case in numeric if case["type"] == name), name
    empty = next(case for case in vectors if case["type"] == "STRING" and case["value"] == "")
    assert empty["bytes"] == "" and empty["hash"] & MASK == 0xEF46DB3751D8E999  # XXH64 of no bytes, seed 0
    nan = next(case for case in vectors if case["type"] == "FLOAT" and case["value"] == "NaN")
    assert nan["key"] == 0x7FC00000  # Float.floatToIntBits: the canonical NaN


def test_the_negative_corpus_holds_a_malformed_body_of_every_index_type(kit_folder):
    bodies = {}
    for case in cases(kit_folder, "bad"):
        if case.sidecar["request"]["op"] != "read" or case.name.startswith("null_literal_"):
            continue
        with FileIndexContainer.open(case.file) as container:
            bodies.setdefault(next(iter(container)).index_type, []).append(case.name)
    assert set(INDEX_TYPES) <= set(bodies), bodies
    truncated = [c for c in cases(kit_folder, "bad") if c.name.endswith("_truncated_body")]
    assert {c.sidecar["rule"] for c in truncated} == {"MAY fail open"} and len(truncated) == 4
    assert all(c.sidecar["accepted"] == ["error", {"result": "REMAIN"}] for c in truncated)


def test_not_between_and_null_literals_follow_the_rules_of_javas_readers(kit_folder):
    derived = [(case, item) for case in cases(kit_folder, "v1") for item in case.sidecar["cases"] if "source" in item]
    not_between = [(case, item) for case, item in derived if item["where"]["function"] == "NotBetween"]
    with_between = [c for c in cases(kit_folder, "v1") if any(i["where"]["function"] == "Between"
                                                              for i in c.sidecar["cases"])]
    assert len(not_between) == len(with_between) > 100
    assert all(item["expected"] == {"result": "REMAIN"} for _, item in not_between)
    nulls = [(case, item) for case, item in derived if item["where"]["literals"] == [None]]
    assert {case.sidecar["index_type"] for case, _ in nulls} == {"bitmap", "bloom-filter"}
    for case, item in nulls:
        if case.sidecar["index_type"] == "bitmap":  # = null answers as IS NULL, <> null as IS NOT NULL
            same_as = {"Equal": "IsNull", "NotEqual": "IsNotNull"}[item["where"]["function"]]
            recorded = next(i for i in case.sidecar["cases"] if i["where"]["function"] == same_as)
            assert item["expected"] == recorded["expected"] and recorded["expected_from"] == JAVA_RECORDED
        else:
            assert item["expected"] == {"result": "REMAIN"}
    assert not any(case.sidecar["type"] == "TIMESTAMP(9)" and case.sidecar["index_type"] == "bitmap"
                   for case, _ in nulls)  # value answers there changed with a later Java fix: no rule to derive
    odd = {c.name: c.sidecar for c in cases(kit_folder, "bad") if c.name.startswith("null_literal_")}
    assert set(odd) == {"null_literal_bsi", "null_literal_range_bitmap"}
    assert all(s["request"]["where"]["literals"] == [None] and s["rule"] == "MAY fail open" for s in odd.values())


def test_the_corpus_readme_carries_the_adapter_contract(kit_folder):
    readme = (kit_folder / "README.md").read_text()
    assert readme.startswith("# Conformance kit for Apache Paimon's file index")
    contract = readme[readme.index("## The adapter contract"):]
    for request in ("capabilities", '"op": "head"', '"op": "read"', '"op": "scan"', '"op": "rows"', '"op": "write"'):
        assert request in contract, request
    assert "echoing the request's `\"id\"`**" in contract and '{"unsupported": "…"}' in contract
    assert "### Writing an adapter in another language" in contract and "This project's adapters" not in contract
