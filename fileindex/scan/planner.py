"""The one planner of a table read: a typed :class:`~fileindex.scan.funnel.FileRead` per live data file
(its task, its verdict, what is read of it and why), through the stages partition (manifests, then
files) → bucket → statistics → file index → deletion vectors; data-evolution tables by row-id group.
Every stage only drops what cannot match, so a file is never skipped on a guess.

Its callers: ``PaimonTable.scan`` (``fileindex read``); ``PaimonTable.plan`` (``fileindex table --where``
and the kit), which asks for every file's index verdict (``every_verdict``: the index stage also judges the
files an earlier stage dropped, and nothing is refused, since nothing is read); ``spark scan`` and the
``paimon-fileindex`` data source, which distribute the file reads over tasks (``evaluate``: where the index
stage runs, e.g. a Spark job; a ``None`` verdict leaves a file's index to the task that reads it). Plain
data files (no table) go through the index stage alone (:func:`plan_files`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from fileindex.frozen import replace
from functools import partial
from typing import TYPE_CHECKING, cast

import pyarrow as pa

from fileindex.arrow import scalars
from fileindex.arrow.types import arrow_type
from fileindex.errors import FileIndexError, UsageError
from fileindex.indexes.result import REMAIN, SKIP, Rows
from fileindex.java.binary_row import fields as partition_fields
from fileindex.scan.funnel import (
    NO_PREDICATE,
    FileRead,
    Stage,
    index_of,
    keep_reason,
    none_indexed,
    skip_reason,
    skipped,
    stage_of,
    without_index,
)
from fileindex.scan.task import DataFileTask, table_inputs
from fileindex.memo import computed_in_batches
from fileindex.scan.reader import evaluate_file, merged_by_key, refuse_unscannable, rows_to_read
from fileindex.scan.truth import matches
from fileindex.predicate.tree import Predicate, and_, columns, conjuncts
from fileindex.scan.verdicts import missing_note
from fileindex.table.buckets import reachable_buckets
from fileindex.table.evolution import FilePredicate, remap_predicate
from fileindex.table.metadata import ValueStats
from fileindex.table.row_ids import row_id_groups
from fileindex.table.statistics import Statistics, file_statistics
from fileindex.table.verdict import FileVerdict

if TYPE_CHECKING:
    from fileindex.scan.table import PaimonTable
    from fileindex.table.deletion_vectors import DeletionVector
    from fileindex.table.manifest_entry import ManifestEntry


Evaluate = Callable[[list[DataFileTask], Predicate], list["FileVerdict | None"]]
LEVEL_ZERO_UNREAD = ("level 0: a batch scan of a primary-key table with deletion vectors reads only compacted files "
                     "(above level 0), as Java's does: their rows are read once compacted")


INDEX_NOT_READ = "the table says file-index.read.enabled=false: its index is not read"


class ScanPlanner:
    """The plan of one read: every live data file with what is read of it, and the stages' counts."""

    def __init__(self, table: PaimonTable, predicate: Predicate | None, *, every_verdict: bool = False,
                 extended: bool = False, evaluate: Evaluate | None = None):
        self.table = table
        self.predicate = predicate
        self.every_verdict = every_verdict
        self.extended = extended
        self.evaluate = evaluate or partial(evaluate_tasks, extended=extended)
        self._remapped: dict[int, FilePredicate] = {}  # the predicate in each data schema, for the statistics

    def plan(self) -> tuple[list[FileRead], tuple[Stage, ...]]:
        if self.table.data_evolution:  # (read by group: the file-by-file refusal is not for it)
            return self._plan_groups()
        if not self.every_verdict:
            refuse_unscannable(self.table)
        # every_verdict: no file is dropped before the index stage (each gets the index's own verdict)
        over_keys = None if self.every_verdict else _partition_predicate(self.table, self.predicate)
        skipped_manifests: list[bool] = []
        keep_manifest = None if over_keys is None else \
            partial(_manifest_may_match, self.table, over_keys, skipped_manifests)
        tasks = _live_tasks(self.table, keep_manifest)
        files: list[FileRead] = []
        stages: list[Stage] = []
        alive = tasks
        if not self.every_verdict and any(task.table_entry().row_count == 0 for task in alive):
            alive = _whole_file_stage("row_count", alive, lambda task: task.table_entry().row_count > 0,
                                      "the table's manifest records no rows in it", files, stages)
        if self.table.schema.primary_keys and self.table.deletion_vectors_enabled and not self.every_verdict:
            from fileindex.merge.sections import refuse_unmerged_misreads

            alive = _whole_file_stage("level", alive, lambda task: task.table_entry().level > 0,  # (no merge needed)
                                      LEVEL_ZERO_UNREAD, files, stages)
            refuse_unmerged_misreads(self.table.schema, [task.table_entry() for task in alive], str(self.table.root))
        if over_keys is not None:
            alive = _whole_file_stage("partition", alive, _partition_test(self.table, over_keys),
                                      "the partition's values fail the predicate", files, stages)
            stages[-1] = replace(stages[-1], manifests_skipped=sum(skipped_manifests))
        buckets = None if self.every_verdict else self._reachable_buckets()
        if buckets is not None:
            alive = _whole_file_stage("bucket", alive, lambda task: task.table_entry().bucket in buckets,
                                      "the predicate fixes the bucket key to other buckets", files, stages)
        if merged_by_key(self.table) and not self.every_verdict:  # a primary-key table: by bucket
            from fileindex.scan.primary_keys import plan_buckets

            return _in_table_order(tasks, files + plan_buckets(self.table, self.predicate, alive, files, stages)), \
                tuple(stages)
        if self.predicate is not None and not self.every_verdict:
            alive = _whole_file_stage("statistics", alive, self._statistics_may_match,
                                      "its min/max/null-count statistics rule out every row", files, stages)
        rows_in = sum(t.table_entry().row_count for t in alive)
        if self.predicate is None:
            verdicts: list[FileVerdict | None] = [self._unfiltered(task) for task in alive]
        elif not (self.table.reads_file_index or self.every_verdict):
            verdicts = [self._unfiltered(task, INDEX_NOT_READ) for task in alive]
        else:
            verdicts = self.evaluate(alive, self.predicate)
        judged = []
        for task, verdict in zip(alive, verdicts, strict=True):
            if verdict is not None and verdict.result is SKIP and verdict.kept_before_deletes is None:
                files.append(skipped(task, "file_index", partial(skip_reason, task, verdict, self.predicate),
                                     verdict))
            else:
                judged.append((task, verdict))
        index_rows = sum(_kept_by_index(task, verdict) for task, verdict in judged)
        stages.append(Stage("file_index", len(alive), len(judged), rows_in, index_rows, no_index=without_index(alive)))
        kept_reads = []
        deletes = self.table.deletion_vectors_enabled  # (else no deletion_vectors stage, unless a file has one)
        for task, verdict in judged:
            deletes = deletes or bool(task.deleted_rows())
            if verdict is None:  # its index is the reading task's to evaluate: read whole at worst
                count = task.table_entry().row_count - len(task.deleted_rows() or ())
                kept_reads.append(FileRead(task.name, count, index_of(task), "all", count,
                                           "its sidecar index is evaluated by the task that reads it", None, task,
                                           external=task.is_external))
                continue
            count = rows_to_read(verdict, task.deleted_rows())
            if count == 0:
                files.append(skipped(task, "deletion_vectors", "every row it keeps is deleted", verdict))
                continue
            read = "rows" if count < verdict.row_count else "all"
            kept_reads.append(FileRead(task.name, verdict.row_count, verdict.index, read, count,
                                       keep_reason(task, verdict, self.predicate), None, task, verdict,
                                       external=task.is_external))
        if deletes:
            stages.append(Stage("deletion_vectors", len(judged), len(kept_reads), index_rows,
                                sum(f.rows for f in kept_reads)))
        return _in_table_order(tasks, files + kept_reads), tuple(stages)

    def verdicts_of_each(self, predicates: Sequence[Predicate]) -> list[list[FileVerdict]]:
        """``every_verdict`` of several predicates at once: each file's index opened once and the predicates
        evaluated together on it (``FileIndexEvaluator.evaluate_many``); data-evolution groups one at a time."""
        if self.table.data_evolution:
            return [[cast(FileVerdict, f.verdict) for f in ScanPlanner(self.table, predicate, every_verdict=True,
                                                                      extended=self.extended).plan()[0]]
                    for predicate in predicates]
        # a verdict-only loop over the live files: no task nor file read is built for a verdict (each file's path
        # and existence are what ``PaimonTable.verdicts`` checks anyway)
        live = self.table.live()
        each = computed_in_batches(partial(_entry_verdicts, self.table, list(predicates), self.extended), live)
        return [list(verdicts) for verdicts in zip(*each, strict=True)] if live else [[] for _ in predicates]

    def _unfiltered(self, task: DataFileTask, note: str = "") -> FileVerdict:
        """A file's verdict without its index: every row, noting a data file that is not there (else ``note``)."""
        entry = task.table_entry()
        note = note if self.table.data_file_exists(entry) else missing_note(entry)
        return FileVerdict(task.name, entry.row_count, index_of(task), REMAIN, note)

    def _plan_groups(self) -> tuple[list[FileRead], tuple[Stage, ...]]:
        """A data-evolution table: the files of a group hold columns of the same rows (the newest file's
        column wins), judged together by the table's rule (``PaimonTable._plan_data_evolution``)."""
        if self.table.deletion_vectors_enabled and not self.every_verdict:
            raise UsageError(f"{self.table.root}: a data-evolution table with deletion vectors: not read here yet")
        tasks = table_inputs(self.table).tasks
        by_name = {task.name: task for task in tasks}
        use_index = self.predicate is not None and (self.table.reads_file_index or self.every_verdict)
        verdicts = {v.file: v for v in self.table._plan_data_evolution([t.table_entry() for t in tasks],
                                                                       self.predicate or and_(), self.extended)} \
            if use_index else {}
        groups = row_id_groups(tasks, DataFileTask.table_entry)
        planned: list[FileRead] = []
        kept_files = kept_rows = 0
        for members in groups.values():
            newest = sorted(members, key=lambda t: t.table_entry().max_sequence_number, reverse=True)
            found = verdicts.get(newest[0].name)
            result = REMAIN if found is None else found.result
            rows = newest[0].table_entry().row_count
            if result is SKIP:
                planned += [skipped(t, "file_index", verdicts[t.name].note or "the group's index rules it out",
                                    verdicts[t.name]) for t in newest]
                continue
            verdict = FileVerdict(newest[0].name, rows, found.index if found else index_of(newest[0]), result)
            count = result.cardinality if isinstance(result, Rows) else rows
            unjudged = NO_PREDICATE if self.predicate is None else f"kept: {INDEX_NOT_READ}"
            reason = (found.note or "") if found else unjudged
            planned.append(FileRead(newest[0].name, rows, verdict.index, "rows" if count < rows else "all", count,
                                    reason or keep_reason(newest[0], verdict, self.predicate), None, newest[0],
                                    verdict, tuple(newest), external=newest[0].is_external))
            planned += [FileRead(t.name, rows, index_of(t), "merged", 0, "its columns are read with the group",
                                 task=t, verdict=verdicts.get(t.name), external=t.is_external) for t in newest[1:]]
            kept_files, kept_rows = kept_files + len(newest), kept_rows + count
        order = {name: number for number, name in enumerate(by_name)}
        planned.sort(key=lambda f: order[f.file])
        if self.every_verdict:  # each file's own verdict (the group's first file too), as the rule judged it
            planned = [replace(f, verdict=verdicts.get(f.file, f.verdict)) for f in planned]
        total = sum(members[0].table_entry().row_count for members in groups.values())  # a group's rows, once
        return planned, (Stage("file_index", len(tasks), kept_files, total, kept_rows, no_index=without_index(tasks)),)

    def _reachable_buckets(self) -> frozenset[int] | None:
        """The buckets the predicate can reach (None: any); every schema of the table must have had the same
        bucket count, as files written under another count hash their rows to other buckets."""
        buckets = reachable_buckets(self.predicate, self.table.schema)
        if buckets is None:
            return None
        counts = {self.table.schema_by_id(number).options.get("bucket") for number in self.table.store.schema_ids()}
        return buckets if len(counts) == 1 else None

    def _statistics_may_match(self, task: DataFileTask) -> bool:
        entry = task.table_entry()
        schema = self.table.data_schema(entry)
        remapped = self._remapped.get(schema.id)
        if remapped is None:  # (once per schema the files were written with, not per file)
            # a column the file lacks reads as all null, as Java's statistics evolution answers it
            remapped = self._remapped[schema.id] = remap_predicate(
                cast(Predicate, self.predicate), self.table.schema, schema, absent_as_null=True,
                keep_retyped=True)  # (bounds of an older type are cast to the table's)
        if remapped.matches_nothing:
            return False
        if remapped.predicate is None:
            return True
        statistics = file_statistics(entry, schema, dict(remapped.retyped)) if remapped.retyped else \
            self.table.opened.statistics(entry, schema.id, lambda: file_statistics(entry, schema))
        return statistics.may_match(remapped.predicate)


def _live_tasks(table: PaimonTable, keep_manifest: Callable | None) -> list[DataFileTask]:
    """A task per live file of the manifests ``keep_manifest`` keeps; of every manifest: listed once per table
    (``PaimonTable.opened``)."""
    if keep_manifest is not None:
        return table_inputs(table, keep_manifest=keep_manifest).tasks
    return table.opened.tasks(lambda: table_inputs(table).tasks)


def _in_table_order(tasks: list[DataFileTask], reads: list[FileRead]) -> list[FileRead]:
    order = {task.name: number for number, task in enumerate(tasks)}
    return sorted(reads, key=lambda f: order[f.file])


def _whole_file_stage(name: str, alive: list[DataFileTask], keeps: Callable[[DataFileTask], bool], reason: str,
                      files: list[FileRead], stages: list[Stage]) -> list[DataFileTask]:
    """The files ``keeps`` keeps; the others go to ``files`` as skipped by stage ``name``, added to ``stages``."""
    kept = []
    for task in alive:
        if keeps(task):
            kept.append(task)
        else:
            files.append(skipped(task, name, reason))
    stages.append(stage_of(name, alive, kept, sum(t.table_entry().row_count for t in alive),
                           sum(t.table_entry().row_count for t in kept)))
    return kept


def _partition_predicate(table: PaimonTable, predicate: Predicate | None) -> Predicate | None:
    """The predicate's conjuncts over partition keys only (None: there are none)."""
    keys = set(table.schema.partition_keys)
    if predicate is None or not keys:
        return None
    over_keys = [c for c in conjuncts(predicate) if set(columns(c)) <= keys]
    return and_(*over_keys) if over_keys else None


def _manifest_may_match(table: PaimonTable, over_keys: Predicate, skipped: list[bool],
                        partition_stats: ValueStats | None) -> bool:
    """Whether a manifest whose entries' partitions have these statistics may hold a partition the
    predicate keeps (recording in ``skipped`` each one it does not)."""
    types = table.schema.types()
    keep = Statistics(partition_stats, table.schema.partition_keys, types, None, strings=True).may_match(over_keys)
    skipped.append(not keep)
    return keep


def _partition_test(table: PaimonTable, test: Predicate) -> Callable[[DataFileTask], bool]:
    """A test of a file's partition values against ``test`` (over partition keys only); a partition whose
    values cannot be read is kept."""
    key_fields = [table.schema.by_name()[k] for k in table.schema.partition_keys]
    schema = pa.schema([pa.field(f.name, arrow_type(f.type)) for f in key_fields])
    types = table.schema.types()
    answers: dict[bytes, bool] = {}

    def keeps(task: DataFileTask) -> bool:
        partition = task.table_entry().partition
        if partition not in answers:
            try:
                values = partition_fields(partition, [f.type for f in key_fields])
                row = pa.table([scalars.array([v], t) for v, t in zip(values, schema.types, strict=True)],
                               schema=schema)
                answers[partition] = bool(matches(row, test, types)[0])
            except (FileIndexError, pa.ArrowException, TypeError, ValueError, OverflowError):
                answers[partition] = True
        return answers[partition]

    return keeps


def _entry_verdicts(table: PaimonTable, predicates: list[Predicate], extended: bool,
                    live: tuple[ManifestEntry, DeletionVector | None]) -> tuple[FileVerdict, ...]:
    entry, vector = live
    return table.verdicts(entry, predicates, vector, extended=extended)


def _kept_by_index(task: DataFileTask, verdict: FileVerdict | None) -> int:
    if verdict is None:
        return task.table_entry().row_count
    if verdict.kept_before_deletes is not None:
        return verdict.kept_before_deletes
    return verdict.result.cardinality if isinstance(verdict.result, Rows) else verdict.row_count


REMOTE_INDEX_REQUESTS = 8  # indexes of a remote table's files fetched and evaluated at once


def evaluate_tasks(tasks: list[DataFileTask], predicate: Predicate, *, extended: bool = False,
                   exact: bool = False) -> list[FileVerdict | None]:
    """The index stage in this process: each file's verdict (``exact``: saying whether its rows are exactly the
    matching ones, for a count or a top-N), the indexes opened in batches with automatic collection paused (they
    fill the memos). On a remote store the files' indexes are fetched and evaluated on a bounded pool (each
    sidecar is requests, not a read of the disk)."""
    evaluate = partial(evaluate_file, predicate=predicate, extended=extended, exact=exact)
    if tasks and tasks[0].table is not None and tasks[0].table.store.remote and len(tasks) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(REMOTE_INDEX_REQUESTS) as pool:
            return list(pool.map(evaluate, tasks))
    return list(computed_in_batches(evaluate, tasks))


def plan_files(tasks: list[DataFileTask], predicate: Predicate, *, extended: bool = False,
               evaluate: Evaluate | None = None) -> tuple[list[FileRead], tuple[Stage, ...]]:
    """The plan of plain data files (no table): the index stage alone, a file read per file."""
    verdicts = (evaluate or partial(evaluate_tasks, extended=extended))(tasks, predicate)
    reads = []
    for task, verdict in zip(tasks, verdicts, strict=True):
        if verdict is None:
            reads.append(FileRead(task.name, 0, "sidecar", "all", 0, "its index is evaluated by the task that reads it",
                                  None, task))
        elif verdict.result is SKIP:
            reads.append(FileRead(task.name, verdict.row_count, verdict.index, "none", 0,
                                  verdict.note or "its index rules out every row", "file_index", task, verdict))
        else:
            count = verdict.kept_rows
            reads.append(FileRead(task.name, verdict.row_count, verdict.index, "rows" if count < verdict.row_count
                                  else "all", count, keep_reason(task, verdict, predicate), None, task, verdict))
    kept = [f for f in reads if f.read != "none"]
    stage = Stage("file_index", len(reads), len(kept), sum(f.row_count for f in reads), sum(f.rows for f in kept),
                  no_index=none_indexed([f.index for f in reads]))
    return reads, (stage,)


def plan_read(table: PaimonTable | None, tasks: list[DataFileTask], predicate: Predicate | None, *,
              extended: bool = False, evaluate: Evaluate | None = None) -> tuple[list[FileRead], tuple[Stage, ...]]:
    """The plan of a read: of ``table`` (its tasks are the planner's own), or else of the plain data files
    ``tasks`` (a predicate required)."""
    if table is not None:
        return ScanPlanner(table, predicate, extended=extended, evaluate=evaluate).plan()
    if predicate is None:
        raise UsageError("plain data files are read through their indexes with a predicate")
    return plan_files(tasks, predicate, extended=extended, evaluate=evaluate)
