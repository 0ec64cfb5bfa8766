"""Rough edges left by the fifth trial: timestamps shown as their Paimon precision says, messages that say what is
wrong, the count's note and JSON form, and what a new user's wrong inputs are told."""
import json

import pyarrow as pa
import pytest
from conftest import ROOT
from test_third_trial import run

from fileindex.arrow.compute import python_rows
from fileindex.cli import main
from fileindex.arrow.types import arrow_type
from fileindex.types import parse_type

TIMESTAMPS = ROOT / "tests" / "tables" / "orc" / "timestamp_index.db" / "timestamp_index"


def test_timestamps_print_with_the_digits_of_their_paimon_precision(capsys):
    """TIMESTAMP(0), (3), (6), (9), each also WITH LOCAL TIME ZONE: as many digits after the second as the
    precision, every zoned one in UTC ending in +00:00 (the nanosecond one ended in Z, a TIMESTAMP(3) had 6)."""
    expected = {"ts_sec": "2025-04-25 01:00:02", "ts_milli": "2025-04-25 01:00:02.001",
                "ts_micro": "2025-04-25 01:00:02.001001", "ts_nano": "2025-04-25 01:00:02.001001001",
                "ts_tz_sec": "2025-04-24 17:00:02+00:00", "ts_tz_milli": "2025-04-24 17:00:02.001+00:00",
                "ts_tz_micro": "2025-04-24 17:00:02.001001+00:00",
                "ts_tz_nano": "2025-04-24 17:00:02.001001001+00:00"}
    code, out, _ = run(capsys, "read", TIMESTAMPS, "--limit", "1", "--json")
    assert code == 0 and json.loads(out) == expected
    code, out, _ = run(capsys, "read", TIMESTAMPS, "--limit", "1")
    assert code == 0 and out.splitlines()[1].split("  ") == list(expected.values())


def test_a_jsonl_output_of_nanosecond_timestamps_is_written_as_printed(capsys, tmp_path):
    """``--output rows.jsonl`` of a TIMESTAMP(9) column stopped with a traceback (pyarrow wants pandas for
    nanoseconds); it holds the rows ``--json`` prints."""
    code, printed, _ = run(capsys, "read", TIMESTAMPS, "--json")
    assert code == 0
    code, out, err = run(capsys, "read", TIMESTAMPS, "--output", tmp_path / "rows.jsonl")
    assert (code, out, err) == (0, "", f"wrote 8 rows to {tmp_path / 'rows.jsonl'}\n")
    assert (tmp_path / "rows.jsonl").read_text() == printed


SECOND = 1745542802  # 2025-04-25 01:00:02 UTC


@pytest.mark.parametrize("precision", range(10))
def test_every_precision_shows_its_digits(precision):
    """Precisions 0-9, each read as the Arrow type the reader gives it (s, ms, us or ns): exactly ``precision``
    digits after the second, with or without a time zone; times too."""
    kept = 123456789 // 10 ** (9 - precision) * 10 ** (9 - precision)  # 0.123456789 s, to the precision
    digits = f".{'123456789'[:precision]}" if precision else ""
    for sql, suffix in ((f"TIMESTAMP({precision})", ""), (f"TIMESTAMP({precision}) WITH LOCAL TIME ZONE", "+00:00")):
        arrow = arrow_type(parse_type(sql))
        batch = pa.record_batch({"ts": pa.array([(SECOND * 10**9 + kept) // TICK[arrow.unit], None], arrow)})
        assert python_rows(batch, {"ts": precision}) == [{"ts": f"2025-04-25 01:00:02{digits}{suffix}"}, {"ts": None}]
    arrow = arrow_type(parse_type(f"TIME({precision})"))  # (Paimon's TIME holds milliseconds: TIME(9) reads as ns)
    time = pa.array([(3602 * 10**9 + kept // 10**6 * 10**6) // TICK[arrow.unit]], arrow)
    millis = f".{'123'[:precision]}".ljust(precision + 1, "0") if precision else ""
    assert python_rows(pa.record_batch({"t": time}), {"t": precision}) == [{"t": f"01:00:02{millis}"}]


TICK = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}


def test_a_digit_beyond_the_precision_is_still_shown():
    """As Paimon's formatTimestamp: only trailing zeros beyond the precision are dropped (a value a writer did not
    truncate is never shown rounded)."""
    batch = pa.record_batch({"ts": pa.array([SECOND * 1000 + 120, SECOND * 1000 + 100], pa.timestamp("ms"))})
    assert python_rows(batch, {"ts": 1}) == [{"ts": "2025-04-25 01:00:02.12"}, {"ts": "2025-04-25 01:00:02.1"}]


TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"  # f0 STRING, f1 INT
DV_TABLE = ROOT / "tests" / "tables" / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"


def first_line_of_refusal(capsys, *argv) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "", (code, out, err)
    return err.splitlines()[0]


@pytest.mark.parametrize("where, told", [
    ("f1 = = 20", "fileindex read: = twice: write one between the column and the value (f1 = VALUE)"),
    ("f1 == 20", "fileindex read: write = for equality, not =="),
    ("f1 > = 20", "fileindex read: write >= without a space"),
    ("f1 < > 20", "fileindex read: write <> without a space"),
    ("f1 = < 20", "fileindex read: two operators (= then <): write one between the column and the value (f1 = VALUE)"),
])
def test_two_operators_in_a_row_say_what_is_wrong(capsys, where, told):
    """``f1 = = 20`` was told "write = for equality, not ==", which it had not written."""
    assert first_line_of_refusal(capsys, "read", TABLE, "--where", where) == told


@pytest.mark.parametrize("where, told", [
    ("fo = 20", "unknown column 'fo' (did you mean f0? the schema has: f0, f1, f2, f3)"),
    ("F0 = 'a'", "unknown column 'F0' (did you mean f0? column names are case-sensitive)"),
    ("fx = 20", "unknown column 'fx' (the schema has: f0, f1, f2, f3)"),
])
def test_an_unknown_column_s_hint_ends_before_its_position(capsys, where, told):
    """"did you mean f0? at position 0:" read as a question about the position."""
    assert first_line_of_refusal(capsys, "read", TABLE, "--where", where) == f"fileindex read: {told}"


@pytest.mark.parametrize("where, told", [
    ("f1 = 'x'", "literal 'x' does not fit column f1 of type INT: write a whole number"),
    ("f1 = '20'", "literal '20' does not fit column f1 of type INT: write 20 without quotes"),
    ("f1 = 2.5", "literal 2.5 does not fit column f1 of type INT: write a whole number"),
    ("f3 = 'a'", "literal 'a' does not fit column f3 of type DOUBLE: write a number"),
])
def test_a_literal_that_is_no_number_on_a_numeric_column_says_write_a_number(capsys, where, told):
    assert first_line_of_refusal(capsys, "read", TABLE, "--where", where) == \
        f"fileindex read: {told}"


@pytest.mark.parametrize("order, meant", [("f1 DSC", "f1 DESC"), ("f1 DES", "f1 DESC"),
                                          ("f1 DSC NULS LAST", "f1 DESC NULLS LAST"), ("f1 DESCC", "f1 DESC")])
def test_an_abbreviated_direction_names_the_one_meant(capsys, order, meant):
    """``DSC`` is one edit from both ASC and DESC, so no direction was named; its letters are DESC's, in order."""
    assert first_line_of_refusal(capsys, "read", TABLE, "--order-by", order).endswith(f"(did you mean {meant}?)")


def test_an_output_inside_the_table_says_why_it_is_refused(capsys):
    told = first_line_of_refusal(capsys, "read", TABLE, "--output", TABLE / "rows.parquet")
    assert told == (f"fileindex read: --output {TABLE / 'rows.parquet'} lies inside the table {TABLE}: name a file "
                    "outside the table (a read never writes into a table's folder, which only Paimon's writers "
                    "change)")


def test_explain_without_where_says_every_row_matches(capsys):
    code, out, _ = run(capsys, "read", TABLE, "--explain")
    assert code == 0 and out.splitlines()[-1].endswith("read all rows  (no where: every row matches)")
    assert "no predicate" not in out


def test_count_as_json_is_an_object(capsys):
    """Every other --json output is an object (``spark scan --count --json`` too, with "count")."""
    assert run(capsys, "read", TABLE, "--count", "--json") == (0, '{"count": 8}\n', "")
    assert run(capsys, "read", TABLE, "--count", "--where", "f0 = 'Alice'", "--json")[1] == '{"count": 2}\n'
    assert run(capsys, "read", TABLE, "--count") == (0, "8\n", "")


def test_a_count_of_level_0_files_only_says_why_it_is_0(capsys):
    """Snapshot 1 holds one uncompacted file, which a batch scan (Java's) does not read: 0, and one line why."""
    note = ("fileindex read: 1 level-0 file (8 rows) not read: a batch scan of a primary-key table with deletion "
            "vectors reads only compacted files, as Java's does (--explain lists them)\n")
    assert run(capsys, "read", DV_TABLE, "--snapshot", "1", "--count") == (0, "0\n", note)
    code, out, err = run(capsys, "read", DV_TABLE, "--snapshot", "1", "--json")
    assert (code, out, err) == (0, "", note)
    code, out, err = run(capsys, "read", DV_TABLE, "--snapshot", "3", "--count")
    assert code == 0 and err == note.replace("8 rows", "2 rows")
    assert run(capsys, "read", TABLE, "--count")[2] == ""  # (no level stage: no note)


ENGINE = ROOT / "tests" / "vectors" / "java" / "multi__engine_layout.index"
SIDECAR = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap_no_embedding.db" / \
    "append_with_bitmap_no_embedding" / "bucket-0" / "data-783929b2-49d4-4006-a898-194a62e3278d-0.parquet.index"


def test_query_of_a_column_neither_the_index_nor_the_data_has_does_not_suggest_data(capsys):
    """The data file beside the index gave the types: --data would add nothing."""
    code, out, err = run(capsys, "query", SIDECAR, "--schema", "zz INT", "--where", "zz = 1")
    assert code == 2 and out == ""
    assert err.splitlines()[-1] == ("fileindex query: zz = 1: neither the index nor the data has a column zz; the "
                                    "index holds f0, f1, f2, the data has f0, f1, f2, f3")
    code, _, err = run(capsys, "query", ENGINE, "--schema", "zz INT", "--where", "zz = 1")
    assert code == 2 and err.rstrip().endswith("give the data it indexes (--data DATA_FILE or --table ROOT), which "
                                               "shows the column is real and not misspelt (--schema cannot)")


def test_the_lenient_note_of_a_misfit_ends_with_what_to_write(capsys):
    """The note of a body answered REMAIN under --lenient ended with the decoder's failure ("index block 0 names
    bytes that do not start a Roaring bitmap"); the error without --lenient ends with what to write too (the
    decoder's failure is the error's cause)."""
    sample = ROOT / "fileindex" / "samples" / "str_mixed__bitmap_v2.index"
    code, out, err = run(capsys, "query", sample, "--schema", "c INT", "--where", "c = 1", "--lenient")
    assert code == 0 and out == "c = 1  =>  REMAIN\n"
    assert err == (f"fileindex query: {sample}: answered REMAIN for a body built for another type: the schema does "
                   "not fit column 'c': it gives INT, which its bitmap index was not built for; its bytes decode as "
                   "STRING: write --schema \"c STRING\"\n")
    code, _, err = run(capsys, "query", sample, "--schema", "c INT", "--where", "c = 1")
    assert code == 2 and err.endswith("write --schema \"c STRING\"\n") and "(read as INT: " not in err


@pytest.mark.parametrize("argv, told", [
    (["--where", "f0 = 'Alice'", "--where", "f1 = 20"],
     "argument --where: given twice: give it once, the conditions joined by AND: --where \"A AND B\""),
    (["--select", "f0", "--select", "f1"],
     "argument --select: given twice: give it once, the columns separated by commas: --select a,b"),
    (["--limit", "1", "--limit", "2"], "argument --limit: given twice: give it once"),
])
def test_an_option_given_twice_is_refused(capsys, argv, told):
    """argparse kept the last: ``--where A --where B`` read B alone, and said nothing."""
    with pytest.raises(SystemExit) as exited:  # (argparse's own exit)
        main(["read", str(TABLE), *argv])
    out, err = capsys.readouterr()
    assert exited.value.code == 2 and out == "" and err.splitlines()[-1] == \
        f"fileindex read: error: {told} (see fileindex read --help)"


def test_order_by_two_columns_says_one_column(capsys):
    told = first_line_of_refusal(capsys, "read", TABLE, "--order-by", "f0, f1")
    assert told == "fileindex read: cannot order by 'f0, f1': rows are ordered by one column; give one, as 'f0'"


@pytest.mark.parametrize("where, told", [("f0 = 'Alice' && f1 = 20", "unexpected character '&' (write AND)"),
                                         ("f0 = 'Alice' || f1 = 20", "unexpected character '|' (write OR)")])
def test_c_style_and_or_say_the_word(capsys, where, told):
    assert first_line_of_refusal(capsys, "read", TABLE, "--where", where) == \
        f"fileindex read: {told}"


def test_like_says_it_is_not_in_the_syntax(capsys):
    assert first_line_of_refusal(capsys, "read", TABLE, "--where", "f0 like 'A%'") == (
        "fileindex read: LIKE is not in the predicate syntax: compare with =, <>, <, <=, >, >=, IN or BETWEEN")


@pytest.mark.parametrize("where, told", [("f1 = 1 AN f2 = 2", "unexpected 'AN' (did you mean AND?)"),
                                         ("f1 = 1 f2 = 2", "unexpected 'f2': join conditions with AND or OR"),
                                         ("f1 = 1)", "this ')' closes no '(': delete it, or write '(' "
                                                     "where the conditions it groups begin")])
def test_what_follows_a_condition_says_how_conditions_join(capsys, where, told):
    position = where.index(told.split("'")[1], 6)
    code, out, err = run(capsys, "read", TABLE, "--where", where)
    assert code == 2 and err.splitlines() == [f"fileindex read: {told}", f"  {where}", f"  {' ' * position}^ position "
                                                                                      f"{position}"]
