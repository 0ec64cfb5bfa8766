"""The local JVM's standard error, less the warning the JDK prints on every start because Spark's launcher adds
``--add-modules=jdk.incubator.vector`` (no JVM option silences it): a pipe, copied line by line to ours."""
from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

INCUBATOR_WARNING = b"WARNING: Using incubator modules:"


@contextmanager
def incubator_warning_dropped() -> Iterator[None]:
    """While this block starts Spark's JVM (``getOrCreate``), start it with its standard error filtered."""
    from pyspark.core import context

    launch = context.launch_gateway

    def launch_filtered(conf=None, popen_kwargs=None):
        gateway = launch(conf, {**(popen_kwargs or {}), "stderr": subprocess.PIPE})
        if gateway.proc is not None:  # None: a JVM already running (spark-submit), whose stderr is not ours
            threading.Thread(target=_copy, args=(gateway.proc.stderr,), name="jvm-stderr", daemon=True).start()
        return gateway

    context.launch_gateway = launch_filtered
    try:
        yield
    finally:
        context.launch_gateway = launch


def _copy(jvm_stderr: IO[bytes]) -> None:
    """Each line to ``sys.stderr`` as it is when the line comes: after Ctrl-C the command line points it nowhere
    (``fileindex.cli.interrupts``), and the stack traces of the JVM it then ends go with it. The pipe is read to
    its end all the same (a JVM writing into a full pipe would block)."""
    writable = True
    for line in iter(jvm_stderr.readline, b""):
        if not writable or line.startswith(INCUBATOR_WARNING):
            continue
        out = sys.stderr
        try:
            if hasattr(out, "buffer"):
                out.buffer.write(line)
            else:
                out.write(line.decode(errors="replace"))
            out.flush()
        except (OSError, ValueError):  # our stderr closed (a pipe's reader gone, or interpreter exit)
            writable = False
