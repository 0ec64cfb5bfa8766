"""Rough edges left by the fifth trial: timestamps shown as their Paimon precision says, messages that say what is
wrong, the count's note and JSON form, and what a new user's wrong inputs are told."""
import json

import pyarrow as pa
import pytest
from conftest import ROOT
from test_third_trial import run

from fileindex.arrow.compute import python_rows
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
