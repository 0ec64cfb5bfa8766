"""What a new user met reading a table (issue #58): a limit past what Arrow can slice is all the rows, not an
OverflowError; ``columns="id,name"`` suggests the list it meant; progress never leaves a half line with a
stale count in a log: on a terminal a line redrawn in place, elsewhere nothing unless --progress asks for
whole lines."""
import io
import itertools

import pytest
from conftest import ROOT

from fileindex import PaimonTable
from fileindex.cli import main
from fileindex.cli import read as read_command
from fileindex.errors import UsageError

TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"
HUGE = 99999999999999999999  # past a signed 64-bit count


def test_a_limit_past_64_bits_reads_every_row(capsys):
    assert main(["read", str(TABLE), "--limit", str(HUGE), "--json"]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 8 and "Traceback" not in err
    scan = PaimonTable(TABLE).scan(limit=HUGE)
    assert scan.to_arrow().num_rows == len(scan.to_pandas()) == scan.to_polars().collect().height == 8
    assert sum(batch.num_rows for batch in scan.to_batches()) == 8


def test_columns_given_as_one_string_suggest_the_list_meant():
    with pytest.raises(UsageError, match=r"columns='f0, f3': give a list of column names, e\.g\. \['f0', 'f3'\]"):
        PaimonTable(TABLE).scan(columns="f0, f3")


@pytest.fixture
def slow_clock(monkeypatch):
    """Two seconds pass between any two looks at the clock: every batch read is due a progress line."""
    clock = itertools.count(0, 2)
    monkeypatch.setattr(read_command.time, "perf_counter", lambda: next(clock))


def test_off_a_terminal_progress_is_shown_only_when_asked_and_as_whole_lines(slow_clock, capsys):
    assert main(["read", str(TABLE), "--json"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["read", str(TABLE), "--json", "--progress"]) == 0
    lines = capsys.readouterr().err.splitlines(keepends=True)
    assert lines[:2] == ["fileindex read: planning the read of snapshot 1\n",
                         f"fileindex read: 1 of 1 data files to read (8 rows before the exact filter), planned in "
                         f"{lines[1].rsplit(' in ', 1)[1]}"]
    assert lines[2:] and all(line.startswith("fileindex read: ") and line.endswith(" rows read\n")
                             for line in lines[2:])
    assert "\r" not in "".join(lines)
    assert main(["read", str(TABLE), "--explain", "--progress"]) == 2
    assert "--explain reads no rows" in capsys.readouterr().err


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_progress_is_one_line_redrawn_and_ended(slow_clock):
    stream = Terminal()
    progress = read_command.Progress(stream=stream)
    for rows in (8, 8, 8):
        progress.add(rows)
    progress.done()
    assert stream.getvalue() == ("\rfileindex read: 8 rows read\033[K\rfileindex read: 16 rows read\033[K"
                                 "\rfileindex read: 24 rows read\033[K\n")


def test_one_row_read_is_said_in_the_singular(slow_clock):
    stream = io.StringIO()
    progress = read_command.Progress(off_terminal=True, stream=stream)
    progress.add(1)
    assert stream.getvalue() == "fileindex read: 1 row read\n"
