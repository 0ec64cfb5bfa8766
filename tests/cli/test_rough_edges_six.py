"""Rough edges a new user met (the sixth round): an offset written wrong is named as the offset; a value missing
after an operator is named; the hint after AND reads as a sentence; ``--count --explain`` of a failing merge prints
only the error; the funnel says in words how each file is counted."""
import json
import re

import pytest
from conftest import ROOT

from fileindex.cli import main
from fileindex.errors import UsageError
from fileindex.predicate.parser import parse_predicate
from fileindex.types import parse_type

TABLES = ROOT / "tests" / "tables"
RETRACT = TABLES / "primary-keys" / "aggregation_retract"
BSI_BITMAP = TABLES / "parquet" / "append_with_bsi_bitmap_bloomfilter.db" / "append_with_bsi_bitmap_bloomfilter"
PK_DV = TABLES / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"
EVOLUTION = TABLES / "parquet" / "data_evolution_with_index.db" / "data_evolution_with_index"
SCHEMA = {"f1": parse_type("INT"), "s": parse_type("STRING"), "ts": parse_type("TIMESTAMP(3) WITH LOCAL TIME ZONE"),
          "d": parse_type("DATE")}


def refusal(where: str) -> str:
    with pytest.raises(UsageError) as refused:
        parse_predicate(where, SCHEMA)
    return str(refused.value).splitlines()[0]


@pytest.mark.parametrize("written, offset, meant", [
    ("2024-01-01 00:00:02.001+00", "+00", "'2024-01-01 00:00:02.001+00:00'"),
    ("2024-01-01 00:00:02-5", "-5", "'2024-01-01 00:00:02-05:00'"),
    ("2024-01-01T00:00:02+5:30", "+5:30", "'2024-01-01 00:00:02+05:30'"),
])
def test_an_offset_written_short_is_named_with_what_to_write(written, offset, meant):
    said = refusal(f"ts = TIMESTAMP '{written}'")
    assert f"the offset {offset} is written short: write +HH:MM (two digits each) or Z, as {meant}" in said
    assert "fraction" not in said


@pytest.mark.parametrize("zone", ["UTC", "GMT", "Europe/Paris"])
def test_a_zone_s_name_is_no_offset_and_says_to_write_one(zone):
    said = refusal(f"ts = '2024-01-01 00:00:02.001 {zone}'")
    assert f"{zone} is not an offset" in said and "'2024-01-01 00:00:02.001+00:00'" in said
    assert "'2024-01-01 00:00:02.001Z'" in said and "fraction" not in said


@pytest.mark.parametrize("offset", ["+25:00", "-18:30", "+18:01", "+05:60"])
def test_an_offset_out_of_range_says_the_range(offset):
    said = refusal(f"ts = '2024-01-01 00:00:02{offset}'")
    assert f"the offset {offset} is out of range: an offset runs from -18:00 to +18:00" in said
    assert "is not one" not in said


@pytest.mark.parametrize("offset", ["+5:30", " UTC", "+25:00", "+05:30", "Z"])
def test_any_offset_on_a_timestamp_column_says_to_leave_it_out(offset):
    """A TIMESTAMP column has no time zone: a misspelt offset is not corrected to one it refuses next."""
    with pytest.raises(UsageError) as refused:
        parse_predicate(f"t = '2024-01-01 00:00:02{offset}'", {"t": parse_type("TIMESTAMP(3)")})
    said = str(refused.value).splitlines()[0]
    assert "a TIMESTAMP column has no time zone; write its wall-clock time without the offset, TIMESTAMP " \
           "'2024-01-01 00:00:02'" in said, said
    assert "write +HH:MM" not in said and "out of range" not in said


@pytest.mark.parametrize("number", ["1.2.3", "1e", "1e5x", "12.5.0"])
def test_a_number_written_wrong_is_named_as_one(number):
    said = refusal(f"f1 = {number} AND f1 = 2")
    assert said.startswith(f"{number!r} is not a number: write digits with at most one '.'"), said
    assert "join conditions" not in said


def test_the_extreme_offsets_are_read():
    east = parse_predicate("ts = '2024-01-01 18:00:00+18:00'", SCHEMA).literals[0]
    west = parse_predicate("ts = '2023-12-31 06:00:00-18:00'", SCHEMA).literals[0]
    assert east == west == parse_predicate("ts = '2024-01-01 00:00:00Z'", SCHEMA).literals[0]


@pytest.mark.parametrize("operator", ["=", "<>", "!=", "<", "<=", ">", ">="])
@pytest.mark.parametrize("after", ["", " AND s = 'a'", " OR s = 'a'", ")"])
def test_a_value_missing_after_an_operator_is_named(operator, after):
    where = f"f1 {operator}{after}" if after != ")" else f"(f1 {operator})"
    with pytest.raises(UsageError) as refused:
        parse_predicate(where, SCHEMA)
    said, _, caret = str(refused.value).splitlines()
    start = where.index(operator)
    assert said == f"a value is missing after {operator}: write one, as f1 {operator} 5, after the {operator}"
    assert caret == f"  {' ' * start}^ position {start}"


@pytest.mark.parametrize("where, said", [
    ("f1 IN", "a list is missing after IN: write one, as f1 IN (5, ...), after the IN"),
    ("f1 NOT IN", "a list is missing after NOT IN: write one, as f1 NOT IN (5, ...), after the IN"),
    ("f1 IN (", "a value is missing after '(': write one, as f1 IN (5, ...), after the '('"),
    ("f1 IN (1,", "a value is missing after ',': write one, as f1 IN (5, ...), after the ','"),
    ("f1 IN (1, )", "a value is missing after ',': write one, as f1 IN (5, ...), after the ','"),
    ("f1 IN (1", "the IN list is not closed: write ')' after its last value"),
    ("f1 BETWEEN", "a value is missing after BETWEEN: write one, as f1 BETWEEN LOW AND HIGH, after the BETWEEN"),
    ("f1 BETWEEN AND 3", "a value is missing after BETWEEN: write one, as f1 BETWEEN LOW AND HIGH, after the BETWEEN"),
    ("f1 BETWEEN 1", "AND and a high value are missing: write f1 BETWEEN LOW AND HIGH, with AND after the low value"),
    ("f1 NOT BETWEEN 1 AND", "a value is missing after AND: write one, as f1 NOT BETWEEN LOW AND HIGH, after the AND"),
    ("f1 IS", "NULL is missing: write f1 IS NULL or f1 IS NOT NULL, with NULL after the IS"),
    ("f1 IS NOT", "NULL is missing: write f1 IS NULL or f1 IS NOT NULL, with NULL after the NOT"),
    ("f1 = -", "a number is missing after '-': write one after the '-'"),
    ("s LIKE", "LIKE is not in the predicate syntax: compare with =, <>, <, <=, >, >=, IN or BETWEEN"),
    ("s =", "a value is missing after =: write one, as s = 'text', after the ="),
    ("d >", "a value is missing after >: write one, as d > DATE '2024-01-31', after the >"),
])
def test_a_value_missing_in_in_between_or_is_is_named(where, said):
    assert refusal(where) == said
    assert "unexpected end" not in said


@pytest.mark.parametrize("where, said", [
    ("f1 = 2 AND", "a condition is missing after AND: write one there (as column = value), or delete the AND"),
    ("NOT", "a condition is missing after NOT: write one there (as column = value), or delete the NOT"),
    ("f1 = 2 AND (", "a condition is missing after '(': write one (as column = value) inside the parentheses that "
                     "open"),
])
def test_the_hint_for_a_missing_condition_reads_as_a_sentence(where, said):
    assert refusal(where) == said


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_count_with_explain_of_a_failing_merge_prints_only_the_error(capsys, extra):
    code, out, err = run(capsys, "read", RETRACT, "--snapshot", 2, "--count")
    assert code == 3 and out == ""
    code, explained_out, explained_err = run(capsys, "read", RETRACT, "--snapshot", 2, "--count", "--explain", *extra)
    assert (code, explained_out, explained_err) == (3, "", err)
    code, out, _ = run(capsys, "read", RETRACT, "--snapshot", 2, "--explain", *extra)
    assert code == 0 and out  # (the funnel alone reads no row: no merge to fail; it says so on stderr)


def test_the_funnel_says_in_words_how_each_file_is_counted(capsys):
    code, out, err = run(capsys, "read", BSI_BITMAP, "--where", "f3 = 11.1", "--count", "--explain")
    assert code == 0, err
    assert "the count: by reading column f3" in out and "answered by" not in out
    assert "(kept: its index cannot rule the file out)" in out and "REMAIN" not in out
    code, out, err = run(capsys, "read", PK_DV, "--where", "f0 = 'Bob'", "--count", "--explain")
    assert code == 0, err
    assert out.splitlines()[1] == "  pruning stages, each with the files and rows before -> after it:"
    assert "\n  file index " in out and "\n  deletion vectors " in out and "\n  level 0 " in out
    kept = [line for line in out.splitlines() if "index=" in line and "skipped by" not in line]
    assert kept and all(re.search(r"read (\d+) of \d+ rows .*the count: its \1 rows?, known from its index "
                                  r"\(no row read\)$", line) for line in kept), out
    code, out, err = run(capsys, "read", TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap", "--where",
                         "f0 = 'Zed'", "--count", "--explain")
    ruled_out = [line for line in out.splitlines() if "skipped by file index" in line]
    assert ruled_out and all(line.endswith("the count: 0 rows, known from its index") for line in ruled_out), out
    code, out, err = run(capsys, "read", BSI_BITMAP, "--count", "--explain")
    assert "the count: its 8 rows, known from the table's metadata (no row read)" in out
    code, out, err = run(capsys, "read", EVOLUTION, "--where", "f0 = 'Bob'", "--explain")
    assert "(no index of its group of files rules it out)" in out and "group of files kept" not in out
    code, out, err = run(capsys, "read", BSI_BITMAP, "--where", "f3 = 11.1", "--count", "--explain", "--json")
    assert json.loads(out)["files"][0]["answered_by"] == "read"  # (the JSON keeps its keys)
