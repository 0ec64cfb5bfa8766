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
