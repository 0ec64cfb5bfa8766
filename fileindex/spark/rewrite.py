"""``rewrite_file_index`` on Spark: the per-file work (build, sidecar) as Spark tasks, one commit on the driver.

The driver plans the table's live files (:func:`fileindex.table.rewrite_plan.plan_rewrite`), Spark tasks
run :func:`fileindex.table.rewrite_plan.rewrite_file` and return the new entries, and the driver commits
them once (:func:`fileindex.table.rewrite.commit_rewrite`), as Java's Spark procedure does. A task never
raises: a file that cannot be rewritten comes back as an error, so the driver knows every sidecar the
run wrote and removes them all before reporting the failure. A retried task attempt takes the next
free sidecar name (the failed attempt's complete file, if any, is an orphan, never overwritten).
"""
from __future__ import annotations

from pathlib import Path

from fileindex.errors import FileIndexError
from fileindex.pipeline.inputs import driver_path
from fileindex.spark.faults import InjectedTaskFailure, first_attempt_failure
from fileindex.table.commit import remove_written
from fileindex.table.metadata import TableError
from fileindex.table.rewrite import RewriteResult, commit_rewrite
from fileindex.table.rewrite_plan import FileChange, FileJob, RewritePlan, plan_rewrite, rewrite_file
from fileindex.table.stages import Stage, reached


def _rewrite_task(job: FileJob, dry_run: bool) -> tuple[str, FileChange | str]:
    fail = first_attempt_failure(job.name)
    try:
        return "ok", rewrite_file(job, dry_run=dry_run, before_rename=fail)
    except (FileIndexError, OSError) as err:
        return "error", f"{job.name}: {err}"
    except InjectedTaskFailure:
        raise
    except Exception as err:  # the driver must learn of every file, to remove what the run wrote
        return "error", f"{job.name}: {type(err).__name__}: {err}"


def spark_rewrite(spark, root: str | Path, *, partitions: str | None = None, mode: str = "auto",
                  compat: str = "auto", dry_run: bool = False, max_attempts: int = 10,
                  plan: RewritePlan | None = None) -> RewriteResult:
    """:func:`fileindex.table.rewrite.rewrite_file_index` with the per-file work on Spark. ``plan``: one
    :func:`plan_rewrite` made already (a table it refuses is then refused before Spark starts; of the table's
    ``driver_path``, as executors must see its files); a commit that lands after it is rebased over, as after
    any plan."""
    if plan is None:
        plan = plan_rewrite(driver_path(root), partitions=partitions, mode=mode, compat=compat)
    reached(Stage.SIDECARS)
    if plan.jobs:
        slices = min(len(plan.jobs), max(1, 2 * spark.sparkContext.defaultParallelism))
        dry = dry_run
        answers = spark.sparkContext.parallelize(plan.jobs, slices).map(lambda job: _rewrite_task(job, dry)).collect()
    else:
        answers = []
    changes = [answer for status, answer in answers if status == "ok" and isinstance(answer, FileChange)]
    errors = [answer for status, answer in answers if status == "error"]
    if errors:
        remove_written(changes)
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise TableError(f"{errors[0]}{more}; nothing was committed")
    position = {job.name: number for number, job in enumerate(plan.jobs)}
    changes.sort(key=lambda change: position[change.job.name])  # the plan's order, as the local run's
    return commit_rewrite(plan, changes, dry_run=dry_run, max_attempts=max_attempts)
