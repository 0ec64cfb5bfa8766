"""Failing the first attempt of every task of a Spark job on purpose, for the tests of retried tasks.

A test-only seam: ``with failing_first_attempts(spark): ...`` sets a local property of the driver's
Spark context, which Spark hands to the tasks of the jobs started inside the block; a task that writes a
file asks :func:`first_attempt_failure` for its ``before_rename`` callback, which is None unless the
property is set and the task is on its first attempt. Spark then retries the task, as after any failure.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

FAIL_FIRST_ATTEMPT = "fileindex.test.failFirstAttemptBeforeRename"


class InjectedTaskFailure(RuntimeError):
    """A task attempt failed on purpose (tests): it reaches Spark, which retries the task."""


@contextmanager
def failing_first_attempts(spark) -> Iterator[None]:
    """Fail the first attempt of every writing task the jobs started inside the block run, just before the
    rename that would put its file in place."""
    spark.sparkContext.setLocalProperty(FAIL_FIRST_ATTEMPT, "true")
    try:
        yield
    finally:
        spark.sparkContext.setLocalProperty(FAIL_FIRST_ATTEMPT, None)


def first_attempt_failure(name: str) -> Callable[[Path], None] | None:
    """In a task writing the file of ``name``: a ``before_rename`` callback that fails this attempt, when the job
    runs under :func:`failing_first_attempts` and this is the task's first attempt; None otherwise."""
    from pyspark import TaskContext

    context = TaskContext.get()
    if context is None or context.getLocalProperty(FAIL_FIRST_ATTEMPT) != "true" or context.attemptNumber() != 0:
        return None

    def fail(path: Path) -> None:
        raise InjectedTaskFailure(f"failing attempt 0 of the task for {name} before the rename (test)")

    return fail
