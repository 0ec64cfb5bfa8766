"""``spark build`` and ``spark verify`` end their jobs' progress before printing their results: on a terminal or a
pipe where stdout and stderr meet, the last progress line comes before the summary, not after it (found by a
new-user trial)."""
import io
import re

import pytest

from generated_data import OPTIONS, write_dataset

from fileindex.cli import main
from fileindex.spark import progress


def _interleaved(monkeypatch, argv: list[str]) -> list[str]:
    """The lines the command writes to stdout and stderr, in the order written. The progress watcher never
    looks on its own (a tick of a minute): what is shown of the jobs is what the command's ending shows."""
    both = io.StringIO()
    monkeypatch.setattr(progress, "TICK", 60.0)
    monkeypatch.setattr("sys.stdout", both)
    monkeypatch.setattr("sys.stderr", both)
    code = main(argv)
    monkeypatch.undo()
    assert code == 0, both.getvalue()
    return [line for line in both.getvalue().splitlines() if line.startswith("fileindex spark") or "files" in line]


def test_build_and_verify_print_their_last_progress_line_before_their_summary(spark, tmp_path, monkeypatch):
    data = tmp_path / "data"
    write_dataset(data, files=2, with_indexes=False)
    options = [f"--option={k}={v}" for k, v in OPTIONS.items()]
    lines = _interleaved(monkeypatch, ["spark", "build", str(data), *options, "--output-dir", str(tmp_path / "ix"),
                                       "--master", "local[2,2]"])
    done = [i for i, line in enumerate(lines) if re.match(r"fileindex spark build: 2/2 files, [\d,]+ rows", line)]
    summary = [i for i, line in enumerate(lines) if re.match(r"2 files: 2 written, 0 kept, 0 failed", line)]
    assert len(done) == 1 and len(summary) == 1 and done[0] < summary[0], lines

    lines = _interleaved(monkeypatch, ["spark", "verify", str(data), "--index-dir", str(tmp_path / "ix"),
                                       "--master", "local[2,2]"])
    done = [i for i, line in enumerate(lines) if re.match(r"fileindex spark verify: 2/2 files, [\d,]+ rows", line)]
    assert len(done) == 1 and done[0] == max(i for i, line in enumerate(lines)
                                             if line.startswith("fileindex spark verify: ")), lines
    assert done[0] < len(lines) - 1, lines  # the summary's lines follow it


class Counter:
    """A Spark accumulator's stand-in: the counts a job's tasks added."""

    value = 0


@pytest.fixture
def counters(monkeypatch) -> tuple[Counter, Counter]:
    """(files, rows) of one application, which the progress watcher never looks at on its own (a tick of a minute)."""
    files, rows = Counter(), Counter()
    monkeypatch.setattr(progress, "_counters", {"app": (files, rows)})
    monkeypatch.setattr(progress, "TICK", 60.0)
    return files, rows


def test_finish_ends_the_progress_once_and_outside_a_block_does_nothing(counters):
    files, rows = counters
    stream = io.StringIO()
    progress.finish()  # (no block open)
    with progress.reporting("spark build", stream):
        progress.planned(2)
        files.value, rows.value = 2, 800
        progress.finish()
        stream.write("summary\n")
    assert re.fullmatch(r"fileindex spark build: 2/2 files, 800 rows, [\d,]+ rows/s, \d+ s\nsummary\n",
                        stream.getvalue())


def test_a_warm_up_is_shown_as_such_and_not_counted_in_the_timed_pass(counters):
    """``spark scan --compare`` runs each scan once untimed first: its files were added to the timed pass's
    (``4/4 files`` for a table of two), under the same label (trial14)."""
    files, rows = counters
    stream = io.StringIO()
    with progress.reporting("spark scan", stream):
        progress.restart(" (warm-up, untimed)")
        progress.planned(2)
        files.value, rows.value = 2, 800
        progress.restart()
        progress.planned(2)
        files.value, rows.value = 4, 1600
        progress.finish()
    assert re.fullmatch(r"fileindex spark scan \(warm-up, untimed\): 2/2 files, 800 rows, [\d,]+ rows/s, \d+ s\n"
                        r"fileindex spark scan: 2/2 files, 800 rows, [\d,]+ rows/s, \d+ s\n", stream.getvalue())
