"""Ending a command on Ctrl-C (SIGINT) or SIGTERM: one line, exit 130 or 143 (128 + the signal, as a shell
reports a process it killed). Both are raised as exceptions in the main thread, so the cleanup a command does
on failure (temporary files removed, a Spark session stopped) runs; whatever that cleanup then raises or logs
(py4j's broken connection to a JVM the same Ctrl-C stopped) is the interrupt's echo, not news."""
from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM, raised in the main thread; ``signum`` says which."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class _Signals:
    received: int | None = None

    def handle(self, signum, frame) -> None:
        if self.received is None:
            self.received = signum
            import logging  # (not imported by commands that never log)

            logging.disable(logging.CRITICAL)  # py4j logs every call the interrupt broke, with its traceback
        raise Interrupted(signum)


def run_interruptible(command: Callable[[], int]) -> int:
    """``command()``'s exit code, or 130 / 143 after one line when SIGINT / SIGTERM ends it."""
    if threading.current_thread() is not threading.main_thread():
        return command()
    signals = _Signals()
    previous = {number: signal.signal(number, signals.handle) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        return command()
    except BaseException:
        if signals.received is None:
            raise
        for number in previous:  # a second Ctrl-C while the cleanup above ran: its echo is not news either
            signal.signal(number, signal.SIG_IGN)
        print("fileindex: interrupted", file=sys.stderr, flush=True)
        return 128 + signals.received
    finally:
        if signals.received is None:
            for number, handler in previous.items():
                signal.signal(number, handler)
