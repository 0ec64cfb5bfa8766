"""Planning a file-index rewrite, and rewriting one data file (rewrite design §1.2, §2.2, §6).

Per file (:func:`rewrite_file`, picklable work for threads or Spark tasks): the options' columns are
mapped to the file's names by field id (columns the file lacks are skipped, as Java does), the
container is built from the data, embedded when at most ``file-index.in-manifest-threshold`` or
written as a sidecar under a fresh name (``<data>.index``, then ``-1.index``, …, never over an existing
file); indexes and types no longer configured disappear with the old container. A file whose entry
would not change (same embedded bytes, or a sidecar with the same bytes) is left alone, so a re-run
with unchanged options commits nothing. The commit is :mod:`fileindex.table.commit`, the whole
run :mod:`fileindex.table.rewrite`.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlparse

from fileindex.errors import FileIndexError, UsageError
from fileindex.java.binary_row import field_stats
from fileindex.table.compat import FLOORS, floor_of, reader_defaults, writer_notes
from fileindex.table.evolution import split_column
from fileindex.table.metadata import (
    Schema,
    Schemas,
    Snapshot,
    TableError,
    live_entries,
    load_schema,
)
from fileindex.table.manifest_entry import ADD, ManifestEntry
from fileindex.table.manifest_entry import INDEX_FILE_SUFFIX as INDEX_SUFFIX
from fileindex.table.manifest_writer import AvroShape, shape_of
from fileindex.table.names import inside, on_store, whole_number
from fileindex.table.orphans import named_files
from fileindex.table.store import BRANCH_PREFIX, MAIN, TableStore
from fileindex.types import DataType
from fileindex.io.atomic import write_atomically
from fileindex.io.locations import UriPath
from fileindex.writing.options import (
    COLUMNS_SUFFIX,
    DEFAULT_THRESHOLD,
    PREFIX,
    THRESHOLD_KEY,
    keys_by_column,
    parse_options,
    writer_version,
)

if TYPE_CHECKING:
    from fileindex.writing.data_file import BuiltContainer

# ------------------------------------------------------------------------------------- names and options

def next_sidecar_name(previous: str | None, data_file_name: str) -> str:
    """Java's DataFilePathFactory: ``<data>.index`` first; after X, the number between X's last '-' and
    last '.' plus one, or ``<X minus .index>-1.index`` when there is none."""
    if previous is None:
        return data_file_name + INDEX_SUFFIX
    dash, dot = previous.rfind("-"), previous.rfind(".")
    number = previous[dash + 1:dot] if 0 <= dash < dot else ""
    if whole_number(number):
        return f"{previous[:dash]}-{int(number) + 1}{previous[dot:]}"
    return f"{previous.removesuffix(INDEX_SUFFIX)}-1{INDEX_SUFFIX}"


def options_for_file(options: Mapping[str, str], table: Schema, data: Schema) -> dict[str, str]:
    """The table's options with every indexed column renamed to the file's name for the same field id;
    columns the file does not have are dropped (Java skips them), and so is a type left without columns."""
    by_name, by_id = table.by_name(), data.by_id()

    def renamed(column: str) -> str | None:
        name, key = split_column(column)
        table_field = by_name.get(name)
        data_field = by_id.get(table_field.id) if table_field is not None else None
        return data_field.name + (key or "") if data_field is not None else None

    out: dict[str, str] = {}
    for key, value in options.items():
        if not key.startswith(PREFIX):
            out[key] = value
        elif key.endswith(COLUMNS_SUFFIX):
            names = [renamed(c.strip()) for c in value.split(",")]
            kept = [n for n in names if n is not None]
            if kept:
                out[key] = ",".join(kept)
        else:
            parts = key[len(PREFIX):].split(".")
            if len(parts) != 3:
                out[key] = value
                continue
            column = renamed(parts[1])
            if column is not None:
                out[f"{PREFIX}{parts[0]}.{column}.{parts[2]}"] = value
    return out


# ------------------------------------------------------------------------------------- one file

@dataclass(frozen=True)
class FileJob:
    """One live data file's rewrite: everything a task needs, picklable for Spark executors."""

    name: str  # as reported: relative to the table root, or the external path
    data_path: str
    table_root: str
    entry: ManifestEntry  # the live ADD entry, as the manifest holds it
    identifier: tuple
    options: dict  # the table's options, in the file's column names, as the floor can read them
    types: dict  # the file's schema: column name -> DataType
    threshold: int
    external: bool = False  # the data file lies under an external path (its sidecar would be written there)
    writer: str | None = None  # the Paimon release whose writer to reproduce (None: the newest)
    defaults: dict = field(default_factory=dict)  # index type -> options the reader floor needs by default
    io: Any = None  # the table's file access on a remote store (None: the local disk); pickled with its options
    named: frozenset = frozenset()  # names in the data file's folder a snapshot or tag names: never written

    def folder(self) -> Path:
        """The data file's folder (a UriPath on a remote store, with the Path operations used here)."""
        if self.io is not None:
            return cast(Path, UriPath(self.data_path).parent)
        return Path(self.data_path).parent

    def root(self) -> str | Path:
        return cast(Path, UriPath(self.table_root)) if self.io is not None else self.table_root


@dataclass(frozen=True)
class FileChange:
    job: FileJob
    new_entry: ManifestEntry | None  # None: the entry would not change
    location: str  # "embedded", "sidecar" or "none" after the rewrite
    old_location: str
    old_bytes: int
    new_bytes: int
    sidecar: str | None = None  # the new sidecar's name
    written: str | None = None  # the sidecar file this run created (absolute)
    advice: tuple[str, ...] = ()  # "column:type verdict: advice" for each index that costs more than it saves

    @property
    def changed(self) -> bool:
        return self.new_entry is not None

    def as_dict(self) -> dict:
        return {"file": self.job.name, "changed": self.changed, "old": self.old_location, "new": self.location,
                "old_bytes": self.old_bytes, "new_bytes": self.new_bytes, "sidecar": self.sidecar,
                "advice": list(self.advice)}


def _old_index(job: FileJob, folder: Path) -> tuple[str, int, list[str]]:
    meta = job.entry
    sidecars = [n for n in meta.extra_files if n.endswith(INDEX_SUFFIX)]
    if meta.embedded_index is not None:
        return "embedded", len(meta.embedded_index), sidecars
    if sidecars:
        path = folder / sidecars[-1]
        if job.io is not None:
            found = job.io.info(str(path))
            return "sidecar", found.size if found is not None else 0, sidecars
        return "sidecar", path.stat().st_size if path.is_file() else 0, sidecars
    return "none", 0, sidecars


def _exists(job: FileJob, path: Path) -> bool:
    return job.io.info(str(path)) is not None if job.io is not None else path.exists()


def build_container(job: FileJob) -> BuiltContainer | None:
    """The file's new container, or None when no configured index applies to its columns."""
    from fileindex.arrow.data_files import DataFileReader
    from fileindex.writing.data_file import build_from_reader

    types: dict[str, DataType] = job.types
    if not parse_options(job.options, types, writer=job.writer, defaults=job.defaults).requests:
        return None
    source = job.data_path if job.io is None else job.io.open_input(job.data_path, within=(job.table_root,),
                                                                     what="data file")
    return build_from_reader(DataFileReader(source), job.options, types, writer=job.writer, defaults=job.defaults)


def rewrite_file(job: FileJob, *, dry_run: bool = False,
                 before_rename: Callable[[Path], None] | None = None) -> FileChange:
    """Build the file's container, write its sidecar if it needs one (not on a dry run), and the new entry."""
    folder = job.folder()
    meta = job.entry
    old_location, old_bytes, old_sidecars = _old_index(job, folder)
    try:
        built = build_container(job)
        container = None if built is None else built.held
    except (FileIndexError, OSError) as err:
        raise TableError(f"{job.name}: cannot build its index: {err}") from None
    embedded, sidecar, written = None, None, None
    if container is not None and len(container) <= job.threshold:
        embedded = container
    elif container is not None:
        previous = old_sidecars[-1] if old_sidecars else None
        if previous is not None and meta.embedded_index is None and len(old_sidecars) == 1 \
                and _same_bytes(folder / previous, container, job):
            sidecar = previous  # the same index already: nothing to do (Java would write it again)
        else:
            sidecar = next_sidecar_name(previous, meta.file_name)
            while True:
                if sidecar in job.named:  # (a tag may name a file that is gone: its name stays its own)
                    pass
                elif dry_run:
                    if not _exists(job, folder / sidecar):
                        break
                elif _write_sidecar(job, folder / sidecar, container, before_rename):
                    written = str(folder / sidecar)
                    break
                sidecar = next_sidecar_name(sidecar, meta.file_name)
    extra_files = tuple(n for n in meta.extra_files if not n.endswith(INDEX_SUFFIX)) + ((sidecar,) if sidecar else ())
    new = replace(job.entry, kind=ADD, extra_files=extra_files, embedded_index=embedded)
    location = "embedded" if embedded is not None else "sidecar" if sidecar else "none"
    return FileChange(job, None if new == job.entry else new, location, old_location, old_bytes,
                      len(container) if container is not None else 0, sidecar, written,
                      _advice(built, meta.file_size) if built is not None else ())


def _advice(built: BuiltContainer, data_bytes: int | None) -> tuple[str, ...]:
    """As ``fileindex build`` advises: each index larger than what it can save on a file of ``data_bytes``, each
    bloom filter sized far from what it holds (judged by the table's options it was built with)."""
    from fileindex.container.file import FileIndexContainer
    from fileindex.indexes.advice import advise_container

    with FileIndexContainer.from_bytes(built.held) as opened:
        return tuple(f"{a.column}:{a.index_type} {a.verdict}: {a.advice}"
                     for a in advise_container(opened, data_bytes=data_bytes, options=built.index_options))


def _same_bytes(path: Path, data: bytes, job: FileJob) -> bool:
    if not job.external:
        inside(job.root(), path, "index file")
    try:
        if job.io is not None:
            return job.io.read_bytes(str(path), limit=len(data), within=(job.table_root,), what="index file") == data
        return path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


def _write_sidecar(job: FileJob, path: Path, data: bytes, before_rename: Callable[[Path], None] | None) -> bool:
    """``write_atomically`` of a new sidecar (False: the name is taken), inside the table unless external."""
    if not job.external:
        inside(job.root(), path.parent, "the data file's folder")
    try:
        if job.io is not None:  # (a conditional create: a name another writer took is never overwritten)
            return job.io.create(str(path), data)
        return write_atomically(path, data, overwrite=False, before_rename=before_rename)
    except OSError as err:
        raise TableError(f"{job.name}: cannot write its index file {path.name}: {err.strerror or err}") from None


# ------------------------------------------------------------------------------------- planning

@dataclass
class RewritePlan:
    store: TableStore  # the table's main branch
    snapshot_id: int
    schema: Schema
    floor: str | None
    mode: str  # "delta" or "fold"
    jobs: list[FileJob] = field(default_factory=list)
    writer: str | None = None  # the Paimon release whose writers the rewrite reproduces (None: the newest)
    notes: list[str] = field(default_factory=list)  # what that writer leaves out of the options (one_type_notes)


def check_location(root: str | Path) -> None:
    """Refuse, before reading anything, storage a rewrite cannot commit to safely."""
    text = str(root)
    scheme = urlparse(text).scheme if "://" in text else ""
    if scheme in ("http", "https"):
        raise UsageError(f"{text}: a REST catalog commits through its server; rewrite writes files and would "
                         "bypass it: not supported")
    if scheme and scheme != "file":
        from fileindex.io.locations import parse_location

        parse_location(text)  # (a scheme nobody reads: one line)
        # an object store commits by conditional create (refused where there is none, unless single-writer)


def check_scope(root: str | Path, schema: Schema) -> None:
    """Refuse, in one line each, the tables a rewrite cannot commit to safely."""
    options = schema.options
    if schema.primary_keys:
        raise UsageError(f"{root}: a primary-key table: Paimon does not use file indexes of primary-key tables "
                         "the way rewrite builds them; only append tables are rewritten")
    for key, what in (("data-evolution.enabled", "a data-evolution table"),
                      ("deletion-vectors.enabled", "a table with deletion vectors")):
        if schema.flag(key, False):
            raise UsageError(f"{root}: {what} ({key}=true): not supported by rewrite")
    if options.get("manifest.format", "avro").lower() != "avro":
        raise UsageError(f"{root}: manifest.format={options['manifest.format']}: rewrite writes Avro manifests "
                         "only, and Java reads every manifest with the current format")


def option_columns(options: Mapping[str, str]) -> list[tuple[str, str]]:
    """(option key, column) for every column a ``file-index.*`` option names: each of ``file-index.<type>.columns``
    (``m`` for a map-key index ``m[k]``) and that of ``file-index.<type>.<column>.<option>``."""
    named = []
    for key, value in options.items():
        if not key.startswith(PREFIX):
            continue
        if key.endswith(COLUMNS_SUFFIX):
            named += [(key, split_column(column.strip())[0]) for column in value.split(",") if column.strip()]
        elif len(parts := key[len(PREFIX):].split(".")) == 3:
            named.append((key, split_column(parts[1])[0]))
    return named


def refuse_missing_columns(root: str | Path, store: TableStore, schema: Schema) -> None:
    """A ``file-index.*`` option naming a column the schema no longer has (Java 0.9's RENAME COLUMN leaves the
    options naming the old name) is refused in one line, naming the column it likely became (the field id
    tells, from the older schemas) and the change that fixes it: rewriting would silently drop that column's
    indexes from every file."""
    by_name, by_id = schema.by_name(), schema.by_id()
    for key, column in option_columns(schema.options):
        if column in by_name:
            continue
        was = next((old.by_name()[column] for old in _older_schemas(store, schema.id) if column in old.by_name()),
                   None)
        now = by_id.get(was.id) if was is not None else None
        what = "no schema of the table has it"
        if was is not None:
            what = f"renamed to {now.name} (field id {was.id})" if now is not None else f"dropped (field id {was.id})"
        raise UsageError(f"{key} names column {column}, which the table's schema (schema-{schema.id}) no longer has: "
                         f"{what}; rewriting now would drop its indexes from every file: "
                         f"{_option_fix(root, key, schema.options[key], column, now.name if now else None)}")


def _option_fix(root: str | Path, key: str, value: str, column: str, renamed: str | None) -> str:
    """The ``fileindex table`` command that makes ``key`` name ``renamed`` for ``column`` (None: no column)."""
    if not key.endswith(COLUMNS_SUFFIX):
        if renamed is None:
            return f"fileindex table {root} --reset {key}"
        index_type, _, option = key[len(PREFIX):].split(".")
        return f"fileindex table {root} --set {PREFIX}{index_type}.{renamed}.{option}={value} --reset {key}"
    kept = []
    for item in (c.strip() for c in value.split(",")):
        name, map_key = split_column(item)
        if name != column:
            kept.append(item)
        elif renamed is not None:
            kept.append(renamed + (map_key or ""))
    return f"fileindex table {root} --set {key}={','.join(kept)}" if kept else f"fileindex table {root} --reset {key}"


def _older_schemas(store: TableStore, schema_id: int) -> list[Schema]:
    """The schemas before ``schema_id``, the newest first."""
    return [load_schema(store, i) for i in sorted(store.schema_ids(), reverse=True) if i < schema_id]


def manifest_shapes(store: TableStore, snapshot: Snapshot) -> tuple[AvroShape | None, AvroShape]:
    """(a manifest's shape, the delta list's shape) of the snapshot: the widest its writer used."""
    from fileindex.table.metadata import manifest_list_names

    list_shape = shape_of(store, store.manifest_file(snapshot.delta_manifest_list), "manifest list")
    entry_shape = None
    for listing in (snapshot.delta_manifest_list, snapshot.base_manifest_list):
        names = manifest_list_names(store, store.manifest_file(listing))
        if names:
            entry_shape = shape_of(store, store.manifest_file(names[-1]), "manifest")
            break
    return entry_shape, list_shape


def parse_partitions(text: str | None, schema: Schema) -> list[dict[str, str]] | None:
    """``k=v[,k=v][;…]`` (Java's procedure argument) → partition specs; None for all partitions."""
    if not text:
        return None
    specs = []
    for part in text.split(";"):
        spec = {}
        for pair in part.split(","):
            key, sep, value = pair.partition("=")
            if not schema.partition_keys:
                raise UsageError(f"--partition {text!r}: the table is not partitioned; leave --partition out")
            if not sep or key.strip() not in schema.partition_keys:
                raise UsageError(f"--partition {text!r}: {pair.strip()!r} is not KEY=VALUE over the partition keys "
                                 f"({', '.join(schema.partition_keys) or 'the table has none'})")
            spec[key.strip()] = value.strip()
        specs.append(spec)
    return specs


def _in_partitions(entry: ManifestEntry, schema: Schema, specs: list[dict[str, str]] | None) -> bool:
    if specs is None:
        return True
    from fileindex.java.binary_row import partition_path

    values = dict(part.split("=", 1) for part in partition_path(entry.partition, schema).split("/"))
    return any(all(values.get(k) == v for k, v in spec.items()) for spec in specs)


def detect_floor(store: TableStore, snapshot: Snapshot) -> str:
    """The oldest Paimon that must read the table, from the shape of the snapshot's newest manifests
    (:func:`fileindex.table.compat.floor_of`); it is also the release whose writers wrote them."""
    entry_shape, list_shape = manifest_shapes(store, snapshot)
    if entry_shape is None and "_MIN_BUCKET" not in list_shape.field_names():
        return "0.9"  # no manifest to tell 0.9 from 1.0: assume the older
    return floor_of(entry_shape.field_names("_FILE") if entry_shape else {"_VALUE_STATS_COLS"},
                    list_shape.field_names())


def alter_warnings(root: str | Path, branch: str | None = None) -> tuple[str | None, list[str]]:
    """After an ALTER (of ``branch``): the words the next rewrite refuses the options with (None: it accepts
    them), and what the table's Java writers cannot honour (:func:`writer_notes`), as rewrite prints them."""
    from fileindex.table.metadata import load_snapshot

    store = TableStore.at(root, branch)
    options = load_schema(store, store.latest_schema_id()).options
    if not store.snapshot_ids():
        return None, []  # no files yet: nothing to rewrite, no writer known
    floor = detect_floor(store, load_snapshot(store))  # (the manifests are the table's, shared)
    notes = writer_notes(options, floor, writer_of(floor))
    if branch not in (None, MAIN):
        return branch_refusal(branch), notes
    try:
        reader_defaults(options, floor)
    except UsageError as err:
        return str(err), notes
    return None, notes


def appends_broken_by(root: str | Path, branch: str | None, changes: Mapping[str, str]) -> list[str]:
    """What setting ``changes`` would make every append of the table's Java writers fail on (an index type
    newer than the release that wrote its manifests), one line per option; none for a table without files."""
    from fileindex.table.compat import unwritable_types
    from fileindex.table.metadata import load_snapshot

    store = TableStore.at(root, branch)
    if not store.snapshot_ids():
        return []
    return unwritable_types(changes, detect_floor(store, load_snapshot(store)))


def branch_refusal(branch: str) -> str:
    return (f"--branch {branch}: rewrite commits to the main branch only; branch {branch}'s snapshots (under "
            f"branch/{BRANCH_PREFIX}{branch}/) are not rewritten here")


def writer_of(floor: str) -> str | None:
    """The writer a table's manifest shape implies: 0.9 and 1.0 manifests were written by Paimon 0.9 or
    1.0, which write one index type per column; a 1.1 shape may be 1.1 (one type) or 1.2 (every type) and
    is taken as the newest, which drops no declared index (``--writer-version 1.1`` says otherwise)."""
    return floor if keys_by_column(floor) and floor != "1.1" else None


def writer_version_text(text: str) -> str | None:
    """``--writer-version``: a Paimon release, or ``latest`` (None)."""
    try:
        return None if writer_version(text) is None else text
    except UsageError as err:
        raise UsageError(f"{err} (or auto: the release the table's manifests name)") from None


def plan_rewrite(root: str | Path, *, partitions: str | None = None, mode: str = "auto",
                 compat: str = "auto", allow_external: bool = False, writer: str = "auto",
                 branch: str | None = None) -> RewritePlan:
    """The table's live files to rewrite, each a picklable job. Files under external paths are refused
    unless ``allow_external``: their new sidecars would be written there, outside the table. ``writer``:
    the Paimon release whose writers to reproduce; ``auto``: the one the manifests' shape names when it
    writes one index type per column (0.9, 1.0), else the newest (see :func:`writer_of`). ``branch``: only
    the main branch is rewritten; any other is refused in one line (:func:`branch_refusal`)."""
    from fileindex.table.metadata import load_snapshot

    check_location(root)
    if branch not in (None, MAIN):
        TableStore.at(root, branch)  # (no such branch: named as such)
        raise UsageError(branch_refusal(branch))
    store = TableStore.at(root)
    table_root = store.root
    schema = load_schema(store, store.latest_schema_id())
    check_scope(root, schema)
    refuse_missing_columns(root, store, schema)
    snapshot = load_snapshot(store)
    detected = detect_floor(store, snapshot)
    if compat not in ("auto", "none", *FLOORS):
        raise UsageError(f"--compat {compat}: choose auto, none or a Paimon version ({', '.join(FLOORS)})")
    floor = detected if compat == "auto" else None if compat == "none" else compat
    if mode not in ("auto", "delta", "fold"):
        raise UsageError(f"--mode {mode}: choose auto, delta or fold")
    chosen = ("fold" if detected == "0.9" else "delta") if mode == "auto" else mode
    defaults = reader_defaults(schema.options, floor)
    options = {**schema.options}
    options.setdefault("path", str(table_root))  # as Java's table options hold it (their keys order containers)
    chosen_writer = writer_of(detected) if writer == "auto" else writer_version_text(writer)
    threshold_text = schema.options.get(THRESHOLD_KEY, DEFAULT_THRESHOLD)
    threshold = parse_options({THRESHOLD_KEY: threshold_text}, {}).in_manifest_threshold
    schemas = Schemas(store, schema)
    specs = parse_partitions(partitions, schema)
    plan = RewritePlan(store, snapshot.id, schema, floor, chosen, writer=chosen_writer,
                       notes=writer_notes(options, detected, chosen_writer))
    named: dict[str, set[str]] = {}  # folder -> the names in it a snapshot or tag names
    for named_path in named_files(store):
        named.setdefault(str(named_path.parent), set()).add(named_path.name)
    for entry in live_entries(store, snapshot):
        if not _in_partitions(entry, schema, specs):
            continue
        data = schemas.of(entry)
        file_options = options_for_file(options, schema, data)
        name, path = store.relative(entry, schema), store.data_file(entry, schema)
        if not entry.external_path:
            store.data_file_exists(entry, schema)  # (refuses a data file that is a symlink out of the table)
        elif not allow_external:
            raise UsageError(f"{name}: a data file under an external path, outside the table: rewrite would write "
                             "its index file beside it; pass --allow-external-paths to write there")
        elif on_store(entry.external_path):
            raise UsageError(f"{name}: a data file under an external path on an object store: rewrite does not write "
                             "index files there (it only reads them): not supported")
        job = FileJob(name, str(path), str(table_root), entry, entry.identifier, file_options, data.types(), threshold,
                      bool(entry.external_path), chosen_writer, defaults, store.io if store.remote else None)
        plan.jobs.append(replace(job, named=frozenset(named.get(str(job.folder()), ()))))
    if plan.jobs and schema.partition_keys:  # partition types the manifests' statistics cannot hold: refuse now
        field_stats([plan.jobs[0].entry.partition], [schema.by_name()[k].type for k in schema.partition_keys])
    return plan
