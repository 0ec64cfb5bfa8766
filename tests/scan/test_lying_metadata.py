"""Table metadata that lies about a data file never drops its matching rows unsaid: a manifest's row count below
the rows its file's index names, and a data file listed twice."""
from __future__ import annotations

import pytest
from hostile import fileindex, refused
from table_edits import copy_table, data_manifests, edit_rows

from fileindex import PaimonTable
from fileindex.arrow.data_files import DataFileError
from fileindex.indexes.result import REMAIN

DATA = "bucket-0/data-54b396b6-df2d-4c6a-a0ae-b6a5afb612d7-0.parquet"  # 8 rows: Tony at rows 3 and 6


@pytest.fixture
def table(tmp_path):
    return copy_table("parquet", "append_with_bitmap", tmp_path)


def with_row_count(root, count: int) -> None:
    def edit(rows):
        for row in rows:
            row["_FILE"]["_ROW_COUNT"] = count

    for manifest in data_manifests(root):
        edit_rows(manifest, edit)


@pytest.mark.parametrize("where", ["f0 = 'Tony'", "f0 <> 'Alice'"])
def test_an_index_naming_rows_past_the_manifests_row_count_does_not_skip_them(table, where):
    """The manifest says 3 rows; the embedded bitmap names Tony's rows 3 and 6: they were cut to the 3 rows, the
    file skipped, and the read answered no row (a count 0) where the file holds two, instead of reading the file
    and finding it holds 8 rows."""
    with_row_count(table, 3)
    verdict = PaimonTable(table).verdict(PaimonTable(table).live()[0][0], _parsed(table, where))
    assert verdict.result is REMAIN and not verdict.exact and "past" in verdict.note
    with pytest.raises(DataFileError, match="holds 8 rows where the table's manifest says 3"):
        PaimonTable(table).scan(where).to_arrow()
    with pytest.raises(DataFileError, match="holds 8 rows where the table's manifest says 3"):
        PaimonTable(table).scan(where).count()
    refused(fileindex("read", table, "--where", where, "--count"), DATA, "holds 8 rows")


def _parsed(root, where):
    from fileindex.predicate.parser import parse_predicate

    return parse_predicate(where, PaimonTable(root).schema.types())
