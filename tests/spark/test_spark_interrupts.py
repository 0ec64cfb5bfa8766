"""Ctrl-C (or SIGTERM) of a Spark command: one line, exit 130 (143), no py4j tracebacks (about 107 lines
before), and nothing of the command left running: neither the JVM (PySpark starts it ignoring SIGINT; one
interrupted while it started stayed for half an hour, holding the command's stdout) nor its Python workers
(a process group of their own, in the command's session). No JVM warning about incubator modules either."""
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import ROOT

TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"


def running_in_session(session: int) -> list[str]:
    """The command lines of the processes of a session that have not ended (zombies have)."""
    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()  # state, ppid, pgrp, session, ...
            with open(f"/proc/{name}/cmdline", "rb") as cmdline:
                command = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError):
            continue
        if name.isdigit() and int(fields[3]) == session and fields[0] != b"Z":
            found.append(command)
    return found


def started(*argv: str) -> subprocess.Popen:
    """A Spark command in a session of its own, as a terminal's job would be (Ctrl-C reaches its process group)."""
    return subprocess.Popen([sys.executable, "-m", "fileindex", "spark", *argv, "--master", "local[1]"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def ended(command: subprocess.Popen, signum: int) -> tuple[list[str], list[str]]:
    """Send ``signum`` to the command's process group (as a terminal does); its stderr after that, and what of
    its session still runs once it has exited."""
    os.killpg(command.pid, signum)
    _, rest = command.communicate(timeout=300)
    return rest.splitlines(), running_in_session(command.pid)


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_of_a_spark_job_is_one_line_and_leaves_no_process(signum, code):
    command = started("verify", str(TABLE))
    assert command.stderr is not None
    before = []
    for line in command.stderr:  # the job's first progress line: the session is up and the job running
        before.append(line)
        if " files, " in line:
            break
    assert running_in_session(command.pid)  # the JVM at least
    after, left = ended(command, signum)
    assert command.returncode == code, before + after
    assert after == ["fileindex: interrupted"], after
    assert left == []
    assert not any("incubator" in line for line in before), before


def test_ctrl_c_while_the_jvm_starts_leaves_no_process():
    """Before the JVM has connected to Python it never learns that Python has gone: it is ended all the same."""
    command = started("verify", str(TABLE))
    # (a process between fork and exec, or ending, has an empty command line)
    while not any(line.partition(" ")[0].endswith("/java") and "SparkSubmit" in line
                  for line in running_in_session(command.pid)):
        assert command.poll() is None, command.communicate()
        time.sleep(0.05)  # (a look at the process table every 50 ms until the JVM has started)
    after, left = ended(command, signal.SIGINT)
    assert command.returncode == 130 and after == ["fileindex: interrupted"], after
    assert left == []


SESSION_BEING_MADE = """
import sys, time
from pyspark.sql import SparkSession
made = SparkSession.__init__
def announced(self, *args, **kwargs):  # the SparkContext is up: the window where its own SIGINT handler was
    print("making the session", file=sys.stderr, flush=True)
    time.sleep(600)
    return made(self, *args, **kwargs)
SparkSession.__init__ = announced
from fileindex.cli import main
raise SystemExit(main(["spark", "verify", sys.argv[1], "--master", "local[1]"]))
"""


def test_ctrl_c_while_the_session_is_made_is_one_line():
    """PySpark's SparkContext installs a SIGINT handler of its own (cancel the jobs through py4j, then a bare
    KeyboardInterrupt): it never replaces the command line's, even while the session is being made."""
    command = subprocess.Popen([sys.executable, "-c", SESSION_BEING_MADE, str(TABLE)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert command.stderr is not None
    for line in command.stderr:
        if line == "making the session\n":
            break
    after, left = ended(command, signal.SIGINT)
    assert command.returncode == 130 and after == ["fileindex: interrupted"], after
    assert left == []
