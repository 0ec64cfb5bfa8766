"""The pruning funnel of a read (``TableScan.explain``, ``spark scan --explain``): its stages, and per data
file what is read of it and why (:class:`FileRead`, the one typed file read the planner yields and the
readers, local and Spark, work on)."""
from __future__ import annotations

from collections.abc import Callable
from fileindex.frozen import field, frozen
from typing import TYPE_CHECKING

from fileindex.errors import FileIndexError
from fileindex.indexes.result import Rows
from fileindex.scan.task import DataFileTask
from fileindex.predicate.tree import Predicate, columns
from fileindex.table.verdict import FileVerdict

if TYPE_CHECKING:
    from fileindex.merge.spec import MergeSpec
    from fileindex.scan.table import PaimonTable

STAGES = ("row_count", "level", "partition", "bucket", "statistics", "file_index", "deletion_vectors")
NO_PREDICATE = "no where: every row matches"
NO_INDEX = "no data file has an index"  # (the file index stage, where none of its files has one)
MERGED_RECORDS = "records as written, before the merge by key: several per updated key, deletes among them"


@frozen
class FileRead:
    """One live data file of a scan: what is read of it, and why."""

    file: str  # relative to the table root, or its external path
    row_count: int
    index: str  # where its index lives: embedded, sidecar or none
    read: str  # "all" rows, "rows" (a row selection), "none" (skipped), or "merged" (into its group's first file)
    rows: int  # rows read: after the index's selection and the deletion vector
    why: str | Callable[[], str] = field(repr=False)  # the reason, or how to say it (only explain asks)
    skipped_by: str | None = None  # the stage that dropped it
    task: DataFileTask | None = field(default=None, repr=False, compare=False)
    verdict: FileVerdict | None = field(default=None, repr=False, compare=False)
    group: tuple[DataFileTask, ...] = field(default=(), repr=False, compare=False)  # data evolution, newest first
    external: bool = False  # the file lies under an external path, outside the table
    merge: MergeSpec | None = field(default=None, repr=False, compare=False)  # a primary-key bucket: group merged
    # a primary-key bucket read by candidate keys: per file of its group, the records whose keys are merged (None:
    # none of its records); None: the bucket merged whole
    candidates: tuple[Rows | None, ...] | None = field(default=None, repr=False, compare=False)

    @property
    def reason(self) -> str:
        return self.why if isinstance(self.why, str) else self.why()

    @property
    def exact(self) -> bool:
        """Whether the rows read are exactly the rows that match, with nothing left to filter (a count is
        answered without reading): where nothing is read, where there is no predicate, or where the index's
        verdict is exact (planned with ``evaluate_tasks(exact=True)``). Never for a data-evolution group or a
        primary-key bucket (its records are not its rows)."""
        if self.read == "none":
            return True
        if self.read not in ("all", "rows") or self.group or self.merge is not None:
            return False
        return (isinstance(self.why, str) and self.why == NO_PREDICATE) or \
            (self.verdict is not None and self.verdict.exact)

    @property
    def to_read(self) -> bool:
        return self.read in ("all", "rows")

    def as_dict(self) -> dict:
        return {"file": self.file, "row_count": self.row_count, "index": self.index, "read": self.read,
                "rows": self.rows, "reason": self.reason, "skipped_by": self.skipped_by,
                **({"external": True} if self.external else {})}


@frozen
class Stage:
    name: str
    files_before: int
    files_after: int
    rows_before: int
    rows_after: int
    manifests_skipped: int = 0  # (partition) manifests not read: their files are counted in no stage
    no_index: bool = False  # (file_index) no file it was given has an index: nothing was consulted

    def as_dict(self) -> dict:
        return {"stage": self.name, "files_before": self.files_before, "files_after": self.files_after,
                "rows_before": self.rows_before, "rows_after": self.rows_after,
                **({"manifests_skipped": self.manifests_skipped} if self.manifests_skipped else {}),
                **({"no_index": True} if self.no_index else {})}

    def line(self, counted: str = "rows") -> str:
        """The stage's line of the funnel, its row counts said as ``counted`` (a merged table's: records)."""
        if self.no_index:  # (counts "N -> N" would read as an index consulted)
            return f"  {_words(self.name):<17} {NO_INDEX}"
        return (f"  {_words(self.name):<17} files {self.files_before:>6,} -> {self.files_after:<6,} "
                f"{counted:<7} {self.rows_before:>9,} -> {self.rows_after:,}"
                + (f"  ({self.manifests_skipped:,} manifests not read)" if self.manifests_skipped else ""))


@frozen
class Explain:
    """The pruning funnel of a scan: one stage per step, one row per data file. ``as_dict`` also carries
    pypaimon's ``ExplainResult`` keys (``partition_pruning``, ``bucket_pruning``, ``file_skipping``)."""

    table: str
    snapshot: int
    where: str | None
    stages: tuple[Stage, ...]
    files: tuple[FileRead, ...]
    indexes: tuple[tuple[str, ...], ...] = ()  # per file: its indexes on the predicate's columns, column:type
    answers: tuple[dict, ...] = ()  # per file: how its part of the answer is found (``scan.answers.answered``)
    limit: int | None = None  # the scan's row limit: applied after the stages, as the rows are read
    records: bool = False  # the counts are records before a merge by key (a primary-key table), not rows

    def _pruning(self, name: str) -> dict:
        stage = next((s for s in self.stages if s.name == name), None)
        files = self.stages[0].files_before if self.stages else 0
        return {"before": stage.files_before if stage else files, "after": stage.files_after if stage else files}

    def as_dict(self) -> dict:
        return {"table": self.table, "snapshot": self.snapshot, "where": self.where,
                "stages": [s.as_dict() for s in self.stages],
                "files": [{**f.as_dict(), "indexes": list(indexes), **answer} for f, indexes, answer
                          in zip(self.files, self._per_file_indexes(), self._per_file_answers(), strict=True)],
                "partition_pruning": self._pruning("partition"), "bucket_pruning": self._pruning("bucket"),
                "file_skipping": self._pruning("file_index"),
                **({"limit": self.limit} if self.limit is not None else {}),
                **({"counts": "records"} if self.records else {})}

    def _per_file_indexes(self) -> tuple[tuple[str, ...], ...]:
        return self.indexes or tuple(() for _ in self.files)

    def _per_file_answers(self) -> tuple[dict, ...]:
        return self.answers or tuple({} for _ in self.files)

    def __str__(self) -> str:
        lines = [f"scan of {self.table} at snapshot {self.snapshot}" + (f" where {self.where}" if self.where else "")]
        counted = "records" if self.records else "rows"
        if self.stages:
            lines.append(f"  pruning stages, each with the files and {counted} before -> after it"
                         + (f" ({MERGED_RECORDS}):" if self.records else ":"))
        lines += [stage.line(counted) for stage in self.stages]
        if self.limit is not None:
            stops = "no file is read" if self.limit == 0 else \
                f"the read stops at {self.limit:,} row{'' if self.limit == 1 else 's'}"
            lines.append(f"  limit {self.limit:,}: applied after these stages ({stops})")
        for item, indexes, answer in zip(self.files, self._per_file_indexes(), self._per_file_answers(),
                                         strict=True):
            what = {"all": _bucket_read(item) if item.merge else "read all rows",
                    "rows": f"read {item.rows:,} of {item.row_count:,} rows",
                    "none": f"skipped by {_words(item.skipped_by or '')}",
                    "merged": "merged with its bucket" if item.merge else "columns read with its group"}[item.read]
            index = f"{item.index} {', '.join(indexes)}" if indexes else item.index
            external = "  (external path)" if item.external else ""
            lines.append(f"  {item.file}{external}  index={index}  {what}  ({item.reason}){_answered(item, answer)}")
        return "\n".join(lines)


def _bucket_read(item: FileRead) -> str:
    """What a primary-key bucket's read takes: its files' records (as written, before the merge)."""
    if item.candidates is None:
        return f"read its bucket's {item.rows:,} records"
    return f"read its bucket's files ({item.rows:,} records) for the candidate keys"


def _words(name: str) -> str:
    """A stage's name as words (``file_index``: file index; ``level``: level 0, the files it drops)."""
    return "level 0" if name == "level" else name.replace("_", " ")


_COUNTED_FROM = {"index": "from its index", "metadata": "from the table's metadata"}


def _answered(item: FileRead, answer: dict) -> str:
    """How a count finds the file's part (``scan.answers.answered``), in words that say what a count reads
    (a count's funnel also shows what a read would take of the file: the words must not seem to contradict it)."""
    if not answer:
        return ""
    how = answer["answered_by"]
    if how in _COUNTED_FROM:
        if item.read == "none":
            return f"  the count: 0 rows, known {_COUNTED_FROM[how]}"
        return f"  the count: its {item.rows:,} rows, known {_COUNTED_FROM[how]} (no row read)"
    columns = answer.get("read_columns")
    return f"  the count: by reading {'column' if len(columns or ()) == 1 else 'columns'} {', '.join(columns)}" \
        if columns else "  the count: by reading its rows"


def merged_by_key(table: PaimonTable) -> bool:
    """Whether the table's rows are merged by key from its buckets' files (a primary-key table without deletion
    vectors: ``scan.primary_keys``)."""
    return bool(table.schema.primary_keys) and not table.deletion_vectors_enabled


def explain(table: PaimonTable, where: str | None, predicate: Predicate | None, files: list[FileRead],
            stages: tuple[Stage, ...]) -> Explain:
    """The funnel of a plan: its stages, its files and each file's indexes on the predicate's columns."""
    indexes = tuple(indexes_of(f.task, predicate) if f.task is not None and predicate is not None else ()
                    for f in files)
    return Explain(str(table.root), table.snapshot.id, where, stages, tuple(files), indexes,
                   records=merged_by_key(table))


def stage_of(name: str, before: list, after: list, rows_before: int, rows_after: int) -> Stage:
    return Stage(name, len(before), len(after), rows_before, rows_after)


def index_of(task: DataFileTask) -> str:
    entry = task.table_entry()
    return "embedded" if entry.embedded_index is not None else "sidecar" if entry.index_files else "none"


def without_index(tasks: list[DataFileTask]) -> bool:
    """Whether files were given and none of them has an index (embedded or sidecar)."""
    return bool(tasks) and all(index_of(task) == "none" for task in tasks)


def skipped(task: DataFileTask, stage: str, reason: str | Callable[[], str],
             verdict: FileVerdict | None = None) -> FileRead:
    entry = task.table_entry()
    return FileRead(task.name, entry.row_count, verdict.index if verdict else index_of(task), "none", 0, reason,
                    stage, task, verdict, external=task.is_external)


def indexes_of(task: DataFileTask, predicate: Predicate) -> tuple[str, ...]:
    """The file's indexes on the predicate's columns (by field id: an older file may name them otherwise),
    as column:type."""
    try:
        _, container, _ = task.container()
    except (FileIndexError, OSError):
        return ()
    if container is None or task.table is None:
        return ()
    by_id = task.table.data_schema(task.table_entry()).by_id()
    table_fields = task.table.schema.by_name()
    bases = {name.split("[")[0] for name in columns(predicate)}  # (a map-key column m[k] is of map m)
    wanted = {by_id[table_fields[name].id].name for name in bases
              if name in table_fields and table_fields[name].id in by_id}
    with container:
        return tuple(f"{i.column}:{i.index_type}" for i in container if i.column.split("[")[0] in wanted)


def skip_reason(task: DataFileTask, verdict: FileVerdict, predicate: Predicate | None) -> str:
    if verdict.note:
        return verdict.note
    indexes = ", ".join(indexes_of(task, predicate)) if predicate is not None else ""
    return f"its index ({indexes or 'the file index'}) rules out every row"


def keep_reason(task: DataFileTask, verdict: FileVerdict, predicate: Predicate | None) -> str:
    if verdict.note:
        return f"kept: {verdict.note}"
    if predicate is None:
        return NO_PREDICATE
    if verdict.index == "none":
        return "kept: no index"
    if isinstance(verdict.result, Rows):
        count = verdict.result.cardinality
        return f"the index selects {count:,} row{'s' if count != 1 else ''}"
    return "kept: its index cannot rule the file out"
