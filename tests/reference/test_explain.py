"""`fileindex explain`: fields from the generated readers that tile a file, and the failing field of a broken one."""
import json
import random

import pytest
from kaitaistruct import KaitaiStruct
from conftest import JAVA_VECTORS
from vector_cases import all_cases

from fileindex.cli import main
from fileindex.container.file import FileIndexContainer
from fileindex.container.writer import reframe
from fileindex.errors import DecodeError
from fileindex.reference.explain import explain
from fileindex.types import parse_schema

EMPTY_ENTRY = JAVA_VECTORS / "multi__explicit_empty_entry.index"
ENGINE = JAVA_VECTORS / "multi__engine_layout.index"
ENGINE_SCHEMA = parse_schema("id INT, name STRING, ts TIMESTAMP(3), price DOUBLE, `列名😀` STRING, "
                             "attrs MAP<STRING, STRING>")
C = "file_index_format/head/columns"

# Read off the bytes by hand (spec §3.1): magic, version, head length, two column records, the
# redundant length, then the bloom-filter body (k = 3, then 6 bytes of bits).
HAND_CHECKED = [
    (0, 8, "file_index_format/magic", "00054e4ed01a35ae"),
    (8, 4, "file_index_format/version", 1),
    (12, 4, "file_index_format/len_head", 84),
    (16, 4, "file_index_format/head/num_columns", 2),
    (20, 2, f"{C}[0]/len_name", 9),
    (22, 9, f"{C}[0]/name", "m[absent]"),
    (31, 4, f"{C}[0]/num_indexes", 1),
    (35, 2, f"{C}[0]/indexes[0]/len_index_type", 6),
    (37, 6, f"{C}[0]/indexes[0]/index_type", "bitmap"),
    (43, 4, f"{C}[0]/indexes[0]/ofs_body", -1),
    (47, 4, f"{C}[0]/indexes[0]/len_body", 0),
    (51, 2, f"{C}[1]/len_name", 1),
    (53, 1, f"{C}[1]/name", "x"),
    (54, 4, f"{C}[1]/num_indexes", 1),
    (58, 2, f"{C}[1]/indexes[0]/len_index_type", 12),
    (60, 12, f"{C}[1]/indexes[0]/index_type", "bloom-filter"),
    (72, 4, f"{C}[1]/indexes[0]/ofs_body", 84),
    (76, 4, f"{C}[1]/indexes[0]/len_body", 10),
    (80, 4, "file_index_format/head/len_redundant", 0),
    (84, 0, "file_index_format/head/redundant", ""),
    (84, 4, f"{C}[1]/indexes[0]/body:bloom_filter/num_hash_functions", 3),
    (88, 6, f"{C}[1]/indexes[0]/body:bloom_filter/bitset", "89282150c000"),
]


def covered_once(explanation, size: int) -> bool:
    counts = [0] * size
    for f in explanation.fields:
        for i in range(f.offset, f.offset + f.length):
            counts[i] += 1
    return set(counts) <= {1}


def test_json_matches_the_hand_checked_fields(capsys):
    assert main(["explain", str(EMPTY_ENTRY), "--json"]) == 0
    fields = json.loads(capsys.readouterr().out)
    assert [(f["offset"], f["length"], f["path"], f["value"]) for f in fields] == HAND_CHECKED


def test_version_2_fields_from_the_footer():
    data = reframe(EMPTY_ENTRY.read_bytes(), 2)
    explanation = explain(data)
    by_path = {f.path: f for f in explanation.fields}
    assert by_path["file_index_format/version"].value == 2
    assert by_path["file_index_format/trailer/tail_magic"].offset == len(data) - 8
    footer = by_path["file_index_format/footer/columns[1]/indexes[0]/ofs_body"]
    assert footer.length == 8 and footer.value == 12 and footer.offset > 12
    assert by_path["file_index_format/footer/columns[1]/indexes[0]/body:bloom_filter/num_hash_functions"].offset == 12
    assert covered_once(explanation, len(data)) and explanation.error is None


@pytest.mark.parametrize("case", [c for c in all_cases() if c.ok][::3], ids=lambda c: c.name)
def test_fields_tile_every_layout(case):
    data = (JAVA_VECTORS / case.record["file"]).read_bytes()
    explanation = explain(data, schema={"c": case.data_type})
    assert explanation.error is None and covered_once(explanation, len(data))
    assert sum(f.length for f in explanation.fields) == len(data)
    root = case.record["index_type"].replace("-", "_")
    assert any(f"body:{root}/" in f.path for f in explanation.fields)  # the body is explained, not raw
    assert not any("(unreferenced)" in f.path for f in explanation.fields)
    # every structure is walked down to its fields (a repeated instance too), never shown as objects
    structures = [f.path for f in explanation.fields if isinstance(f.value, KaitaiStruct) or (
        isinstance(f.value, list) and any(isinstance(v, KaitaiStruct) for v in f.value))]
    assert not structures


@pytest.mark.parametrize("file, marker", [("int_single__bsi.index", "/ebm/"),
                                          ("int_nulls__range_bitmap.index", "/bsi/slices[0]/"),
                                          ("int_nulls__bitmap_v1.index", "]/bitmap/"),
                                          ("int_nulls__bitmap_v2.index", "]/bitmap/"),
                                          ("int_nulls__bitmap_v2.index", "/null_bitmap/")])
def test_roaring_bitmaps_are_explained_down_to_their_container_headers(file, marker):
    data = (JAVA_VECTORS / file).read_bytes()
    explanation = explain(data, schema=parse_schema("c INT"))
    paths = [f.path for f in explanation.fields]
    assert any(marker in p and p.endswith("/cookie") for p in paths), marker
    assert any(marker in p and "/descriptions[0]/card_minus_one" in p for p in paths)
    assert covered_once(explanation, len(data))


def test_filters_and_types_decide_which_bodies_are_explained():
    data = ENGINE.read_bytes()
    all_bodies = explain(data, schema=ENGINE_SCHEMA)
    only_id_bsi = explain(data, schema=ENGINE_SCHEMA, column="id", index_type="bsi")
    untyped = explain(data)
    assert covered_once(all_bodies, len(data)) and covered_once(only_id_bsi, len(data))
    assert {f.path.split(":")[1].split("/")[0] for f in only_id_bsi.fields if ":" in f.path} == {"bsi"}
    assert any(f.path.endswith("/body") for f in only_id_bsi.fields)  # other bodies: raw bytes
    # without types, bitmap and range-bitmap bodies cannot be decoded; bloom-filter and bsi can
    decoded = {f.path.split(":")[1].split("/")[0] for f in untyped.fields if ":" in f.path}
    assert decoded == {"bloom_filter", "bsi"}


@pytest.mark.parametrize("path, version", [(EMPTY_ENTRY, 1), (EMPTY_ENTRY, 2), (ENGINE, 1), (ENGINE, 2)])
def test_every_strict_prefix_stops_at_the_failing_field(path, version):
    data = path.read_bytes() if version == 1 else reframe(path.read_bytes(), 2)
    lengths = range(len(data)) if len(data) < 400 else sorted(
        set(range(400)) | set(random.Random(7).sample(range(400, len(data)), 120)))
    for n in lengths:
        prefix = data[:n]
        explanation = explain(prefix, schema=ENGINE_SCHEMA)  # raises nothing but the project's errors
        with pytest.raises(DecodeError) as reader:
            FileIndexContainer.from_bytes(prefix).validate_layout()
        assert explanation.error is not None, n
        assert (explanation.error.offset, explanation.error.field) == (reader.value.offset, reader.value.field), n
        marked = [f for f in explanation.fields if f.error]
        assert marked and marked[0].path == reader.value.field
        assert all(f.offset + f.length <= n for f in explanation.fields)


def test_a_broken_file_exits_3_after_the_fields_before_it(tmp_path, capsys):
    broken = tmp_path / "broken.index"
    broken.write_bytes(ENGINE.read_bytes()[:100])
    assert main(["explain", str(broken)]) == 3
    captured = capsys.readouterr()
    assert "file_index_format/len_head = 330" in captured.out and "ERROR: input ends inside the field" in captured.out
    assert "\033[" not in captured.out  # no colour when not a terminal
    assert "at offset 16" in captured.err


def test_table_explain_uses_the_tables_types(capsys):
    from conftest import ROOT

    index = next((ROOT / "tests" / "tables" / "parquet" / "append_with_bsi_bitmap_bloomfilter.db").rglob("*.index"))
    root = index.parent.parent
    assert main(["table", str(root), "--explain", str(index), "--json"]) == 0
    fields = json.loads(capsys.readouterr().out)
    decoded = {f["path"].split(":")[1].split("/")[0] for f in fields if ":" in f["path"]}
    assert decoded == {"bloom_filter", "bitmap", "bsi"}  # bitmap bodies need the table's types
    assert sum(f["length"] for f in fields) == index.stat().st_size
