"""Rough edges left by the fourth trial: a predicate on a column the index does not hold, an empty IN list,
``--snapshot latest``, a schema that does not parse, hints naming the type the data has, the explain funnel."""
import json
import subprocess
import sys

from conftest import ROOT
from test_third_trial import run

ENGINE = ROOT / "tests" / "vectors" / "java" / "multi__engine_layout.index"
OTHER_DATA = ROOT / "tests" / "tables" / "append_with_bitmap_multi_stripes.db" / "append_with_bitmap_multi_stripes" / \
    "bucket-0" / "data-multi-row-groups.parquet"  # columns f0 (STRING), f1, f2 (INT), f3 (DOUBLE)


def fileindex(*argv) -> subprocess.CompletedProcess:
    """The command line run as a user runs it: a process of its own, its exit code and stderr."""
    return subprocess.run([sys.executable, "-m", "fileindex", *map(str, argv)], capture_output=True, text=True)


def test_query_refuses_a_column_the_index_does_not_hold():
    done = fileindex("query", ENGINE, "--schema", "zz INT", "--where", "zz = 1")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "fileindex query: zz = 1: the index holds no column zz; it holds attrs[size], price, name, id, attrs[color], "
        "列名😀, ts; a column it does not index answers REMAIN: to ask about one, give the data it indexes (--data "
        "DATA_FILE or --table ROOT), which shows the column is real and not misspelt (--schema cannot)"]


def test_query_names_the_indexed_column_meant_in_any_leaf(capsys):
    code, out, err = run(capsys, "query", ENGINE, "--schema", "id INT, prize DOUBLE", "--where", "id = 1",
                         "--where", "id = 1 OR prize > 2.5")
    assert code == 2 and out == ""  # nothing answered: the second predicate is refused before any is
    assert err.startswith("fileindex query: id = 1 OR prize > 2.5: the index holds no column prize (did you mean "
                          "price?); it holds ") and len(err.splitlines()) == 1


def test_query_answers_a_column_of_the_data_the_index_does_not_hold(capsys):
    """A column the data file has is a real column: a predicate on it is answered (REMAIN: no index), as Java
    answers it."""
    code, out, err = run(capsys, "query", ENGINE, "--data", OTHER_DATA, "--schema", "id INT",
                         "--where", "id = 100000 AND f1 = 3")
    assert code == 0 and out == "id = 100000 AND f1 = 3  =>  SKIP\n", err


def test_an_empty_in_list_is_a_usage_error(capsys):
    code, out, err = run(capsys, "query", ENGINE, "--schema", "id INT", "--where", "id IN ()")
    assert code == 2 and out == "" and err.startswith("fileindex query: an IN list takes one value or more: write "
                                                      "id IN (v1, v2, ...), or id = v for one")


TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"


def test_snapshot_latest_is_the_newest_snapshot(capsys):
    newest = run(capsys, "read", TABLE, "--json")
    assert newest[0] == 0 and newest[1]
    for word in ("latest", "LATEST"):
        assert run(capsys, "read", TABLE, "--snapshot", word, "--json") == newest
    assert run(capsys, "table", TABLE, "--snapshot", "latest", "--where", "f0 = 'a'")[0] == 0


def test_snapshot_that_is_no_id_says_what_it_takes():
    for command, value in [("read", "newest"), ("table", "-1")]:
        done = fileindex(command, TABLE, "--snapshot", value, "--where", "f0 = 'a'")
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.splitlines()[-1] == (
            f"fileindex {command}: error: argument --snapshot: '{value}' is not a snapshot id: give a snapshot's "
            f"number (N of the table's snapshot/snapshot-N), or latest (see fileindex {command} --help)")


def test_a_schema_that_does_not_parse_says_what_a_schema_looks_like():
    done = fileindex("query", ENGINE, "--schema", "id INTT", "--where", "id = 1")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "fileindex query: column id: unknown type 'INTT'; did you mean INT? at position 3 of the schema 'id INTT': "
        "a schema is \"name TYPE, ...\", e.g. \"id INT, name STRING, attrs MAP<STRING, INT>\""]


DV_TABLE = ROOT / "tests" / "tables" / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"


def stage_names(capsys, *argv) -> list[str]:
    code, out, err = run(capsys, "read", *argv, "--explain", "--json")
    assert code == 0, err
    return [stage["stage"] for stage in json.loads(out)["stages"]]


def test_the_funnel_has_a_deletion_vectors_stage_only_where_there_are_deletion_vectors(capsys):
    assert stage_names(capsys, TABLE, "--where", "f0 = 'Bob'") == ["statistics", "file_index"]
    assert stage_names(capsys, DV_TABLE, "--where", "f0 = 'Bob'") == ["level", "statistics", "file_index",
                                                                      "deletion_vectors"]


def test_the_funnel_says_level_0_files_are_not_read(capsys):
    """Snapshot 1 of the table holds one uncompacted file: the read answers no row (as Java's batch scan), and
    the funnel says why; snapshot 3 adds a level-0 file beside a compacted one."""
    code, out, err = run(capsys, "read", DV_TABLE, "--snapshot", "1", "--explain")
    lines = out.splitlines()
    assert code == 0 and lines[2].split() == ["level", "0", "files", "1", "->", "0", "rows", "8", "->", "0"]
    assert lines[-1].endswith("skipped by level 0  (level 0: a batch scan of a primary-key table with deletion "
                              "vectors reads only compacted files (above level 0), as Java's does: their rows are "
                              "read once compacted)")
    code, out, _ = run(capsys, "read", DV_TABLE, "--snapshot", "3", "--explain", "--json")
    files = json.loads(out)["files"]
    assert code == 0 and [f["skipped_by"] for f in files] == [None, "level"]


def test_the_funnel_says_where_a_limit_applies(capsys):
    code, out, _ = run(capsys, "read", TABLE, "--where", "f0 = 'Bob'", "--explain", "--limit", "0")
    assert code == 0 and "  limit 0: applied after these stages (no file is read)" in out.splitlines()
    code, out, _ = run(capsys, "read", TABLE, "--explain", "--limit", "1", "--json")
    assert code == 0 and json.loads(out)["limit"] == 1
    code, out, _ = run(capsys, "read", TABLE, "--explain", "--limit", "2", "--count")
    assert code == 0 and "  limit 2: applied after these stages (the read stops at 2 rows)" in out.splitlines()
    code, out, _ = run(capsys, "read", TABLE, "--explain")
    assert code == 0 and "limit" not in out


def test_a_limit_that_is_no_number_of_rows_says_what_it_takes():
    for value in ("-1", "ten"):
        done = fileindex("read", TABLE, "--limit", value)
        assert done.returncode == 2 and done.stderr.splitlines()[-1] == (
            f"fileindex read: error: argument --limit: '{value}' is not a number of rows: give 0 or more "
            "(see fileindex read --help)")


def test_an_order_by_with_a_misspelt_direction_names_the_one_meant(capsys):
    for order, said in [("f1 DESCC", "cannot order by 'f1 DESCC': after column f1, 'DESCC' is not ASC or DESC and "
                                     "NULLS FIRST or LAST (did you mean f1 DESC?)"),
                        ("f1 asc nulls lst", "after column f1, 'asc nulls lst' is not ASC or DESC and NULLS FIRST or "
                                             "LAST (did you mean f1 ASC NULLS LAST?)"),
                        ("f9 DESC", "cannot order by unknown column 'f9' (the schema has: f0, f1, f2, f3)")]:
        code, out, err = run(capsys, "read", TABLE, "--order-by", order, "--limit", "1")
        assert code == 2 and out == "" and said in err and len(err.splitlines()) == 1, err


def test_verify_of_a_table_names_the_command_that_verifies_one(capsys):
    code, out, err = run(capsys, "verify", TABLE)
    assert code == 2 and out == "" and err == (
        f"fileindex verify: {TABLE} is a Paimon table's folder, not a data file: give one of its Parquet or ORC files, "
        f"or verify them all with fileindex spark verify {TABLE}\n")


def test_a_name_selected_or_ordered_by_in_backquotes_is_told_to_be_written_as_it_is(capsys):
    """--select and --order-by take names as they are: a backquoted one was answered "did you mean `f1`?"."""
    for option, value, said in [("--select", "`f1`", "cannot select unknown column '`f1`' (write the name as it "
                                                      "is, without backquotes: 'f1')"),
                                ("--order-by", "`f1` DESC", "cannot order by unknown column '`f1`' (write the name "
                                                            "as it is, without backquotes: 'f1')")]:
        code, out, err = run(capsys, "read", TABLE, option, value, "--limit", "1")
        assert code == 2 and out == "" and said in err and len(err.splitlines()) == 1, err
