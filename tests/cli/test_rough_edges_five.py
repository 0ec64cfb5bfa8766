"""Rough edges a new user met (the fifth round): what ``read`` prints can be pasted back into ``--where`` and is
what ``--output x.csv`` writes; ``--count --explain`` prints both; argparse's errors are one line with a hint;
messages name what is missing."""
import csv
import json

import pytest
from conftest import ROOT

from fileindex.cli import main
from fileindex.errors import UsageError
from fileindex.predicate.parser import parse_predicate
from fileindex.types import parse_type

STAMPS = ROOT / "tests" / "tables" / "orc" / "timestamp_index.db" / "timestamp_index"
AGGREGATION = ROOT / "tests" / "tables" / "primary-keys" / "aggregation"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def printed_rows(capsys, *argv) -> list[dict]:
    code, out, err = run(capsys, "read", *argv, "--json")
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("column", ["ts_tz_sec", "ts_tz_milli", "ts_tz_micro", "ts_tz_nano", "ts_sec", "ts_nano"])
def test_a_printed_timestamp_pasted_into_where_finds_its_row(capsys, column):
    rows = printed_rows(capsys, STAMPS, "--select", column)
    for value in {row[column] for row in rows[:5]}:
        for literal in (f"TIMESTAMP '{value}'", f"'{value}'"):
            found = printed_rows(capsys, STAMPS, "--select", column, "--where", f"{column} = {literal}")
            assert found == [row for row in rows if row[column] == value], literal


def test_an_offset_is_an_instant_for_a_local_time_zone_column(capsys):
    utc = printed_rows(capsys, STAMPS, "--where", "ts_tz_milli = TIMESTAMP '2025-04-24 17:00:02.001+00:00'")
    assert utc and printed_rows(capsys, STAMPS, "--where",
                                "ts_tz_milli = TIMESTAMP '2025-04-25 01:00:02.001+08:00'") == utc
    assert printed_rows(capsys, STAMPS, "--where", "ts_tz_milli = TIMESTAMP '2025-04-24T17:00:02.001Z'") == utc
    assert printed_rows(capsys, STAMPS, "--where", "ts_tz_milli = TIMESTAMP '2025-04-24 12:00:02.001-05:00'") == utc


def test_an_offset_on_a_timestamp_without_time_zone_says_what_to_write(capsys):
    code, _, err = run(capsys, "read", STAMPS, "--where", "ts_milli = TIMESTAMP '2025-04-25 01:00:02.001+00:00'")
    assert code == 2
    assert "has no time zone" in err and "TIMESTAMP '2025-04-25 01:00:02.001'" in err and "fraction" not in err
    code, _, err = run(capsys, "read", STAMPS, "--where", "ts_tz_milli = TIMESTAMP '2025-04-24 17:00:02+19:00'")
    assert code == 2 and "offset +19:00" in err


def test_a_csv_output_holds_timestamps_as_read_prints_them(capsys, tmp_path):
    output = tmp_path / "rows.csv"
    code, _, err = run(capsys, "read", STAMPS, "--limit", 5, "--output", output)
    assert code == 0, err
    with open(output, newline="") as f:
        written = list(csv.DictReader(f))
    assert written == printed_rows(capsys, STAMPS, "--limit", 5)


def test_count_with_explain_prints_the_funnel_then_the_count(capsys):
    code, out, err = run(capsys, "read", AGGREGATION, "--where", "id > 2", "--count")
    assert code == 0, err
    count = int(out)
    code, out, err = run(capsys, "read", AGGREGATION, "--where", "id > 2", "--count", "--explain")
    assert code == 0, err
    assert "the count: " in out and out.splitlines()[-1] == f"count: {count}"
    code, out, err = run(capsys, "read", AGGREGATION, "--where", "id > 2", "--count", "--explain", "--json")
    explained = json.loads(out)
    assert code == 0 and explained["count"] == count and explained["files"][0]["answered_by"]


@pytest.mark.parametrize("argv, hint", [
    (["read", AGGREGATION, "--where", "id = 1", "--where", "id = 2"], "see fileindex read --help"),
    (["read", AGGREGATION, "--limit", "-1"], "see fileindex read --help"),
    (["read", AGGREGATION, "--limit", "abc"], "see fileindex read --help"),
    (["read", AGGREGATION, "--snapshot", "abc"], "see fileindex read --help"),
    (["read", AGGREGATION, "--selct", "id"], "did you mean --select?"),
    (["table", AGGREGATION, "--snapshot", "x"], "see fileindex table --help"),
    (["spark", "scan", AGGREGATION, "--limit", "x"], "see fileindex spark scan --help"),
    (["reed", AGGREGATION], "did you mean read?"),
])
def test_a_command_line_argparse_refuses_is_one_line_with_a_hint(capsys, argv, hint):
    with pytest.raises(SystemExit) as exited:
        main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert exited.value.code == 2
    command = " ".join(argv[:2] if argv[0] == "spark" else argv[:1]) if argv[0] != "reed" else ""
    assert err.startswith(f"fileindex{' ' + command if command else ''}: error: ")
    assert len(err.splitlines()) == 1 and err.rstrip().endswith(f"({hint})")


@pytest.mark.parametrize("where, after, position", [  # (the position of the word the condition is missing after)
    ("id = 2 AND", "AND", 7), ("id = 2 or", "OR", 7), ("(id = 2 OR)", "OR", 8), ("NOT", "NOT", 0),
    ("id = 2 AND NOT ", "NOT", 11), ("id = 2 AND (", "'('", 11), ("()", "'('", 0),
])
def test_a_condition_missing_after_and_or_not_is_named(where, after, position):
    with pytest.raises(UsageError) as refused:
        parse_predicate(where, {"id": parse_type("INT")})
    assert str(refused.value).startswith(f"a condition is missing after {after}: write one")
    assert str(refused.value).splitlines()[2] == f"  {' ' * position}^ position {position}"


def test_to_pandas_without_pandas_names_pandas_and_its_install_command(monkeypatch):
    import importlib.util

    from fileindex import PaimonTable

    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pandas" else found(name, *a))
    with pytest.raises(UsageError) as refused:
        PaimonTable(AGGREGATION).scan().to_pandas()
    message = str(refused.value)
    assert message.startswith("this needs pandas, which is not installed: pip install 'pandas")
    assert "pyspark" not in message


def test_the_demo_s_last_line_counts_from_the_command_s_start_and_says_what_spark_s_start_took(monkeypatch, capsys):
    import argparse

    import fileindex.cli.demo as demo
    import fileindex.spark.demo as pipeline

    clock = iter([100.0, 125.0, 170.0])  # the command starts; Spark is up; the demo ends
    monkeypatch.setattr(demo.time, "perf_counter", lambda: next(clock, 170.0))
    monkeypatch.setattr(demo, "session", lambda args: object())
    figures = {"seconds": 44.0, "verify": {"violations": 0}, "scans": [{"identical": True}]}
    monkeypatch.setattr(pipeline, "run_demo", lambda spark, spec, folder, say: dict(figures))
    args = argparse.Namespace(files=3, rows=1000, workdir=None, overwrite=False, json=False, master=None,
                              conf=[])
    assert demo._run(args) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("done in 70 s from the command's start (25 s starting Spark, 44 s the pipeline): "
                           "0 violations")


def test_spark_scan_count_notes_level_0_files_not_read_as_read_count_does(capsys):
    """Every file is answered by the metadata (the level-0 file is not read): no Spark session starts."""
    table = ROOT / "tests" / "tables" / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"
    code, out, err = run(capsys, "read", table, "--snapshot", 1, "--where", "f1 > 0", "--count")
    assert (code, out) == (0, "0\n") and err.startswith("fileindex read: 1 level-0 file (8 rows) not read")
    assert run(capsys, "spark", "scan", table, "--snapshot", 1, "--where", "f1 > 0", "--count") == \
        (0, "0\n", err.replace("fileindex read:", "fileindex spark scan:"))
