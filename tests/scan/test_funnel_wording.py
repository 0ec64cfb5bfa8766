"""What the funnel says of a stage that consulted nothing (no data file has an index) and of a primary-key table's
counts (records before the merge by key, not rows)."""
from __future__ import annotations

from fileindex import PaimonTable
from fileindex.scan.engine_scan import funnel_line

from conftest import ROOT

TABLES = ROOT / "tests" / "tables"
UNINDEXED = TABLES / "primary-keys" / "date_key"  # Java 0.9.0's key-value writer writes no file index
INDEXED = TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"


def _stage(explained: dict, name: str) -> dict:
    return next(stage for stage in explained["stages"] if stage["stage"] == name)


def test_a_table_whose_files_have_no_index_says_so_instead_of_a_file_index_count():
    for where in (None, "v = 1"):
        explained = PaimonTable(UNINDEXED).scan(where).explain()
        lines = str(explained).splitlines()
        assert "  file index        no data file has an index" in lines
        assert not any(line.startswith("  file index        files") for line in lines)
        assert _stage(explained.as_dict(), "file_index")["no_index"] is True
        assert "file_index: no data file has an index" in funnel_line(explained)


def test_a_table_whose_files_have_indexes_counts_its_file_index_stage():
    explained = PaimonTable(INDEXED).scan("f1 = 20").explain()
    assert "  file index        files      1 -> 1      rows            8 -> 3" in str(explained).splitlines()
    assert "no_index" not in _stage(explained.as_dict(), "file_index")


def test_a_primary_key_tables_funnel_counts_records_before_the_merge_not_rows():
    scan = PaimonTable(UNINDEXED).scan()
    explained = scan.explain()
    lines = str(explained).splitlines()
    assert lines[1].startswith("  pruning stages, each with the files and records before -> after it (records as "
                               "written, before the merge by key")
    first = [line for line in lines if "index=none  read" in line]
    records = sum(f["row_count"] for f in explained.as_dict()["files"])
    assert records > scan.count()  # (updated keys: more records than rows)
    assert len(first) == 1 and f"read its bucket's {records} records" in first[0]
    assert explained.as_dict()["counts"] == "records"
    filtered = str(PaimonTable(UNINDEXED).scan("v = 1").explain()).splitlines()
    assert f"  key statistics    files      2 -> 2      records {records:>9} -> {records}" in filtered
    assert f"{records}->{records} records" in funnel_line(PaimonTable(UNINDEXED).scan("v = 1").explain())


def test_an_append_tables_funnel_counts_rows():
    explained = PaimonTable(INDEXED).scan("f1 = 20").explain()
    assert str(explained).splitlines()[1] == "  pruning stages, each with the files and rows before -> after it:"
    assert "counts" not in explained.as_dict() and "8->3 rows" in funnel_line(explained)
