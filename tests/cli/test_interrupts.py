"""Ctrl-C (SIGINT) and SIGTERM end a command with one line, exit 130 and 143, and nothing half-written."""
import signal
import subprocess
import sys
import time

import pytest
from conftest import JAVA_VECTORS

from fileindex.cli.interrupts import run_interruptible


def started(argv, **popen):
    return subprocess.Popen([sys.executable, "-m", "fileindex", *argv], stderr=subprocess.PIPE, text=True, **popen)


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_command_waiting_on_its_input_ends_in_one_line(signum, code):
    command = started(["query", "-", "--schema", "id INT", "--where", "id = 5"], stdin=subprocess.PIPE)
    time.sleep(2)  # imported and blocked reading standard input, which never ends
    command.send_signal(signum)
    _, err = command.communicate(timeout=60)
    command.stdin.close()
    assert command.returncode == code and err == "fileindex: interrupted\n"


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
