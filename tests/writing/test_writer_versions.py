"""Paimon 0.9 to 1.1 write one index type per column (their DataFileIndexWriter keys its maintainers by
column); 1.2 and later write every declared type. ``build``/``rewrite --writer-version`` reproduce either."""
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import ROOT

from fileindex.cli import main
from fileindex.container.column_order import per_column_types, writer_layout
from fileindex.container.file import FileIndexContainer
from fileindex.errors import UsageError
from fileindex.table.rewrite_plan import writer_of
from fileindex.types import parse_schema
from fileindex.writing.options import keys_by_column, one_type_notes, parse_options, writer_version

SCHEMA = parse_schema("tag STRING, id INT, m MAP<STRING, INT>")
SHARED = {"file-index.bitmap.columns": "tag,id", "file-index.bloom-filter.columns": "tag"}


def pairs(parsed) -> list[tuple[str, str]]:
    return [(r.column, r.index_type) for r in parsed.ordered_requests()]


@pytest.mark.parametrize(("version", "by_column"), [("0.9", True), ("1.0", True), ("1.1.1", True), ("1.2", False),
                                                    ("2.0", False), ("latest", False), (None, False)])
def test_releases_before_1_2_key_writers_by_column(version, by_column):
    assert keys_by_column(version) is by_column


@pytest.mark.parametrize("text", ["0.8", "one", "1", "1.x", "99.9", "1.5", "2.1", "0.10"])
def test_a_writer_version_that_is_no_release_is_refused_saying_what_to_give(text):
    with pytest.raises(UsageError, match=f"--writer-version {text}: .*Paimon"):
        writer_version(text)


def test_a_writer_version_that_is_no_release_is_refused_by_rewrite_and_build(tmp_path, capsys):
    """99.9 was taken as "the newest"; only released lines are (0.9 to 2.0, any patch release of them)."""
    table = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"
    assert main(["rewrite", str(table), "--writer-version", "99.9", "--dry-run"]) == 2
    assert "--writer-version 99.9: not a Paimon release; give one of 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 2.0" in \
        capsys.readouterr().err
    assert main(["rewrite", str(table), "--writer-version", "1.3.1", "--dry-run"]) == 0


def test_a_shared_column_keeps_bloom_filter_below_1_2_and_both_types_after():
    assert per_column_types(SHARED) == {"tag": "bloom-filter", "id": "bitmap"}
    old = parse_options(SHARED, SCHEMA, writer="0.9")
    assert sorted(pairs(old)) == [("id", "bitmap"), ("tag", "bloom-filter")]
    assert sorted(pairs(parse_options(SHARED, SCHEMA))) == [("id", "bitmap"), ("tag", "bitmap"),
                                                            ("tag", "bloom-filter")]
    # the losing type's own options are accepted and unused, as in Java
    with_option = {**SHARED, "file-index.bitmap.tag.version": "1"}
    assert pairs(parse_options(with_option, SCHEMA, writer="1.0")) == pairs(old)


def test_bitmap_wins_over_bsi_and_the_choice_ignores_declaration_order():
    options = {"file-index.bsi.columns": "id", "file-index.bitmap.columns": "id"}
    reordered = dict(reversed(list(options.items())))
    assert per_column_types(options) == per_column_types(reordered) == {"id": "bitmap"}


def test_every_key_of_a_map_column_takes_the_maps_one_type_with_its_own_options():
    options = {"file-index.bloom-filter.columns": "m[a]", "file-index.bitmap.columns": "m[b]",
               "file-index.bitmap.m[b].version": "1", "file-index.bloom-filter.m.items": "40"}
    chosen = per_column_types(options)["m"]
    parsed = parse_options(options, SCHEMA, writer="0.9")
    requests = {r.column: r for r in parsed.requests}
    assert {r.index_type for r in requests.values()} == {chosen} and set(requests) == {"m[a]", "m[b]"}
    assert requests["m[b]"].options.get("version") == "1"  # its own options, under the map's type
    assert [types for _, types in writer_layout(options, per_column=True)] == [[chosen], [chosen]]


def test_the_notes_name_the_column_its_lists_and_the_type_written():
    assert one_type_notes(SHARED, "0.9") == [
        "tag is listed in file-index.bloom-filter.columns and file-index.bitmap.columns; Paimon 0.9 writes one "
        "index type per column: only bloom-filter for it (Paimon 1.2 and later write each type)"]
    assert one_type_notes(SHARED, None) == [] and one_type_notes({"file-index.bitmap.columns": "id"}, "0.9") == []


@pytest.mark.parametrize(("floor", "writer"), [("0.9", "0.9"), ("1.0", "1.0"), ("1.1", None), ("1.3", None)])
def test_rewrite_takes_the_writer_from_the_manifests_shape(floor, writer):
    assert writer_of(floor) == writer


def test_build_with_a_writer_version_writes_one_type_per_column(tmp_path, capsys):
    data = tmp_path / "d.parquet"
    pq.write_table(pa.table({"tag": [f"t{i % 5}" for i in range(50)], "id": list(range(50))}), data)
    options = [f"--option={k}={v}" for k, v in SHARED.items()]
    assert main(["build", str(data), "-o", str(tmp_path / "old.index"), "--writer-version", "0.9", *options]) == 0
    assert "only bloom-filter for it" in capsys.readouterr().err
    assert main(["build", str(data), "-o", str(tmp_path / "new.index"), *options]) == 0
    with FileIndexContainer.open(tmp_path / "old.index") as old, FileIndexContainer.open(tmp_path / "new.index") as new:
        assert sorted((e.column, e.index_type) for e in old) == [("id", "bitmap"), ("tag", "bloom-filter")]
        assert len(list(new)) == 3
    assert main(["build", str(data), "-o", str(tmp_path / "x.index"), "--writer-version", "0.8", *options]) == 2
    assert "Paimon 0.9 is the oldest" in capsys.readouterr().err
