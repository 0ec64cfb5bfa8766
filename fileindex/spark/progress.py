"""Progress of the pipeline's Spark jobs on stderr: files done of files planned, rows, rows per second.

Every per-file job counts, in two accumulators of its Spark application, the files its tasks finished
and their rows; Spark sends a task's counts to the driver when the task ends, so the figures move a
task (a group of files) at a time. ``reporting`` shows them while a command runs (``finish`` ends them before
the command prints its results): a live line on a
terminal (ended when every planned file is done, so that what the command prints next starts a
line), or on a pipe a line when a job starts, when files finish (at most one a second), every few seconds while
none does, and when every planned file is done.
A retried task counts its files again; the figures never pass the files planned.
"""
from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager
from typing import Any

PIPE_INTERVAL = 5.0  # seconds between lines on a pipe while no file finishes
PIPE_GAP = 1.0  # at least this many seconds between lines on a pipe when files finish
TICK = 0.5  # seconds between looks at the counters (a terminal's line is redrawn when they change)

_counters: dict[str, tuple] = {}  # Spark application id -> (files accumulator, rows accumulator)
_planned = 0  # files handed to per-file jobs in this process


def counters(spark) -> tuple:
    """The (files, rows) accumulators of the session's application, for a job's tasks to add to."""
    context = spark.sparkContext
    if context.applicationId not in _counters:
        _counters[context.applicationId] = (context.accumulator(0), context.accumulator(0))
    return _counters[context.applicationId]


def planned(files: int) -> None:
    global _planned
    _planned += files


def _totals() -> tuple[int, int]:
    files = sum(pair[0].value for pair in _counters.values())
    rows = sum(pair[1].value for pair in _counters.values())
    return files, rows


def line(label: str, done: int, planned_files: int, rows: int, seconds: float) -> str:
    rate = rows / seconds if seconds > 0 else 0.0
    return (f"fileindex {label}: {min(done, planned_files)}/{planned_files} files, {rows:,} rows, "
            f"{rate:,.0f} rows/s, {seconds:.0f} s")


@contextmanager
def reporting(label: str, stream=None):
    """Show the progress of the per-file jobs run inside the block (on stderr by default)."""
    stream = stream or sys.stderr
    terminal = stream.isatty() if hasattr(stream, "isatty") else False
    stop = threading.Event()
    looking = threading.Lock()  # (the watcher's looks and a restart's, one at a time)
    state: dict[str, Any] = {"shown": None, "last": None, "width": 0, "started": None, "label": label}

    def count_from_now() -> None:
        state["base"] = (*_totals(), _planned)
        state["shown"] = state["started"] = None

    count_from_now()

    def show(text: str) -> None:
        if terminal:
            stream.write("\r" + text.ljust(state["width"]))
            state["width"] = len(text)
        else:
            stream.write(text + "\n")
        stream.flush()

    def look(final: bool = False) -> None:
        files, rows = _totals()
        start_files, start_rows, start_planned = state["base"]
        done, rows, plan = files - start_files, rows - start_rows, _planned - start_planned
        if plan == 0:
            return
        now = time.monotonic()
        if state["started"] is None:
            state["started"] = now
        text = line(state["label"], done, plan, rows, now - state["started"])
        figures = (done, plan, rows)
        changed = figures != state["shown"]
        finished = done >= plan
        since = None if state["last"] is None else now - state["last"]
        more_done = state["shown"] is not None and done != state["shown"][0]
        due = since is None or since >= PIPE_INTERVAL or (finished and changed) or (more_done and since >= PIPE_GAP)
        redraw = changed or (final and state["width"])
        if (terminal and redraw) or (not terminal and due and (changed or not finished)):
            show(text)
            state["shown"], state["last"] = figures, now
            if terminal and finished and state["width"]:  # what the command prints next starts a line
                stream.write("\n")
                state["width"] = 0

    def watch() -> None:
        while not stop.wait(TICK):
            try:
                with looking:
                    look()
            except Exception:  # the counters of a stopped session: nothing more to show
                return

    def end(failed: bool) -> None:
        if stop.is_set():
            return
        stop.set()
        watcher.join()
        try:
            if not failed:  # a failure is the command's one line, not figures of a job cut short
                look(final=True)
        except Exception:
            pass
        if terminal and state["width"]:
            stream.write("\n")
            state["width"] = 0
        stream.flush()

    watcher = threading.Thread(target=watch, name="fileindex-progress", daemon=True)
    watcher.start()

    def restart(aside: str) -> None:
        if stop.is_set():
            return
        with looking:
            look(final=True)
            if terminal and state["width"]:
                stream.write("\n")
                state["width"] = 0
            count_from_now()
            state["label"] = label + aside

    blocks.append((end, restart))
    failed = True
    try:
        yield
        failed = False
    finally:
        blocks.remove((end, restart))
        end(failed)


blocks: list = []  # per ``reporting`` block open, innermost last: how to end its progress, how to restart it


def finish() -> None:
    """End the innermost ``reporting`` block's progress now: its last line shown (a terminal's ended), so that
    what the command prints next (its summary) comes after it, not before. Nothing outside such a block."""
    if blocks:
        blocks[-1][0](False)


def restart(aside: str = "") -> None:
    """Count the innermost ``reporting`` block's files and rows from now (its line so far ended), its label
    followed by ``aside``: a warm-up's untimed pass over the same files is shown as such, and not added to the
    timed pass after it."""
    if blocks:
        blocks[-1][1](aside)
