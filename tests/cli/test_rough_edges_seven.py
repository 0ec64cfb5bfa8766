"""Rough edges a new user met (the seventh round): a predicate's error says what is wrong and what to write on one
line, the predicate echoed, and the caret under the token at fault with its position (under the offset of a
timestamp); a '(' never closed is named; an empty --where says what to write; a literal out of range is echoed as
written; ``--explain`` of a failing merge says it did not merge; a primary-key funnel says a reason once per
bucket and has a stage header as an append table's does."""
import json

import pytest
from conftest import ROOT

from fileindex.cli import main
from fileindex.errors import UsageError
from fileindex.predicate.parser import parse_predicate
from fileindex.types import parse_type

TABLES = ROOT / "tests" / "tables"
APPEND = TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"
PRIMARY_KEYS = TABLES / "primary-keys"
SCHEMA = {"f1": parse_type("INT"), "ts": parse_type("TIMESTAMP(3)"),
          "lt": parse_type("TIMESTAMP(3) WITH LOCAL TIME ZONE")}


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def refused(where: str) -> list[str]:
    with pytest.raises(UsageError) as raised:
        parse_predicate(where, SCHEMA)
    return str(raised.value).splitlines()


def caret(position: int) -> str:
    return f"  {' ' * position}^ position {position}"


@pytest.mark.parametrize("where, at", [
    ("f1 = 'x'", "'x'"), ("f1 = 1 AND nope = 2", "nope"), ("f1 = 1 f1 = 2", "f1 = 2"), ("f1 IN ()", ")"),
])
def test_an_error_is_the_message_the_predicate_and_a_caret_saying_the_position_once(where, at):
    message, echoed, pointed = refused(where)
    position = where.index(at, 1) if at == "f1 = 2" else where.index(at)
    assert "position" not in message and (echoed, pointed) == (f"  {where}", caret(position))


@pytest.mark.parametrize("literal, offset", [
    ("2024-01-01 00:00:00 UTC", "UTC"), ("2024-01-01 00:00:00+5", "+5"), ("2024-01-01 00:00:00+00:00", "+00:00"),
])
def test_the_caret_of_an_offset_refused_on_a_timestamp_column_is_under_the_offset(literal, offset):
    where = f"f1 = 1 AND ts = TIMESTAMP '{literal}'"
    message, _, pointed = refused(where)
    assert pointed == caret(where.index(offset)) and not message.endswith(":")


@pytest.mark.parametrize("literal, offset", [("2024-01-01 00:00:00 UTC", "UTC"),
                                             ("2024-01-01 00:00:00+19:00", "+19:00")])
def test_the_caret_of_an_offset_written_wrong_is_under_the_offset(literal, offset):
    where = f"lt = TIMESTAMP '{literal}'"
    message, _, pointed = refused(where)
    assert pointed == caret(where.index(offset))
    assert message.endswith(("for UTC", "or write Z for UTC"))


def test_a_timestamp_column_s_offset_from_the_command_line(capsys):
    where = "k = TIMESTAMP '2024-01-01 00:00:00+00:00'"
    code, out, err = run(capsys, "read", PRIMARY_KEYS / "timestamp_key", "--where", where)
    assert (code, out) == (2, "")
    assert err.splitlines()[1:] == [f"  {where}", caret(where.index("+00:00"))]


@pytest.mark.parametrize("where, example", [("(f1 = 1", "(f1 = 1)"), ("f1 = 2 OR (f1 = 1 ", "(f1 = 1)")])
def test_a_parenthesis_never_closed_is_named_with_what_to_write(where, example):
    message, _, pointed = refused(where)
    assert message == f"this '(' is never closed: write ')' where the conditions it groups end, as {example}"
    assert pointed == caret(where.index("("))


def test_a_parenthesis_not_closed_before_another_condition_says_to_close_or_join():
    message, _, pointed = refused("(f1 = 1 f1 = 2")
    assert message == ("this '(' is not closed before 'f1': write ')' where the conditions it groups end, or join "
                       "another condition with AND or OR")
    assert pointed == caret(0)


@pytest.mark.parametrize("where", ["", "   "])
def test_an_empty_where_says_what_to_write_for_the_table_s_first_column(capsys, where):
    code, out, err = run(capsys, "read", APPEND, "--where", where)
    assert (code, out) == (2, "")
    assert err.splitlines() == ["fileindex read: the predicate is empty: write a condition, as f0 = 'text', or leave "
                                "--where out to read every row"]
    code, out, err = run(capsys, "read", PRIMARY_KEYS / "decimal_key", "--where", where)
    assert "as k = 5," in err


@pytest.mark.parametrize("written", ["-1e20", "1E+20", "100000000000000000.0"])
def test_a_decimal_out_of_range_names_column_and_type_once_and_echoes_the_literal_as_written(capsys, written):
    code, out, err = run(capsys, "read", PRIMARY_KEYS / "decimal_key", "--where", f"k = {written}")
    assert (code, out) == (2, "")
    assert err.splitlines()[0] == (f"fileindex read: literal {written} does not fit column k of type DECIMAL(20, 4) "
                                   "NOT NULL: out of range (it holds -9999999999999999.9999 to "
                                   "9999999999999999.9999)")


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_explain_alone_reads_no_row_and_says_the_merge_is_unchecked(capsys, extra):
    """``--explain`` is a plan (a large table's is not read for it): where the merge may refuse a retraction, it says
    it cannot tell whether the read fails, and what can; ``--count --explain`` merges and fails as the read does."""
    table = PRIMARY_KEYS / "aggregation_retract"
    code, out, err = run(capsys, "read", table, "--snapshot", 2)
    assert code == 3 and out == "" and "does not support retraction" in err
    assert run(capsys, "read", table, "--snapshot", 2, "--count", "--explain", *extra) == (code, "", err)
    code, out, note = run(capsys, "read", table, "--snapshot", 2, "--explain", *extra)
    assert code == 0 and out
    assert "cannot say whether the merge fails" in note and "--count --explain merges" in note
    code, out, note = run(capsys, "read", PRIMARY_KEYS / "deduplicate", "--explain", *extra)
    assert code == 0 and out and note == ""


def test_a_primary_key_funnel_says_a_reason_once_per_bucket_and_has_a_stage_header(capsys):
    code, out, err = run(capsys, "read", PRIMARY_KEYS / "deduplicate", "--explain")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1].startswith("  pruning stages, each with the files and records before -> after it (records as "
                               "written, before the merge by key")
    assert lines[2] == "  file index        no data file has an index"  # (Java 0.9.0 writes no index)
    merged = [line for line in lines if "merged with its bucket" in line]
    assert merged and all(line.endswith(")") and "(merged into " in line and "no where" not in line
                          for line in merged)
    first = [line for line in lines if "read its bucket's" in line]
    assert first and all("(no where: every row matches; " in line for line in first)
    code, out, err = run(capsys, "read", PRIMARY_KEYS / "deduplicate", "--explain", "--json")
    funnel = json.loads(out)
    assert funnel["partition_pruning"] == {"before": 8, "after": 8}
    reads = [f for f in funnel["files"] if f["read"] == "all"]
    assert sum(f["rows"] for f in reads) == sum(f["row_count"] for f in funnel["files"])  # (rows: what is merged)
