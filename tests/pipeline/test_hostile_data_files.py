"""Data files that lie never change an answer: an offset index that does not describe its pages is not read from,
a data file holding another number of rows than its manifest says is a one-line data-file error (exit 3), and a
MemoryError or RecursionError leaves the Python API as the project's typed error."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.csv
import pyarrow.parquet as pq
import pytest
from hostile import fileindex, refused
from parquet_forgery import with_footer, with_offset_indexes, with_page_header
from table_edits import copy_table, data_manifests, edit_rows

from fileindex.arrow import data_files
from fileindex.arrow.data_files import DataFileError
from fileindex.errors import ResourceError, UsageError
from fileindex.predicate.tree import Leaf, and_, or_
from fileindex import PaimonTable

DATA = "bucket-0/data-54b396b6-df2d-4c6a-a0ae-b6a5afb612d7-0.parquet"  # 8 rows: f0 'Alice', 'Bob', 'Emily', ...


def with_data_file(root: Path, table) -> Path:
    """The table's data file rewritten with ``table``'s rows (Java's field ids kept) in pages of two rows, with
    page indexes; its manifest entry's size follows."""
    path = root / DATA
    pq.write_table(table, path, data_page_size=1, write_batch_size=2, write_page_index=True)
    resized(root)
    return path


def resized(root: Path) -> None:
    """The table's manifest entry given its data file's size (as rewritten here)."""
    def resize(rows):
        for row in rows:
            row["_FILE"]["_FILE_SIZE"] = (root / DATA).stat().st_size

    for manifest in data_manifests(root):
        edit_rows(manifest, resize)


@pytest.fixture
def table(tmp_path) -> Path:
    root = copy_table("parquet", "append_with_bitmap", tmp_path)
    with_data_file(root, pq.read_table(root / DATA))
    return root


def rows_printed(root: Path, where: str) -> list[dict]:
    done = fileindex("read", root, "--where", where, "--json")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.parametrize("leaves", [{1}, {0, 1, 2, 3}], ids=["one column", "every column"])
def test_a_lying_offset_index_does_not_change_the_rows_read_prints(table, leaves):
    """Two pages said to start a row early: the bitmap keeps row 4 (Lucy), which the lie puts on the page after;
    read from there, one column of the row (or all) came from another row."""
    assert rows_printed(table, "f0 = 'Lucy'") == [{"f0": "Lucy", "f1": 20, "f2": 1, "f3": 15.1}]

    def early(group, leaf, pages):
        if leaf not in leaves:
            return None
        for page in pages[2:4]:
            page.first_row_index -= 1
        return pages

    with_offset_indexes(table / DATA, early)
    resized(table)
    assert rows_printed(table, "f0 = 'Lucy'") == [{"f0": "Lucy", "f1": 20, "f2": 1, "f3": 15.1}]
    assert rows_printed(table, "f0 = 'Tony'") == [{"f0": "Tony", "f1": 10, "f2": 0, "f3": 14.1},
                                                  {"f0": "Tony", "f1": 20, "f2": 0, "f3": 17.1}]


def test_a_data_file_shorter_than_its_manifest_says_is_a_data_file_error(table):
    """The manifest says 8 rows and the bitmap keeps rows 3 and 6 (Tony); the file holds 4 (an IndexError
    traceback, exit 1, before)."""
    with_data_file(table, pq.read_table(table / DATA).slice(0, 4))
    for where in ("f0 = 'Tony'", "f1 = 10"):
        refused(fileindex("read", table, "--where", where), DATA, "holds 4 rows", "manifest says 8")
    data_files.FOOTERS.clear()
    with pytest.raises(DataFileError, match="holds 4 rows where the table's manifest says 8"):
        PaimonTable(table).scan().to_arrow()


def test_a_data_file_longer_than_its_manifest_says_is_a_data_file_error(table):
    rows = pq.read_table(table / DATA)
    with_data_file(table, pa.concat_tables([rows, rows]))
    refused(fileindex("read", table), DATA, "holds 16 rows", "manifest says 8")


def _footer_at(path: Path) -> int:
    data = path.read_bytes()
    return len(data) - 8 - int.from_bytes(data[-8:-4], "little")


def test_a_footer_whose_row_count_is_not_its_row_groups_is_a_data_file_error(table):
    """The footer says 9 rows, its one row group holds 8: a count would say 9, a read 8 (two answers)."""
    def more(meta):
        meta.num_rows = 9

    with_footer(table / DATA, more)
    refused(fileindex("read", table, "--where", "f1 = 10"), DATA, "says it holds 9 rows",
            f"its footer at byte {_footer_at(table / DATA)}", "its row groups hold 8")


def test_a_row_group_whose_row_count_is_not_its_columns_is_a_data_file_error(table):
    """The file and its row group say 7 rows, the group's columns hold 8 values: a whole read takes the pages'
    8, a row selection the group's 7 (Tony's rows 3 and 6 found by one, not the other)."""
    def fewer(meta):
        meta.num_rows = meta.row_groups[0].num_rows = 7

    with_footer(table / DATA, fewer)
    for where in ("f0 = 'Tony'", "f1 = 10"):
        refused(fileindex("read", table, "--where", where), DATA, "row group 0 says it holds 7 rows",
                "its column f0 holds 8 values", "corrupt Parquet footer")
    data_files.FOOTERS.clear()
    with pytest.raises(DataFileError, match="row group 0 says it holds 7 rows"):
        PaimonTable(table).scan().to_arrow()


def test_a_page_holding_fewer_values_than_it_says_is_a_data_file_error(table):
    """f0's second page says it holds one value where it holds two: pyarrow reads the column as 7 rows where the
    footer and the manifest say 8 (every row after it one place early), which a whole read, a streamed read and a
    count took for the file's rows (7 names printed, a count of 7, before)."""
    def fewer(header):
        header.data_page_header.num_values -= 1

    with_page_header(table / DATA, 0, 0, 1, fewer)  # (page 0 is f0's dictionary)
    for arguments in (["--select", "f0"], ["--count", "--where", "f0 > 'A'"]):
        refused(fileindex("read", table, *arguments), DATA, "the pages of f0 hold 7 rows where the footer says 8",
                "corrupt Parquet file")
    refused(fileindex("read", table, "--where", "f0 = 'Tony'"), DATA, "f1 expected length 7")  # (pyarrow's words)
    data_files.FOOTERS.clear()
    with pytest.raises(DataFileError, match=r"the pages of f0 hold 7 rows where the footer says 8 \(its footer at "):
        pa.Table.from_batches(list(PaimonTable(table).scan(columns=["f0"]).to_batches()))
    reader = data_files.DataFileReader(table / DATA)
    with pytest.raises(DataFileError, match=r"hold 7 rows where the footer says 8 \(row group 0, its first chunk "):
        reader.read_rows(pa.array([0, 7], pa.int64()), ["f0"])


def test_a_predicate_text_nested_too_deep_is_a_usage_error(table):
    """Predicate text 5,000 deep: refused by the parser in one line, from the Python API and the command line."""
    deep = "(" * 5000 + "f1 = 10" + ")" * 5000
    with pytest.raises(UsageError, match="nested too deeply"):
        PaimonTable(table).scan(deep).to_arrow()
    refused(fileindex("read", table, "--where", deep), "nested too deeply", code=2)


def test_recursion_leaves_the_python_api_as_a_typed_error(table):
    """A predicate tree built in code 5,000 deep (text stops at 100 levels): a ResourceError, not a RecursionError."""
    deep = Leaf("eq", "f1", (10,))
    for level in range(5000):
        deep = and_(or_(deep, Leaf("eq", "f1", (level,))), Leaf("is_not_null", "f1"))
    with pytest.raises(ResourceError, match="nested deeper"):
        PaimonTable(table).scan(deep).to_arrow()


@pytest.mark.parametrize("call", ["to_arrow", "to_pandas", "explain"])
def test_running_out_of_memory_leaves_the_python_api_as_a_typed_error(table, monkeypatch, call):
    """(The reader and the planner made to run out of memory: what a hostile file would make them do.)"""
    def exhausted(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(data_files.DataFileReader, "read_rows", exhausted)
    monkeypatch.setattr(data_files.DataFileReader, "read", exhausted)
    if call == "explain":
        monkeypatch.setattr(PaimonTable, "verdict", exhausted)
    with pytest.raises(ResourceError, match="ran out of memory"):
        getattr(PaimonTable(table).scan("f0 = 'Lucy'"), call)()


def test_a_file_its_manifest_says_holds_no_rows_is_explained_as_such(table):
    """A manifest entry of 0 rows (Java writes none) drops the file, as Java's statistics test drops it; the funnel
    said "every row it keeps is deleted" (deletion vectors, on a table that has none) or "statistics"."""
    def empty(rows):
        for row in rows:
            row["_FILE"]["_ROW_COUNT"] = 0

    for manifest in data_manifests(table):
        edit_rows(manifest, empty)
    for where in (None, "f1 = 10"):
        explained = PaimonTable(table).scan(where).explain().as_dict()
        assert explained["stages"][0] == {"stage": "row_count", "files_before": 1, "files_after": 0,
                                          "rows_before": 0, "rows_after": 0}
        assert [(f["skipped_by"], f["reason"]) for f in explained["files"]] == \
            [("row_count", "the table's manifest records no rows in it")]
    assert fileindex("read", table, "--explain").stdout.count("skipped by row count") == 1


def test_a_column_whose_values_do_not_fit_its_schemas_type_is_a_data_file_error(table):
    """The schema says f0 (strings in the file) is INT: an ArrowInvalid traceback (exit 1) before."""
    path = table / "schema" / "schema-0"
    schema = json.loads(path.read_text())
    schema["fields"][0]["type"] = "INT"
    path.write_text(json.dumps(schema))
    refused(fileindex("read", table, "--where", "f1 = 10"), DATA, "its column f0 holds string values",
            "cannot be read as int32")
    with pytest.raises(DataFileError, match="its column f0 holds string values"):
        PaimonTable(table).scan("f1 = 10").to_arrow()


def test_control_characters_in_a_tables_values_and_names_are_printed_escaped(table):
    """A value or column name holding ESC sequences, a carriage return or a newline recoloured the terminal, moved
    its cursor or split an error line (printed raw, before)."""
    rows = pq.read_table(table / DATA)
    values = ["\x1b[31mRED\x1b[0m", "\r\x1b[2Kover", "line1\nline2"] + rows.column("f0").to_pylist()[3:]
    with_data_file(table, rows.set_column(0, rows.schema.field("f0"), pa.array(values)))
    printed = fileindex("read", table)
    assert printed.returncode == 0, printed.stderr
    for escaped in ("\\x1b[31mRED\\x1b[0m", "\\r\\x1b[2Kover", "line1\\nline2"):
        assert escaped in printed.stdout
    assert "\x1b" not in printed.stdout and "\r" not in printed.stdout
    assert len(printed.stdout.splitlines()) == 1 + len(values)
    path = table / "schema" / "schema-0"
    schema = json.loads(path.read_text())
    schema["fields"][1]["name"] = "\x1b[31mred\nline"
    path.write_text(json.dumps(schema))
    done = fileindex("read", table, "--where", "x = 1")
    assert done.returncode == 2 and "\x1b" not in done.stderr, done.stderr
    assert done.stderr.splitlines()[0].endswith("(the schema has: f0, `\\x1b[31mred\\nline`, f2, f3)")


def test_bytes_that_are_not_utf8_are_written_to_csv_as_read_prints_them(table, tmp_path):
    """Arrow's CSV writer refused them (an ArrowInvalid traceback, exit 1), or wrote NULs raw where they were valid."""
    rows = pq.read_table(table / DATA)
    values = [b"a\x00b", b"\xff\xfe", None] + [b"plain"] * (rows.num_rows - 3)
    with_data_file(table, rows.set_column(3, pa.field("f3", pa.binary()), pa.array(values, pa.binary())))
    path = table / "schema" / "schema-0"
    schema = json.loads(path.read_text())
    schema["fields"][3]["type"] = "BYTES"
    path.write_text(json.dumps(schema))
    out = tmp_path / "rows.csv"
    done = fileindex("read", table, "--output", out)
    assert done.returncode == 0, done.stderr
    written = pa.csv.read_csv(out, convert_options=pa.csv.ConvertOptions(
        column_types={"f3": pa.string()}, strings_can_be_null=True))
    printed = [row["f3"] for row in rows_printed(table, "f1 >= 0")]
    assert written.column("f3").to_pylist() == printed == ["b'a\\x00b'", "b'\\xff\\xfe'", None] + \
        ["b'plain'"] * (rows.num_rows - 3)


@pytest.mark.parametrize("edit", [lambda t: t.rename_columns(["g0", "f1", "f2", "f3"]), lambda t: t.drop_columns("f0")],
                         ids=["renamed", "dropped"])
def test_a_data_file_lacking_a_column_its_schema_gives_it_is_a_data_file_error(table, edit):
    """The file holds no f0 (renamed g0, or dropped), which its schema 0 gives it: it was read as nulls, so a read
    printed 8 nulls in f0 where the table's statistics and index (f0 = 'Alice': rows 0, 7) say it holds none."""
    with_data_file(table, edit(pq.read_table(table / DATA)))
    for args in (["--where", "f1 = 20"], ["--where", "f0 = 'Alice'"], []):
        refused(fileindex("read", table, *args), DATA, "lacks column f0")
    with pytest.raises(DataFileError, match="lacks column f0"):
        PaimonTable(table).scan().to_arrow()
