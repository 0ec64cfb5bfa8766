"""Build the container Paimon's ``DataFileIndexWriter`` writes for one data file (spec §1, §3, §10).

Every requested (column, index type) gets its index over the column's values in row order;
a map-key index ``m[k]`` gets each row's value for key k (null when the map is null or lacks the
key). Columns are laid out in the order Java's writer gives them (:mod:`fileindex.container.column_order`).
A container of at most the in-manifest threshold is embedded in the manifest, a larger one becomes
``<data file>.index``.
"""
from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO

import pyarrow as pa

from fileindex.arrow.maps import map_values
from fileindex.arrow.types import conform
from fileindex.container.writer import Entry, stream_container
from fileindex.errors import UnsupportedTypeError, UsageError
from fileindex.io import InputFile
from fileindex.indexes.registry import INDEX_TYPES, refused_type
from fileindex.types import DataType, column_type, map_of
from fileindex.writing.options import (
    FileIndexOptions,
    PREFIX,
    IndexRequest,
    parse_options,
    source_columns,
)


@dataclass(frozen=True)
class BuiltContainer:
    data: bytes | None  # None when the container was streamed to an output
    size: int
    row_count: int
    requests: tuple[IndexRequest, ...]
    in_manifest_threshold: int
    version: int = 1

    @property
    def held(self) -> bytes:
        """The container's bytes, of a build that was not streamed to an output."""
        if self.data is None:
            raise UsageError("the container was streamed to its output: its bytes are not held")
        return self.data

    @property
    def index_options(self) -> dict[tuple[str, str], dict]:
        """Each index's options by (column, index type): what its advice judges it by (``indexes.advice``)."""
        return {(r.column, r.index_type): r.options for r in self.requests}

    @property
    def embedded(self) -> bool:
        """Paimon embeds a container of at most the threshold in the manifest (strictly greater: a file)."""
        return self.size <= self.in_manifest_threshold


def index_values(column: pa.ChunkedArray, request: IndexRequest) -> pa.ChunkedArray:
    """What the request's index writer receives per row: the column, or each map's value for the key."""
    if request.map_column is None:
        return column
    return map_values(column, request.map_key)


def index_entries(read_column: Callable[[str], pa.ChunkedArray], row_count: int, schema: dict[str, DataType],
                  options: FileIndexOptions) -> Iterator[Entry]:
    """(column, index type, payload) in Java's file order, each payload built when it is needed.

    A source column is read once and kept only until the last index that reads it is built.
    """
    requests = options.ordered_requests()
    uses = Counter(r.map_column or r.column for r in requests)
    columns: dict[str, pa.ChunkedArray] = {}
    for request in requests:
        source = request.map_column or request.column
        if source not in columns:
            columns[source] = conform(read_column(source), schema[source], source)
        if request.map_column is not None and row_count == 0:
            payload = None  # a map-key writer that saw no record: EMPTY entry
        else:
            payload = _built(request, index_values(columns[source], request), column_type(schema, request.column))
        uses[source] -= 1
        if not uses[source]:
            del columns[source]
        yield request.column, request.index_type, payload


def _misspelt_prefix(table_options: Mapping[str, str]) -> str:
    """``; did you mean file-index.X?`` for an option whose prefix is file-index. misspelt (fileindex., file_index.)."""
    for key in table_options:
        head, dot, rest = key.partition(".")
        if dot and not key.startswith(PREFIX) and head.lower().replace("-", "").replace("_", "") == "fileindex":
            return f"; {key} is no Paimon option: did you mean {PREFIX}{rest}?"
    return ""


def _built(request, values, data_type: DataType | None) -> bytes:
    """The request's payload; a type its writer refuses is told with the index types that take it."""
    try:
        return INDEX_TYPES[request.index_type].build(values, data_type, request.options)
    except UnsupportedTypeError as err:
        raise UnsupportedTypeError(f"column {request.column}: {refused_type(err, data_type)}") from None


def build_index(read_column: Callable[[str], pa.ChunkedArray], row_count: int, schema: dict[str, DataType],
                options: FileIndexOptions, out: BinaryIO | None = None) -> BuiltContainer:
    """Build every requested index into a container: in memory, or streamed to ``out`` (a version-2
    container then holds one payload in memory at a time)."""
    memory = io.BytesIO()
    target = out if out is not None else memory
    size = stream_container(target, index_entries(read_column, row_count, schema, options),
                            version=options.format_version)
    data = memory.getvalue() if out is None else None
    return BuiltContainer(data, size, row_count, options.requests, options.in_manifest_threshold,
                          options.format_version)


def build_table_index(table: pa.Table, schema: dict[str, DataType], options: FileIndexOptions) -> BuiltContainer:
    return build_index(table.column, table.num_rows, schema, options)


def build_data_file_index(path: str | Path | InputFile, table_options: Mapping[str, str],
                          schema_override: dict[str, DataType] | None = None,
                          out: BinaryIO | None = None, *, writer: str | None = None) -> BuiltContainer:
    """Read only the indexed columns of a Parquet or ORC data file (a path, a store's URI or a file opened
    through a store) and build its container.

    The indexed columns' types come from the file (Arrow → Paimon); ``schema_override`` replaces the
    types of the columns it names. Columns no index reads are never typed, so they may hold
    anything (unsigned integers, nulls, durations). ``writer``: the Paimon release whose writer to
    reproduce (default the newest; below 1.2 one index type per column).
    """
    from fileindex.arrow.data_files import DataFileReader

    reader = DataFileReader(path)
    return build_from_reader(reader, table_options, indexed_schema(reader, table_options, schema_override or {}), out,
                             writer=writer)


def indexed_schema(reader, table_options: Mapping[str, str], override: dict[str, DataType]) -> dict[str, DataType]:
    """Paimon types of the columns the options index: ``override``'s, else the file's Arrow types'."""
    from fileindex.arrow.types import paimon_type

    names = reader.arrow_schema.names
    refuse_unknown_override(reader, override)
    schema = {}
    for name in source_columns(table_options):
        if name in override:
            schema[name] = override[name]
        elif name not in names:
            raise UsageError(f"{reader.path}: the options ask for an index on column {name!r}, which the file "
                             f"does not have{_meant(name, names)}")
        else:
            field = reader.arrow_schema.field(name)
            schema[name] = paimon_type(field.type, nullable=field.nullable, column=name)
    return schema


def _meant(name: str, names: list[str]) -> str:
    """`` (did you mean N? its columns: ...)``: the name likely meant, as ``query`` finds it, and the file's columns."""
    from fileindex.tokens import closest_name

    close = closest_name(name, names)
    return f" ({f'did you mean {close}? ' if close else ''}its columns: {', '.join(names)})"


def refuse_unknown_override(reader, override: Mapping[str, DataType]) -> None:
    """A ``--schema`` may name only the file's columns."""
    names = reader.arrow_schema.names
    unknown = [name for name in override if name not in names]
    if unknown:
        raise UsageError(f"--schema names {', '.join(map(repr, unknown))}, which {reader.path} does not have "
                         f"(its columns: {', '.join(names)})")


def imprecise_timestamps(reader, columns: Iterable[str], override: Mapping[str, DataType]) -> dict[str, str]:
    """Which of ``columns`` (container columns: ``m[k]`` for a map's values) hold timestamps typed from an ORC
    file, whose timestamps hold no precision (read as TIMESTAMP(9)): a table's TIMESTAMP(p) is keyed by
    milliseconds for p <= 3 and microseconds for p <= 6, so an index built or checked with the file's type
    answers for another type than the table's. Each with the ``--schema`` entry that would give it a table's
    TIMESTAMP(3)."""
    if reader.format != "orc":
        return {}
    types = reader.types()
    found = {}
    for name in columns:
        data_type = column_type(types, name)
        if data_type is None or not data_type.is_timestamp or column_type(override, name) is not None:
            continue
        precise = replace(data_type, precision=3)
        in_map = map_of(types, name)
        if in_map is None:
            found[name] = f"{name} {precise}"
        else:  # --schema types the whole map
            base, map_type = in_map
            found[name] = f"{base} {replace(map_type, children=(map_type.children[0], precise))}"
    return found


def imprecise_timestamps_warning(command: str, columns: Mapping[str, str]) -> str:
    shown = ", ".join(columns) + (" is" if len(columns) == 1 else " are")
    return (f"fileindex {command}: ORC records no timestamp precision, so {shown} typed TIMESTAMP(9); "
            f"for a Paimon table's file give its types, e.g. --schema \"{next(iter(columns.values()))}\"")


def build_from_reader(reader, table_options: Mapping[str, str], schema: dict[str, DataType],
                      out: BinaryIO | None = None, *, writer: str | None = None,
                      defaults: Mapping[str, Mapping[str, str]] | None = None) -> BuiltContainer:
    """Build from an opened :class:`fileindex.arrow.data_files.DataFileReader`, one source column at a time,
    as the Paimon release ``writer`` does (default: the newest); ``defaults``: see :func:`parse_options`."""
    options = parse_options(table_options, schema, writer=writer, defaults=defaults)
    if not options.requests:
        raise UsageError("no index requested: set file-index.<type>.columns, e.g. "
                         f"--option file-index.bloom-filter.columns=id{_misspelt_prefix(table_options)}")
    names = list(dict.fromkeys(r.map_column or r.column for r in options.requests))
    missing = [n for n in names if n not in reader.arrow_schema.names]
    if missing:
        raise UsageError(f"{reader.path}: no column {', '.join(map(repr, missing))} in the data file")
    return build_index(reader.column, reader.row_count, schema, options, out)
