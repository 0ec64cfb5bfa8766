"""Ctrl-C (SIGINT) and SIGTERM end a command with one line, exit 130 and 143, and nothing half-written."""
import os
import signal
import subprocess
import sys

import pytest
from conftest import JAVA_VECTORS

from fileindex.cli.interrupts import run_interruptible


# The command line run with a hook that says on stderr when the command has got to the point the test wants
# (its readiness line), then goes on: the signal is sent once the line is read, never after a fixed wait.
WAITING_ON_STDIN = """
import io, sys
class Announced(io.RawIOBase):
    def readable(self):
        return True
    def readinto(self, buffer):
        print("reading stdin", file=sys.stderr, flush=True)
        return sys.__stdin__.buffer.raw.readinto(buffer)
sys.stdin = io.TextIOWrapper(io.BufferedReader(Announced()))
"""
IMPORTING = """
import sys, time
class Stalled:
    def find_spec(self, name, path=None, target=None):
        if name == "fileindex.cli.samples":  # the module of the command the line names
            print("importing", file=sys.stderr, flush=True)
            time.sleep(600)
        return None
sys.meta_path.insert(0, Stalled())
"""


def started(hook: str, argv: list[str], **popen) -> subprocess.Popen:
    script = f"{hook}\nfrom fileindex.cli import main\nraise SystemExit(main({argv!r}))\n"
    return subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True, **popen)


def signalled_at(command: subprocess.Popen, ready: str, signum: int) -> str:
    """Send ``signum`` once the command's stderr says ``ready``; what it writes on stderr after that."""
    assert command.stderr is not None
    line = command.stderr.readline()
    assert line == ready + "\n", line + command.communicate()[1]
    command.send_signal(signum)
    return command.communicate(timeout=60)[1]


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_command_waiting_on_its_input_ends_in_one_line(signum, code):
    command = started(WAITING_ON_STDIN, ["query", "-", "--schema", "id INT", "--where", "id = 5"],
                      stdin=subprocess.PIPE)
    err = signalled_at(command, "reading stdin", signum)  # its input never ends
    assert command.returncode == code and err == "fileindex: interrupted\n"


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_while_the_commands_load_ends_in_one_line(signum, code):
    """In the first second of a command its modules load: a Ctrl-C there is the same one line, not a traceback."""
    command = started(IMPORTING, ["samples"])
    err = signalled_at(command, "importing", signum)
    assert command.returncode == code and err == "fileindex: interrupted\n", err


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_write_leaves_nothing_behind(tmp_path, signum, code):
    import fileindex.io.atomic as atomic

    target = tmp_path / "out.index"

    def interrupted_before_the_rename(temporary):
        assert temporary.exists()
        signal.raise_signal(signum)

    def write():
        atomic.write_atomically(target, (JAVA_VECTORS / "multi__engine_layout.index").read_bytes(),
                                before_rename=interrupted_before_the_rename)
        return 0

    previous = {n: signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM)}
    try:
        assert run_interruptible(write) == code
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    assert list(tmp_path.iterdir()) == []


def test_an_error_without_a_signal_is_not_called_an_interrupt():
    def fails():
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError):
        run_interruptible(fails)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


# A command that writes into a scratch folder through a process it started, which ignores SIGINT (as PySpark's JVM
# and its Python workers do) and goes on writing until it is ended: the folder is removed only then.
WRITER = """
import itertools, os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
for number in itertools.count():
    with open(os.path.join(sys.argv[1], f"part-{number}"), "w") as part:
        part.write("x")
    if number == 100:
        print("writing", file=sys.stderr, flush=True)
"""
SCRATCH_WRITTEN_BY_A_CHILD = f"""
import subprocess, sys, tempfile
from fileindex.cli.interrupts import run_interruptible
from fileindex.ending import remove_folder

def command():
    scratch = tempfile.mkdtemp(prefix="fileindex-demo-")
    try:
        subprocess.Popen([sys.executable, "-c", {WRITER!r}, scratch]).wait()
    finally:
        remove_folder(scratch)
    return 0

raise SystemExit(run_interruptible(command, end_started=True))
"""


def test_ctrl_c_removes_a_scratch_folder_once_the_processes_writing_into_it_have_ended(tmp_path):
    """The demo's scratch folder, filled by Spark's workers: removed at once, it refilled while it was removed
    (exit 2, "Directory not empty", the folder left behind)."""
    command = subprocess.Popen([sys.executable, "-c", SCRATCH_WRITTEN_BY_A_CHILD], stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "TMPDIR": str(tmp_path)})
    err = signalled_at(command, "writing", signal.SIGINT)
    assert command.returncode == 130 and err == "fileindex: interrupted\n", err
    assert list(tmp_path.iterdir()) == []


def test_an_interrupt_a_command_turned_into_an_error_still_ends_it_as_interrupted():
    """A command that reports the interrupt's echo as a failure of its own (the demo's cleanup raised an OSError,
    reported as exit 2) still exits 130."""
    def reports_it():
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            return 2
        return 0

    previous = {n: signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM)}
    try:
        assert run_interruptible(reports_it) == 130
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
