"""``rewrite_file_index``: add, rebuild and drop a table's file indexes, as Paimon's
``CALL sys.rewrite_file_index`` does, committed as one ``COMPACT`` snapshot Java reads.

Plan (:mod:`fileindex.table.rewrite_plan`), rewrite each live file (locally here; ``fileindex spark
rewrite`` runs the same per-file work as Spark tasks), then commit once (:mod:`fileindex.table.commit`).
On any failure before the snapshot is linked, every file this run created is deleted and nothing else;
files a snapshot names are never touched. Superseded sidecars stay on disk (as in Java): see
``fileindex table ROOT --orphans``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from fileindex.table.commit import commit_changes, remove_written
from fileindex.table.rewrite_plan import FileChange, RewritePlan, plan_rewrite, rewrite_file
from fileindex.table.stages import Stage, reached


@dataclass
class RewriteResult:
    base_snapshot_id: int
    mode: str
    floor: str | None
    dry_run: bool
    changes: list[FileChange] = field(default_factory=list)
    snapshot_id: int | None = None  # the committed snapshot; None when nothing was committed
    dropped: list[str] = field(default_factory=list)  # files a concurrent commit changed first
    attempts: int = 0
    writer: str | None = None  # the Paimon release whose writers were reproduced (None: the newest)
    notes: list[str] = field(default_factory=list)  # what that writer leaves out of the options

    @property
    def changed(self) -> list[FileChange]:
        return [c for c in self.changes if c.changed]

    def as_dict(self) -> dict:
        return {"snapshot": self.snapshot_id, "base_snapshot": self.base_snapshot_id, "mode": self.mode,
                "floor": self.floor, "dry_run": self.dry_run, "files": len(self.changes),
                "changed": len(self.changed), "unchanged": len(self.changes) - len(self.changed),
                "dropped": self.dropped, "attempts": self.attempts, "writer": self.writer or "latest",
                "notes": self.notes}


def commit_rewrite(plan: RewritePlan, changes: list[FileChange], *, dry_run: bool = False,
                   max_attempts: int = 10) -> RewriteResult:
    """Commit the per-file results of ``plan`` (from any executor); removes their sidecars on failure."""
    result = RewriteResult(plan.snapshot_id, plan.mode, plan.floor, dry_run, changes, writer=plan.writer,
                           notes=plan.notes)
    changed = result.changed
    if dry_run or not changed:
        return result
    outcome = commit_changes(plan, changed, max_attempts=max_attempts)
    result.snapshot_id, result.attempts = outcome.snapshot_id, outcome.attempts
    result.dropped = [c.job.name for c in outcome.dropped]
    return result


def rewrite_file_index(root: str | Path, *, partitions: str | None = None, mode: str = "auto",
                       compat: str = "auto", dry_run: bool = False, max_attempts: int = 10,
                       allow_external: bool = False, writer: str = "auto",
                       branch: str | None = None) -> RewriteResult:
    """Rebuild the indexes of the table's live files (of ``partitions``, ``k=v[,k=v][;…]``) from its
    current options and commit them (tests stop it at each :class:`fileindex.table.stages.Stage`).
    ``writer``: the Paimon release whose writers to reproduce (``auto``: from the manifests' shape; see
    :func:`plan_rewrite`)."""
    plan = plan_rewrite(root, partitions=partitions, mode=mode, compat=compat, allow_external=allow_external,
                        writer=writer, branch=branch)
    changes: list[FileChange] = []
    try:
        reached(Stage.SIDECARS)
        for job in plan.jobs:
            changes.append(rewrite_file(job, dry_run=dry_run))
    except BaseException:
        remove_written(changes)
        raise
    return commit_rewrite(plan, changes, dry_run=dry_run, max_attempts=max_attempts)
