"""Every Java-written container decodes with both parsers, matches vectors.json, and rewrites byte for byte."""
import hashlib
import json

import pytest
from conftest import JAVA_VECTORS, golden, index_files
from fileindex.generated.file_index_format import FileIndexFormat
from structures import construct_tree, kaitai_tree

from fileindex.decoding import kaitai as kaitai_bridge
from fileindex.container.file import FileIndexContainer
from fileindex.container.head import _VALIDATIONS
from fileindex.container.writer import write_container, write_entries
from fileindex.java.hash import string_hash_code
from fileindex.java.hashmap import put_order
from fileindex.reference.construct_parser import parse_with_construct

FILES = index_files()


def test_all_java_vectors_are_present():
    assert len(FILES) == 143


def single_column_records(vectors_json):
    return {v["file"]: v for v in vectors_json["vectors"] if v.get("status") == "ok"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_vector_decodes_with_both_parsers_identically(path):
    data = path.read_bytes()
    kaitai = kaitai_tree(kaitai_bridge.parse(FileIndexFormat, data, root="f", validations=_VALIDATIONS))
    assert kaitai == construct_tree(parse_with_construct(data))
    assert kaitai["magic"] == bytes.fromhex("00054e4ed01a35ae")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_vector_rewrites_to_identical_bytes(path):
    data = path.read_bytes()
    container = FileIndexContainer.from_bytes(data)
    container.validate_layout()
    entries = [(e.column, e.index_type, None if e.is_empty else bytes(container.body(e))) for e in container]
    assert write_entries(entries) == data


def test_single_column_vectors_match_recorded_body_offsets(vectors_json):
    records = single_column_records(vectors_json)
    checked = 0
    for path in FILES:
        record = records.get(path.name)
        if record is None:
            continue
        data = path.read_bytes()
        assert hashlib.sha256(data).hexdigest() == record["sha256"]
        container = FileIndexContainer.from_bytes(data)
        assert container.columns == ["c"]
        (entry,) = container.head.entries
        assert entry.index_type == record["index_type"]
        assert (entry.start, entry.length) == (record["body_offset"], record["body_length"])
        assert hashlib.sha256(container.body(entry)).hexdigest() == record["body_sha256"]
        checked += 1
    assert checked == 141


@pytest.mark.parametrize("index", [0, 1])
def test_multi_column_heads_match_vectors_json(vectors_json, index):
    record = vectors_json["multi_column"][index]
    container = FileIndexContainer.open(JAVA_VECTORS / record["file"])
    head = record["head"]
    assert container.head.version == head["version"]
    assert container.head.head_length == head["head_length"]
    assert container.head.redundant_length == head["redundant_length"]
    decoded = [
        {"column": r.name, "indexes": [
            {"index_type": e.index_type, "start": e.start, "length": e.length} for e in r.indexes
        ]}
        for r in container.head.column_records
    ]
    assert decoded == head["columns"]


def test_engine_layout_is_reproduced_in_java_hashmap_order(vectors_json):
    """Columns inserted in any sequence come out in the file's order: their buckets are distinct."""
    data = (JAVA_VECTORS / "multi__engine_layout.index").read_bytes()
    container = FileIndexContainer.from_bytes(data)
    payloads = {}
    for entry in sorted(container, key=lambda e: (e.column, e.index_type)):  # not the file's order
        payloads.setdefault(entry.column, {})[entry.index_type] = bytes(container.body(entry))
    assert list(payloads) != container.columns
    assert write_container(payloads) == data


def test_twelve_column_container_is_reproduced_from_a_put_filled_map():
    data = (JAVA_VECTORS.parent.parent.parent / "fileindex" / "samples" / "container_12col.index").read_bytes()
    container = FileIndexContainer.from_bytes(data)
    payloads = {f"col_{j:02d}": {"bloom-filter": bytes(container.body(container.entry(f"col_{j:02d}", "bloom-filter")))}
                for j in range(12)}
    assert write_container(payloads, insertion="put") == data
    # col_00 and col_11 share bucket 1: computeIfAbsent in the same sequence puts col_11 first.
    assert write_container(payloads) != data


def test_golden_containers():
    lines = golden()
    assert write_container(
        {"a": {"bloom-filter": bytes.fromhex("010203"), "bitmap": bytes.fromhex("0405")},
         "m[k]": {"bloom-filter": None}}
    ).hex() == lines["container[a:{bloom-filter:010203,bitmap:0405}, m[k]:{bloom-filter:null}]"]
    assert write_container({}).hex() == lines["container[empty]"]
    assert write_container({"é\u0000😀": {"bsi": b"\x09"}}).hex() == lines[
        "container[\\u00e9\\u0000\\ud83d\\ude00:{bsi:09}]"]


def test_golden_hashmap_orders():
    lines = golden()
    types = put_order(["range-bitmap", "bsi", "bitmap", "bloom-filter"], string_hash_code)
    assert "[" + ", ".join(types) + "]" == lines["hashmap.order(index types)"]

    def long_hash(v):
        return (v ^ ((v & 0xFFFFFFFFFFFFFFFF) >> 32)) & 0xFFFFFFFF

    order = put_order([5, -1, 7, 2**32, 100000], long_hash)
    assert "[" + ", ".join(map(str, order)) + "]" == lines["hashmap.order(Long 5,-1,7,2^32,100000)"]


def test_empty_entry_is_reported_empty(vectors_json):
    container = FileIndexContainer.open(JAVA_VECTORS / "multi__explicit_empty_entry.index")
    entry = container.entry("m[absent]", "bitmap")
    assert entry.is_empty and entry.length == 0
    assert container.body(entry) is None


def test_body_is_a_view_not_a_copy():
    data = bytearray((JAVA_VECTORS / "multi__engine_layout.index").read_bytes())
    container = FileIndexContainer.from_bytes(data)
    entry = container.entry("price", "bloom-filter")
    body = container.body(entry)
    assert isinstance(body, memoryview)
    data[entry.start] ^= 0xFF
    assert body[0] == data[entry.start]


def test_later_duplicate_entry_wins_like_javas_hashmap():
    data = write_entries([("c", "bitmap", b"\x01"), ("c", "bitmap", b"\x02\x03")])
    container = FileIndexContainer.from_bytes(data)
    assert bytes(container.body(container.entry("c", "bitmap"))) == b"\x02\x03"
    assert json.dumps([e.length for e in container]) == "[1, 2]"
