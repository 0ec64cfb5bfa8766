"""Ending a command on Ctrl-C (SIGINT) or SIGTERM: one line, exit 130 or 143 (128 + the signal, as a shell
reports a process it killed). Both are raised as exceptions in the main thread, so the cleanup a command does
on failure (temporary files removed) runs; whatever that cleanup then raises or logs (py4j's broken connection
to a JVM the same Ctrl-C stopped) is the interrupt's echo, not news, and so is what the interpreter prints on
its way out. The processes the command started end with it (``end_started``): PySpark starts its JVM
ignoring SIGINT, and a JVM interrupted before it has connected to Python never notices that Python is gone."""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable

from fileindex.ending import deferring

GRACE = 10.0  # seconds the processes a command started get to end on SIGTERM (a JVM's shutdown hooks) before SIGKILL


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM, raised in the main thread; ``signum`` says which."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class _Signals:
    received: int | None = None
    stderr = None  # the command line's stderr, once ``silence`` has pointed sys.stderr elsewhere

    def __init__(self, silence: bool):
        self.silence = silence

    def handle(self, signum, frame) -> None:
        if self.received is None:
            self.received = signum
            import logging  # (not imported by commands that never log)

            logging.disable(logging.CRITICAL)  # py4j logs every call the interrupt broke, with its traceback
            if self.silence:
                self.silence_stderr()
        raise Interrupted(signum)

    def silence_stderr(self) -> None:
        """From the interrupt on, what is written to ``sys.stderr`` goes nowhere: the cleanup's echo, the stack
        traces of a JVM the interrupt ends (copied from its pipe line by line, ``fileindex.spark.jvm_stderr``),
        threads that lost their JVM, finalizers, the interpreter's exit. The one line goes to ``self.stderr``."""
        if self.stderr is None:
            self.stderr = sys.stderr
            sys.stderr = open(os.devnull, "w")  # (open until the process ends)


def run_interruptible(command: Callable[[], int], *, end_started: bool = False) -> int:
    """``command()``'s exit code, or 130 / 143 after one line when SIGINT / SIGTERM ends it. ``end_started``
    (the command line's own process): then every process started meanwhile (and all they started) is ended
    too, and nothing more is printed on stderr."""
    if threading.current_thread() is not threading.main_thread():
        return command()
    signals = _Signals(silence=end_started)
    previous = {number: signal.signal(number, signals.handle) for number in (signal.SIGINT, signal.SIGTERM)}
    existing = descendants() if end_started else set()
    with deferring(end_started) as removals:
        try:
            code = command()
        except BaseException as err:
            if signals.received is None and isinstance(err, KeyboardInterrupt):  # a library's own SIGINT handler
                signals.received = signal.SIGINT
            if signals.received is None:
                raise
        finally:
            if signals.received is None:
                for number, handler in previous.items():
                    signal.signal(number, handler)
        if signals.received is None:
            return code
        # interrupted (also when the command turned the interrupt into an error of its own, and returned)
        for number in previous:  # a second Ctrl-C while the cleanup above ran: its echo is not news either
            signal.signal(number, signal.SIG_IGN)
        if end_started:
            signals.silence_stderr()  # (already, unless a library's own handler raised the KeyboardInterrupt)
        print("fileindex: interrupted", file=signals.stderr or sys.stderr, flush=True)
        if end_started:
            end_processes(descendants() - existing)
        for remove in removals:  # folders those processes wrote into, now that nothing refills them
            remove()
        return 128 + signals.received


def _parents() -> dict[int, int]:
    """Every process's parent, by pid (``/proc`` where there is one, else ``ps``)."""
    parents = {}
    if os.path.isdir("/proc/self"):
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as stat:
                    fields = stat.read().rpartition(b")")[2].split()  # after "pid (command name)": state, ppid
            except OSError:  # ended meanwhile
                continue
            if fields and fields[0] != b"Z":
                parents[int(name)] = int(fields[1])
        return parents
    import subprocess  # (where /proc is missing only)

    listing = subprocess.run(["ps", "-A", "-o", "pid=,ppid=,stat="], capture_output=True, text=True).stdout
    for line in listing.splitlines():
        pid, ppid, state = line.split()[:3]
        if not state.startswith("Z"):
            parents[int(pid)] = int(ppid)
    return parents


def descendants(pid: int | None = None) -> set[int]:
    """The live processes ``pid`` (this one by default) started, and those they started, at this moment."""
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    found: set[int] = set()
    pending = [os.getpid() if pid is None else pid]
    while pending:
        for child in children.get(pending.pop(), ()):
            if child not in found:
                found.add(child)
                pending.append(child)
    return found


def end_processes(pids: set[int], grace: float = GRACE) -> None:
    """SIGTERM to each process (a JVM runs its shutdown hooks: Spark removes its temporary folders), SIGKILL
    to those still running after ``grace`` seconds; this process's own children are reaped."""
    pids = {pid for pid in pids if _signal(pid, signal.SIGTERM)}
    deadline = time.monotonic() + grace
    ended = set(pids)
    while pids:
        _reap(ended)
        pids &= set(_parents())
        if not pids or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    for pid in pids:
        _signal(pid, signal.SIGKILL)
    _reap(ended)


def _signal(pid: int, signum: int) -> bool:
    try:
        os.kill(pid, signum)
        return True
    except OSError:  # gone already
        return False


def _reap(pids: set[int]) -> None:
    """Collect those of ``pids`` that are this process's children and have exited (else they stay zombies)."""
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # not a child of this process, or collected already
            pass
