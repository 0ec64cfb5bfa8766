"""Plan a Java-written Paimon table with verdicts: which data files, and which of their rows, a
predicate can skip, the way Paimon's readers use each file's index (table spec §5-§9).

For every live data file: find its container (embedded bytes or the ``.index`` sidecar), rewrite
the predicate into the file's schema by field id, evaluate it with ``FileIndexPredicate``
semantics, and intersect with the rows its deletion vector keeps; a result equal to all kept rows
is REMAIN, one with no rows is SKIP. Data-evolution groups follow master's newest-writer rule.
Missing or corrupt indexes are reported per file and answered REMAIN, never SKIP.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import functools
import os
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any, BinaryIO, cast
from pathlib import Path
from pyroaring import BitMap

from fileindex.container.file import (
    REMOTE_IDENTITIES,
    SIDECARS,
    FileIndexContainer,
    RangedContainer,
    embedded_container,
    ranged_container,
    shared_sidecar,
    sidecar_container,
)
from fileindex.io import InputFile
from fileindex.io.locations import UriPath
from fileindex.io.reach import warn_options_ignored
from fileindex.errors import DecodeError, SchemaMisfitError
from fileindex.indexes import roaring
from fileindex.indexes.result import REMAIN, SKIP, FileIndexResult
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.parser import parse_predicate
from fileindex.predicate.tree import Predicate, and_, columns, conjuncts
from fileindex.predicate.typed import typed_predicate
from fileindex.table.deletion_vectors import DeletionVector, deletion_vectors
from fileindex.table.evolution import FilePredicate, remap_predicate
from fileindex.table.metadata import (
    MAX_JSON_BYTES,
    ManifestEntry,
    Schema,
    Schemas,
    ValueStats,
    live_files,
    load_schema,
    load_snapshot,
)
from fileindex.scan.opened import OpenedFile, OpenedFiles
from fileindex.scan.planner import ScanPlanner
from fileindex.scan.plans import Plans
from fileindex.scan.verdicts import (MAX_INDEXED_ROWS, index_problem, missing_note, past_rows, past_rows_note,
                                     within_all, within_live)
from fileindex.table.names import external_scheme
from fileindex.table.row_ids import row_id_groups
from fileindex.table.store import TableStore
from fileindex.table.verdict import FileVerdict

if TYPE_CHECKING:
    from fileindex.scan.table_scan import TableScan

class PaimonTable:
    """A Paimon table at a snapshot (latest by default): its metadata and schemas, planning (``plan``) and
    reading its rows (``scan``)."""

    def __init__(self, path: str | Path, snapshot_id: int | None = None, *,
                 external_roots: Sequence[str | Path] = (), options: Mapping[str, str] | None = None,
                 filesystem: Any = None):
        """``path``: a local folder, a ``file://`` URI, or a table on an object store (``s3://``, ``s3a://``,
        ``oss://``, ``gs://``, ``abfs://``, ``abfss://``, ``az://``; ``hdfs://``); ``options``: Paimon's option
        keys for reaching it (``s3.endpoint``, ``s3.access-key``, ...; the environment and the client
        libraries' credential chains fill in what they do not say); ``filesystem``: a ready
        ``pyarrow.fs.FileSystem`` or fsspec filesystem to reach it through instead (docs/guide/object-stores.md).
        ``external_roots``: folders whose data files under external paths may be read (none by default:
        such a file is refused in one line; see docs/untrusted-tables.md)."""
        self.store = TableStore.at(path, external_roots=tuple(str(r) for r in external_roots), options=options,
                                   filesystem=filesystem)
        if options and not self.store.remote:
            warn_options_ignored(options, self.store.root)
        self.root = self.store.root
        self.pinned = snapshot_id is not None  # the snapshot was asked for (time travel), not the latest
        # a plain read uses the latest schema; time travel the snapshot's (on a store the latest is found, and
        # fetched, beside the snapshot's requests: neither waits for the other)
        found = None
        if self.store.remote:
            from fileindex.parallel import aside

            found = aside(lambda: _latest_schema_id(self.store, fetch=snapshot_id is None))
        self.snapshot = load_snapshot(self.store, snapshot_id)
        latest = found.result() if found is not None else self.store.latest_schema_id()
        self.schema = load_schema(self.store, self.snapshot.schema_id if snapshot_id is not None else latest)
        self._schemas = Schemas(self.store, self.schema)
        self._memo: dict = {}  # per-plan lookups that repeat for every file (dropped when pickled)
        self.plans = Plans()  # the plans of this snapshot, by predicate (``scan.plans``; pickled empty)
        self.opened = OpenedFiles()  # its live files and their opened indexes (``scan.opened``; pickled empty)

    def __getstate__(self) -> dict:
        return {**vars(self), "_memo": {}}

    def __repr__(self) -> str:
        """How it was opened: its location, and the snapshot if one was asked for (never its options: secrets)."""
        pinned = f", snapshot_id={self.snapshot.id}" if self.pinned else ""
        return f"PaimonTable({str(self.root)!r}{pinned})"

    def data_schema(self, entry: ManifestEntry) -> Schema:
        """The schema the data file was written with (its columns)."""
        return self._schemas.of(entry)

    def schema_by_id(self, schema_id: int) -> Schema:
        """A schema of the table's branch, read once per table."""
        return self._schemas.by_id(schema_id)

    def _evaluator(self, entry: ManifestEntry, extended: bool) -> FileIndexEvaluator:
        """The evaluator of the file's schema (as ``data_schema`` makes it), one per plan."""
        key = ("evaluator", entry.schema_id, entry.write_cols, extended)
        evaluator = self._memo.get(key)
        if evaluator is None:
            evaluator = self._memo[key] = FileIndexEvaluator(self.data_schema(entry).types(), extended=extended)
        return evaluator

    def parse(self, text: str) -> Predicate:
        return parse_predicate(text, self.schema.types())

    def predicate_of(self, where: str | Predicate) -> Predicate:
        """``where``'s text parsed, or its tree (built in code) with each literal converted to its column's type as
        the text's are: the same predicate either way, or the same refusal."""
        return self.parse(where) if isinstance(where, str) else typed_predicate(where, self.schema.types())

    def scan(self, where: str | Predicate | None = None, columns: Sequence[str] | None = None,
             limit: int | None = None, order_by: str | None = None) -> TableScan:
        """The rows that satisfy ``where`` (all: None), with ``columns`` (all: None), at most ``limit``, in
        ``order_by``'s order (``"ts DESC"``; None: file by file; with ``limit``, the top-N rows)."""
        from fileindex.scan.table_scan import TableScan  # (planning alone does not load the reader)

        return TableScan(self, where, columns, limit, order_by)

    @property
    def data_evolution(self) -> bool:
        return self.schema.flag("data-evolution.enabled", False)

    @property
    def deletion_vectors_enabled(self) -> bool:
        return self.schema.flag("deletion-vectors.enabled", False)

    @property
    def reads_file_index(self) -> bool:
        """Whether a read uses the files' indexes: Paimon's ``file-index.read.enabled`` (a table that says false is
        read by its statistics alone, as Java reads it; ``table --where`` still shows what the indexes say)."""
        return self.schema.flag("file-index.read.enabled", True)

    def live(self, keep_manifest: Callable[[ValueStats | None], bool] | None = None,
             ) -> list[tuple[ManifestEntry, DeletionVector | None]]:
        """The snapshot's live data files, each with its deletion vector (None: no deleted rows);
        ``keep_manifest``: see ``live_files``."""
        entries = live_files(self.store, self.snapshot, keep_manifest)
        vectors = deletion_vectors(self.store, self.snapshot, self.schema)
        return [(entry, vectors.get((entry.partition, entry.bucket, entry.file_name))) for entry in entries]

    def plan(self, predicate: Predicate | str, *, extended: bool = False) -> Iterator[FileVerdict]:
        """Every live data file's verdict from its index (whatever the partition or statistics would prune):
        the planner's file reads, each with the index stage's verdict (``every_verdict``)."""
        parsed = self.predicate_of(predicate)
        yield from ScanPlanner(self, None, every_verdict=True, extended=extended).verdicts_of_each([parsed])[0]

    def plan_many(self, predicates: Sequence[Predicate | str], *,
                  extended: bool = False) -> list[list[FileVerdict]]:
        """``plan`` of each predicate, reading the table's metadata once and each index once: the
        predicates are evaluated together on each container (``FileIndexEvaluator.evaluate_many``)."""
        parsed = [self.predicate_of(p) for p in predicates]
        return ScanPlanner(self, None, every_verdict=True, extended=extended).verdicts_of_each(parsed)

    # -- one file ---------------------------------------------------------------------------------

    def relative(self, entry: ManifestEntry) -> str:
        """The data file's path as reported: relative to the table root, or its external path."""
        return self.store.relative(entry, self.schema)

    def data_path(self, entry: ManifestEntry) -> Path:
        return Path(self.store.data_file(entry, self.schema))

    def data_file_exists(self, entry: ManifestEntry) -> bool:
        return self.store.data_file_exists(entry, self.schema)

    def index_location(self, entry: ManifestEntry) -> tuple[str, bytes | Path | UriPath | None, str]:
        """(where the index lives, its embedded bytes or its sidecar's path, a note on a problem)."""
        if entry.embedded_index is not None:
            return "embedded", entry.embedded_index, ""
        if not entry.index_files:
            return "none", None, ""
        note = self._sidecar_problem(entry)
        if note:
            return "sidecar", None, note
        path = self.store.beside(entry, self.schema, entry.index_files[0])
        if self.store.remote or "://" in path:  # (one HEAD)
            found = self.store.io_of(path).info(path)
            if found is None or found.kind != "file":
                return "sidecar", None, f"index file {entry.index_files[0]} is missing"
            return "sidecar", UriPath(path), ""
        if not os.path.isfile(path):
            return "sidecar", None, f"index file {entry.index_files[0]} is missing"
        return "sidecar", Path(path), ""

    def _sidecar_problem(self, entry: ManifestEntry) -> str:
        """Why a data file's sidecar index cannot be opened ("": it can be)."""
        names = entry.index_files
        if len(names) > 1:
            return f"more than one index file for one data file ({', '.join(names)}), as Java refuses"
        if not self.store.readable(entry):
            return f"index file is on {external_scheme(cast(str, entry.external_path))}:// storage, not readable here"
        refusal = self.store.external_refusal(entry, self.schema)
        return f"index file not read: {refusal}" if refusal else ""

    def container(self, entry: ManifestEntry, predicates: Sequence[Predicate | None] = (),
                  ) -> tuple[str, FileIndexContainer | None, str]:
        """(where the index lives, the opened container, a note on a problem): a sidecar is opened through the
        store (once, a regular file inside the table or an allowed external root); on an object store with the
        bodies ``predicates`` ask for that its first GET holds."""
        if entry.embedded_index is not None:
            return "embedded", FileIndexContainer.from_bytes(entry.embedded_index, source="embedded"), ""
        if not entry.index_files:
            return "none", None, ""
        note = self._sidecar_problem(entry)
        if note:
            return "sidecar", None, note
        name = entry.index_files[0]
        if not self.store.remote:  # (a stat, not a request: a local file opened before is not opened again)
            found = self.store.io.info(self.store.beside(entry, self.schema, name))
            shared = shared_sidecar(found.identity) if found is not None and found.kind == "file" else None
            if shared is not None:  # (opened and checked before, and the file is still that one, not a link)
                return "sidecar", shared, ""
        try:
            opened = self.store.open_beside(entry, self.schema, name)
        except FileNotFoundError:
            return "sidecar", None, f"index file {name} is missing"
        with opened:
            if opened.local_path is None:  # (not a local file: its bytes, kept per identity while it is unchanged)
                return "sidecar", remote_sidecar(opened, self._asked_columns(entry, predicates)), ""
            # mapped from the file as opened (a local file has a descriptor), never opened again by name
            return "sidecar", sidecar_container(cast(BinaryIO, opened), identity=opened.identity, name=opened.name), ""

    def find(self, name: str) -> ManifestEntry | None:
        """The live data file ``name`` designates: its path as ``--indexes`` prints it (relative to the
        root), its file name, its path from the current folder, or the same of its ``.index`` sidecar."""
        if self.store.remote:
            return self._find_on_store(name)
        given = Path(name)
        for entry, _ in self.live():
            data = self.data_path(entry)
            for path in (data, *(data.parent / n for n in entry.extra_files if n.endswith(".index"))):
                if name in (path.name, str(path)) or _same_file(given, path) or _same_file(self.root / given, path):
                    return entry
        return None

    def _find_on_store(self, name: str) -> ManifestEntry | None:
        """:meth:`find` on a store: by name, by the path ``--indexes`` prints, or by the whole URI."""
        wanted = name.removeprefix(f"{self.root}/")
        for entry, _ in self.live():
            relative = self.relative(entry)
            folder = relative.rpartition("/")[0]
            names = [entry.file_name, *(n for n in entry.extra_files if n.endswith(".index"))]
            if wanted in names or wanted in [f"{folder}/{n}" if folder else n for n in names]:
                return entry
        return None

    def _asked_columns(self, entry: ManifestEntry, predicates: Sequence[Predicate | None]) -> frozenset[str]:
        """The data file's own names of the columns ``predicates`` name (matched by field id, as
        ``remap_predicate`` renames them)."""
        if not predicates:
            return frozenset()
        names = {_base(name) for predicate in predicates if predicate is not None for name in columns(predicate)}
        ids = {field.id for field in self.schema.fields if field.name in names}
        return frozenset(field.name for field in self.data_schema(entry).fields if field.id in ids)

    def _index(self, entry: ManifestEntry, predicates: Sequence[Predicate | None] = (),
               ) -> tuple[str, FileIndexContainer | None, str]:
        """(where the index lives, its container, a note on a problem); an embedded index's container is the
        process's shared one (``embedded_container``). Raises what opening a malformed or unreadable one raises."""
        if entry.embedded_index is not None:
            return "embedded", embedded_container(entry.embedded_index), ""
        return self.container(entry, predicates)

    def _open_file(self, entry: ManifestEntry, predicates: Sequence[Predicate | None] = ()) -> OpenedFile:
        """The data file with its index opened, as ``opened`` keeps it."""
        return OpenedFile(self.relative(entry), self.data_file_exists(entry), *self._index(entry, predicates))

    def _evaluate(self, entry: ManifestEntry, predicates: Sequence[Predicate | None], extended: bool,
                  exact: bool = False, opened: OpenedFile | None = None,
                  ) -> tuple[str, list[tuple[FileIndexResult, str]], list[bool]]:
        """(index location, [(result of the container alone, note)] per predicate, whether each result is exact
        (asked for with ``exact``: ``FileIndexEvaluator.evaluate_exact``, else False)); no predicate: REMAIN.
        ``opened``: the file with its index opened already (else it is opened here)."""
        container: FileIndexContainer | None
        try:
            where, container, note = (opened.where, opened.container, opened.note) if opened is not None else \
                self._index(entry)
        except UNREADABLE_INDEX as err:
            where, note = unreadable_index(entry, err)
            return where, [(REMAIN, note)] * len(predicates), [False] * len(predicates)
        answers: list[tuple[FileIndexResult, str]] = [(REMAIN, note)] * len(predicates)
        exactness = [False] * len(predicates)
        if container is None:
            return where, answers, exactness
        data = self.data_schema(entry)
        pending = []  # (position, the predicate in the file's schema)
        lossless = {}  # position → the file's predicate holds on exactly the rows the table's does
        same = data.id == self.schema.id  # (what remap_predicate checks first: most files, no call)
        for j, predicate in enumerate(predicates):
            if predicate is None:
                continue
            remapped = FilePredicate(predicate) if same else remap_predicate(predicate, self.schema, data,
                                                                              absent_as_null=extended)
            if remapped.matches_nothing:
                answers[j] = (SKIP, "a conjunct names a column this file does not have (all null)")
                exactness[j] = True
            elif remapped.predicate is not None:
                pending.append((j, remapped.predicate))
                lossless[j] = remapped.lossless
            exactness[j] = exactness[j] or (remapped.predicate is None and remapped.lossless)  # (all rows match)
        evaluator = self._evaluator(entry, extended)
        if exact:
            for j, remapped_predicate in pending:
                answers[j], exactness[j] = _exact_answer(evaluator, container, remapped_predicate, entry.row_count,
                                                         note, lossless[j])
        elif len(pending) == 1:  # most plans: one predicate, nothing to share between predicates
            j, remapped_predicate = pending[0]
            try:
                answers[j] = (evaluator.evaluate(container, remapped_predicate, row_count=entry.row_count), note)
            except (DecodeError, SchemaMisfitError) as err:
                answers[j] = (REMAIN, index_problem(err))
        else:  # a malformed body answers REMAIN for the predicate that met it; the rest go on
            outcomes = evaluator.evaluate_each(container, [remapped_predicate for _, remapped_predicate in pending],
                                               row_count=entry.row_count)
            for (j, _), outcome in zip(pending, outcomes, strict=True):
                answers[j] = (outcome, note) if isinstance(outcome, FileIndexResult) else \
                    (REMAIN, index_problem(outcome))
        for j, _ in pending:
            if past_rows(answers[j][0], entry.row_count):
                answers[j], exactness[j] = (REMAIN, past_rows_note(answers[j][0], entry.row_count)), False
        return where, answers, exactness

    def verdict(self, entry: ManifestEntry, predicate: Predicate, vector: DeletionVector | None = None, *,
                extended: bool = False, exact: bool = False) -> FileVerdict:
        """One data file's verdict (not for data-evolution groups, whose files are judged together)."""
        return self.verdicts(entry, [predicate], vector, extended=extended, exact=exact)[0]

    def verdicts(self, entry: ManifestEntry, predicates: list[Predicate], vector: DeletionVector | None = None, *,
                 extended: bool = False, exact: bool = False) -> tuple[FileVerdict, ...]:
        """``verdict`` under each predicate, opening the file's index once; ``exact``: each verdict also says
        whether its rows are exactly the matching ones (``FileVerdict.exact``: what a count takes from it). The file
        and its index are opened once per table (``opened``)."""
        opened = self._opened(entry, predicates)
        relative = opened.relative if opened is not None else self.relative(entry)
        if not (opened.exists if opened is not None else self.data_file_exists(entry)):
            where, _, _ = self._evaluate(entry, [], extended)
            return tuple(FileVerdict(relative, entry.row_count, where, REMAIN, missing_note(entry)) for _ in predicates)
        if entry.row_count > MAX_INDEXED_ROWS or (vector is not None and vector.rows is None):
            where, ((_, note),), _ = self._evaluate(entry, [None], extended)
            problem = vector.problem if vector is not None else None
            why = ("more rows than an int" if entry.row_count > MAX_INDEXED_ROWS else
                   f"corrupt deletion vector: {problem}" if problem else "64-bit deletion vector")
            return tuple(FileVerdict(relative, entry.row_count, where, REMAIN, f"index not used: {why}")
                         for _ in predicates)
        where, answers, exactness = self._evaluate(entry, predicates, extended, exact, opened)
        if vector is None or vector.rows is None:  # (a vector without rows returned above)
            return tuple(FileVerdict(relative, entry.row_count, where, within_all(result, entry.row_count), note,
                                     is_exact) for (result, note), is_exact in zip(answers, exactness, strict=True))
        selection = BitMap(range(entry.row_count))
        selection -= vector.rows
        kept = roaring.frozen(selection)
        return tuple(within_live(FileVerdict(relative, entry.row_count, where, result, note, is_exact), kept)
                     for (result, note), is_exact in zip(answers, exactness, strict=True))

    def _opened(self, entry: ManifestEntry, predicates: Sequence[Predicate | None]) -> OpenedFile | None:
        """The file with its index opened (with the bodies ``predicates`` ask for, where that costs no request),
        kept by the table; None where its index cannot be opened (the evaluation meets the same failure and notes
        it)."""
        try:
            return self.opened.of(entry, lambda opening: self._open_file(opening, predicates))
        except UNREADABLE_INDEX:
            return None

    # -- data-evolution groups ------------------------------------------------------------------------

    def _plan_data_evolution(self, entries: list[ManifestEntry], predicate: Predicate,
                             extended: bool) -> Iterator[FileVerdict]:
        parts = conjuncts(predicate)
        for members in row_id_groups(entries, lambda entry: entry).values():
            newest_first = sorted(members, key=lambda e: e.max_sequence_number, reverse=True)
            claimed: set[int] = set()
            verdicts = []
            for entry in newest_first:
                own = {f.id for f in self.data_schema(entry).fields} - claimed
                claimed |= own
                names = {f.name for f in self.schema.fields if f.id in own}
                usable = [c for c in parts if set(_base(n) for n in columns(c)) <= names]
                part = and_(*usable) if usable else None
                where, ((result, note),), _ = self._evaluate(entry, [part], extended)
                verdicts.append((entry, where, result, note))
            group_kept = all(result.remain() for _, _, result, _ in verdicts)
            for entry, where, result, note in verdicts:
                if len(members) == 1:
                    yield FileVerdict(self.relative(entry), entry.row_count, where,
                                      within_all(result, entry.row_count), note)
                else:
                    note = note or ("no index of its group of files rules it out" if group_kept
                                    else "a newer file's index skips the group")
                    yield FileVerdict(self.relative(entry), entry.row_count, where,
                                      REMAIN if group_kept else SKIP, note)


def _latest_schema_id(store: TableStore, *, fetch: bool) -> int:
    """The table's latest schema id (a listing); ``fetch``: its file fetched next, for the read that follows."""
    latest = store.latest_schema_id()
    if fetch:
        store.fetch_ahead(store.schema_file(latest), MAX_JSON_BYTES)
    return latest


_SIDECAR_WEIGHT = 8192  # a remote sidecar's readers, beside the bytes it holds


def remote_sidecar(opened: InputFile, asked: Collection[str] = ()) -> FileIndexContainer:
    """The container of a sidecar opened on a store, with the bodies of the ``asked`` columns (those in the bytes
    the open fetched cost no request more): shared per process by the identity the open gave (URI, size, ETag; a
    shared one takes the asked bodies it lacks from this open), weighed by the bytes it holds, again whenever a later
    query fetches a body more."""
    container = shared_sidecar(opened.identity)
    if container is None:
        container = ranged_container(opened, asked, getattr(opened, "first_held", 0))
        container.readers = {}
        if isinstance(container, RangedContainer):
            container.grew = functools.partial(_reweigh, opened.identity, container)
    elif isinstance(container, RangedContainer) and asked:
        container.keep_bodies(asked, opened)
    held = container.held if isinstance(container, RangedContainer) else container.size
    SIDECARS.put(opened.identity, container, held + _SIDECAR_WEIGHT)
    REMOTE_IDENTITIES.put(opened.name, opened.identity, len(opened.name) + 128)
    return container


def _reweigh(identity: tuple, container: RangedContainer) -> None:
    SIDECARS.reweigh(identity, container, container.held + _SIDECAR_WEIGHT)


def _exact_answer(evaluator: FileIndexEvaluator, container: FileIndexContainer, predicate: Predicate, row_count: int,
                  note: str, lossless: bool) -> tuple[tuple[FileIndexResult, str], bool]:
    """((result, note), exact) of ``evaluate_exact``: exact only where the file's predicate is the table's
    (``lossless``); a body that cannot be read answers REMAIN, not exact."""
    try:
        answer = evaluator.evaluate_exact(container, predicate, row_count=row_count)
    except (DecodeError, SchemaMisfitError) as err:
        return (REMAIN, index_problem(err)), False
    return (answer.result, note), answer.exact and lossless


def _same_file(a: Path, b: Path) -> bool:
    return a.resolve() == b.resolve()


def _base(column: str) -> str:
    return column[: column.index("[")] if column.endswith("]") and "[" in column else column


# an index that cannot be opened: its file is kept (REMAIN) with a note, as Java keeps it; anything else (a sidecar
# leading out of the table, a store refusing the request) stops the command, as it stops a read
UNREADABLE_INDEX = (DecodeError, OSError)


def unreadable_index(entry: ManifestEntry, err: Exception) -> tuple[str, str]:
    """(where the index lives, the note) of a file whose index raised one of ``UNREADABLE_INDEX``."""
    return ("sidecar" if entry.embedded_index is None else "embedded"), f"corrupt index: {err}"


def index_listing(table: PaimonTable) -> Iterator[dict]:
    """One row per live data file, column and index type, like Paimon's ``$file_indexes`` system
    table: where the container lives, its version and size, each payload's size and emptiness.
    Only container heads (version 1) or trailers and footers (version 2) are read."""
    for entry, _ in table.live():
        row = {"file": table.relative(entry), "bucket": entry.bucket, "row_count": entry.row_count}
        if entry.external_path:
            row["external"] = True  # (the file and its sidecar lie under an external path, outside the table)
        try:
            where, container, note = table.container(entry)
        except UNREADABLE_INDEX as err:  # (noted as answering a predicate notes it; a file leading out is refused)
            (where, note), container = unreadable_index(entry, err), None
        row["index"] = where
        if container is None:
            yield {**row, "note": note} if note else row
            continue
        framing = {"version": container.head.version, "container_bytes": container.size}
        with container:
            for index in container:
                yield {**row, **framing, "column": index.column, "index_type": index.index_type,
                       "payload_bytes": max(index.length, 0), "empty": index.is_empty}
