"""Paimon's table options for file indexes, parsed as ``FileIndexOptions`` does (spec §2.1, §10).

* ``file-index.<type>.columns = a, b, m[k]`` declares indexes; items are trimmed, a blank item is an
  error; ``m[k]`` is a map-key index column (the map's key type must be CHAR/VARCHAR).
* ``file-index.<type>.<column>.<option> = value``: the key minus its prefix must split on '.' into
  exactly three parts, otherwise it is ignored (so ``file-index.read.enabled`` and
  ``file-index.in-manifest-threshold`` are not index options). An option for an undeclared column is
  an error. For a map column ``m``, ``file-index.<type>.m.<opt>`` applies to every declared key and
  ``file-index.<type>.m[k].<opt>`` overrides it.
* ``file-index.in-manifest-threshold`` (MemorySize, default 500 B): a container of at most this size is
  embedded in the manifest, a larger one is written next to the data file as ``<data file>.index``.
"""
from __future__ import annotations

import difflib
import warnings
from dataclasses import dataclass, field
from collections.abc import Mapping

from fileindex.container.column_order import per_column_types, writer_layout
from fileindex.container.writer import FORMAT_VERSION_OPTION
from fileindex.errors import UsageError
from fileindex.indexes.options import parse_memory_size
from fileindex.types import DataType, column_type

PREFIX = "file-index."
COLUMNS_SUFFIX = ".columns"
THRESHOLD_KEY = "file-index.in-manifest-threshold"
DEFAULT_THRESHOLD = "500 B"
READ_ENABLED_KEY = "file-index.read.enabled"  # (whether reads use the indexes: nothing written depends on it)
GENERAL_KEYS = (THRESHOLD_KEY, READ_ENABLED_KEY, FORMAT_VERSION_OPTION)


class IgnoredOptionWarning(UserWarning):
    """A ``file-index.`` key that Paimon ignores: neither a general key nor ``<type>.<column>.<option>``."""


@dataclass(frozen=True)
class IndexRequest:
    column: str  # container column name (``m[k]`` for a map key)
    index_type: str
    options: dict = field(default_factory=dict)

    @property
    def map_column(self) -> str | None:
        return self.column[: self.column.index("[")] if self.column.endswith("]") and "[" in self.column else None

    @property
    def map_key(self) -> str | None:
        return self.column[self.column.index("[") + 1:-1] if self.map_column else None


@dataclass(frozen=True)
class FileIndexOptions:
    requests: tuple[IndexRequest, ...]  # in the order the options declare them
    in_manifest_threshold: int
    layout: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (column, index types) in Java's file order
    format_version: int = 1  # file-index.format.version: 2 is experimental (Paimon PR #10101)

    def ordered_requests(self) -> list[IndexRequest]:
        """The requests in the order Java's writer lays them out in the container."""
        by_key = {(r.column, r.index_type): r for r in self.requests}
        return [by_key[(column, t)] for column, types in self.layout for t in types]


def unknown_index_type(key: str, index_type: str) -> str:
    """Why ``key`` names no index type, and the one likely meant."""
    from fileindex.indexes.registry import INDEX_TYPES
    from fileindex.tokens import closest_name

    meant = closest_name(index_type, list(INDEX_TYPES))
    return (f"{key}: unknown index type {index_type!r} (known: {', '.join(INDEX_TYPES)})"
            + (f"; did you mean {meant}?" if meant else ""))


def _declarations(options: Mapping[str, str]):
    """(key, index type, column) for each column named by a ``file-index.<type>.columns`` option."""
    from fileindex.indexes.registry import INDEX_TYPES

    for key, value in options.items():
        if key.startswith(PREFIX) and key.endswith(COLUMNS_SUFFIX):
            index_type = key[len(PREFIX):-len(COLUMNS_SUFFIX)]
            if index_type not in INDEX_TYPES:
                raise UsageError(unknown_index_type(key, index_type))
            for item in str(value).split(","):
                column = item.strip()
                if not column:
                    raise UsageError(f"{key}={value!r} has an empty column name: list names separated by commas")
                yield key, index_type, column


def check_schema_free(options: Mapping[str, str]) -> None:
    """Raise what is wrong with ``options`` whatever columns the data files have: an unknown index type,
    an empty column name, an option its index type lacks, a bad format version or threshold. A job over
    many files (``spark build``) checks these once before it starts, rather than failing every file."""
    from fileindex.indexes.options import check_known
    from fileindex.indexes.registry import INDEX_TYPES

    list(_declarations(options))
    for key in options:
        parts = key[len(PREFIX):].split(".") if key.startswith(PREFIX) and not key.endswith(COLUMNS_SUFFIX) else []
        if len(parts) != 3:
            continue
        index_type, _, option = parts
        if index_type not in INDEX_TYPES:
            raise UsageError(unknown_index_type(key, index_type))
        try:
            check_known({option: ""}, INDEX_TYPES[index_type].options, index_type)
        except UsageError as err:
            raise UsageError(f"{key}: {err}") from None
    format_version(options)
    parse_memory_size(options.get(THRESHOLD_KEY, DEFAULT_THRESHOLD), option=THRESHOLD_KEY)


def source_columns(options: Mapping[str, str]) -> list[str]:
    """The data columns the declared indexes read (``m`` for a map-key index ``m[k]``), in order."""
    return list(dict.fromkeys(IndexRequest(column, index_type).map_column or column
                              for _, index_type, column in _declarations(options)))


# Paimon 0.9 to 1.1 key DataFileIndexWriter's maintainers by column: one index type per column (the
# first of its type map: bloom-filter, then bitmap, then bsi); 1.2 (apache/paimon PR #5589) writes them all.
ALL_TYPES_SINCE = (1, 2)
FIRST_WRITER = (0, 9)
LATEST = "latest"
# the Paimon release lines with a file-index writer, to the newest release the project was checked against
RELEASES = ("0.9", "1.0", "1.1", "1.2", "1.3", "1.4", "2.0")


def writer_version(text: str | None) -> tuple[int, int] | None:
    """A Paimon release (``0.9``, ``1.1.1``) as (major, minor); None or ``latest``: the newest writer."""
    import re

    if text is None or text == LATEST:
        return None
    match = re.fullmatch(r"(\d+)\.(\d+)(?:\.\d+)?", text.strip())
    if match is None:
        raise UsageError(f"--writer-version {text}: give a Paimon release such as 0.9, 1.1 or 1.2, or {LATEST}")
    version = (int(match[1]), int(match[2]))
    if version < FIRST_WRITER:
        raise UsageError(f"--writer-version {text}: Paimon 0.9 is the oldest file-index writer reproduced here")
    if f"{version[0]}.{version[1]}" not in RELEASES:
        raise UsageError(f"--writer-version {text}: not a Paimon release; give one of {', '.join(RELEASES)} (a "
                         f"patch release such as 1.1.1 too), or {LATEST}")
    return version


def keys_by_column(writer: str | None) -> bool:
    """Whether the Paimon release ``writer`` writes one index type per column (0.9 to 1.1)."""
    version = writer_version(writer)
    return version is not None and version < ALL_TYPES_SINCE


def one_type_notes(options: Mapping[str, str], writer: str | None) -> list[str]:
    """One line per column that the Paimon release ``writer`` indexes with fewer types than the options
    declare (the words ``build``, ``rewrite`` and ``table --set`` print); none for 1.2 and later."""
    if not keys_by_column(writer):
        return []
    from fileindex.container.column_order import declared_columns

    chosen = per_column_types(options)
    _, types_of = declared_columns(options)
    notes = []
    for column, types in types_of.items():
        kept = chosen[column.name]
        if types != [kept]:
            declared = " and ".join(f"{PREFIX}{t}{COLUMNS_SUFFIX}" for t in types)
            notes.append(f"{column.container_name} is listed in {declared}; Paimon {writer} writes one index type "
                         f"per column: only {kept} for it (Paimon 1.2 and later write each type)")
    return notes


def parse_options(options: Mapping[str, str], schema: dict[str, DataType], *, writer: str | None = None,
                  defaults: Mapping[str, Mapping[str, str]] | None = None) -> FileIndexOptions:
    """The index requests and their container layout, as the Paimon release ``writer`` (default: the
    newest) writes them: below 1.2 one index type per column (:func:`per_column_types`). ``defaults``: per
    index type, options every request of that type takes unless the table sets them (a rewrite's reader
    floor: bitmap version 1 below Paimon 1.1)."""
    from fileindex.indexes.registry import INDEX_TYPES

    declared: dict[tuple[str, str], dict] = {}
    for key, index_type, column in _declarations(options):
        _check_column(column, schema, key)
        declared.setdefault((column, index_type), {})
    general: dict[tuple[str, str], dict] = {}
    specific: dict[tuple[str, str], dict] = {}
    for key, value in options.items():
        if not key.startswith(PREFIX) or key.endswith(COLUMNS_SUFFIX):
            continue
        parts = key[len(PREFIX):].split(".")
        if len(parts) != 3:
            if key not in GENERAL_KEYS:  # Paimon ignores it too (same bytes), but it is likely a typo
                _warn_ignored(key, declared)
            continue
        index_type, column, option = parts
        if index_type not in INDEX_TYPES:
            raise UsageError(unknown_index_type(key, index_type))
        matches = [c for (c, t) in declared if t == index_type and (c == column or c.startswith(column + "["))]
        if not matches:
            raise UsageError(f"{key}: column {column!r} has no {index_type} index; declare it in "
                             f"{PREFIX}{index_type}{COLUMNS_SUFFIX}")
        target = specific if column in (c for c, t in declared if t == index_type) else general
        target.setdefault((column, index_type), {})[option] = str(value)
    requests = []
    for (column, index_type) in declared:
        merged = dict((defaults or {}).get(index_type, {}))
        parent = column[: column.index("[")] if column.endswith("]") and "[" in column else None
        if parent is not None:
            merged.update(general.get((parent, index_type), {}))
        merged.update(specific.get((column, index_type), {}))
        requests.append(IndexRequest(column, index_type, merged))
    per_column = keys_by_column(writer)
    if per_column:
        requests = _one_type_per_column(requests, options, general, specific)
    threshold = parse_memory_size(options.get(THRESHOLD_KEY, DEFAULT_THRESHOLD), option=THRESHOLD_KEY)
    layout = tuple((column, tuple(types)) for column, types in writer_layout(options, per_column=per_column))
    return FileIndexOptions(tuple(requests), threshold, layout, format_version(options))


def _one_type_per_column(requests: list[IndexRequest], options: Mapping[str, str], general: dict,
                         specific: dict) -> list[IndexRequest]:
    """The requests Paimon 0.9 to 1.1 honour: a column's chosen type only; every key of a map column is
    built with the map's chosen type, from that type's options for the map and the key's own options
    under the last type declaring it (each declaration replaces the key's writer)."""
    from fileindex.container.column_order import Column, declared_columns

    chosen = per_column_types(options)
    _, types_of = declared_columns(options)
    kept = []
    for request in requests:
        kind = chosen[request.map_column or request.column]
        if request.map_column is None:
            if request.index_type == kind:
                kept.append(request)
        elif request.index_type == types_of[Column.parse(request.column)][-1]:
            kept.append(IndexRequest(request.column, kind, {**general.get((request.map_column, kind), {}),
                                                            **specific.get((request.column, request.index_type), {})}))
    return kept


def format_version(options: Mapping[str, str]) -> int:
    """The container layout to write: 1 (default) or 2 (experimental, Paimon PR #10101)."""
    text = str(options.get(FORMAT_VERSION_OPTION, "1")).strip()
    if text not in ("1", "2"):
        raise UsageError(f"{FORMAT_VERSION_OPTION}={text!r}: write 1 (the released layout) or 2 (experimental: the "
                         "footer layout of Paimon PR #10101)")
    return int(text)


def _warn_ignored(key: str, declared: dict[tuple[str, str], dict]) -> None:
    from fileindex.indexes.registry import INDEX_TYPES

    parts = key[len(PREFIX):].split(".")
    if len(parts) == 2 and parts[0] in INDEX_TYPES and parts[1] in INDEX_TYPES[parts[0]].options:
        # an index option without its column, e.g. file-index.bloom-filter.items
        columns = [c for (c, t) in declared if t == parts[0]] or ["<column>"]
        closest = [f"{PREFIX}{parts[0]}.{columns[0]}.{parts[1]}"]
    else:
        candidates = list(GENERAL_KEYS) + [f"{PREFIX}{t}{COLUMNS_SUFFIX}" for t in INDEX_TYPES]
        candidates += [f"{PREFIX}{t}.{c}.{o}" for (c, t) in declared for o in INDEX_TYPES[t].options]
        closest = difflib.get_close_matches(key, candidates, n=1, cutoff=0.6)
    hint = f"; did you mean {closest[0]}?" if closest else ""
    warnings.warn(f"option {key} is ignored by Paimon (and here){hint}", IgnoredOptionWarning, stacklevel=3)


def _check_column(column: str, schema: dict[str, DataType], key: str) -> None:
    if column_type(schema, column) is not None:
        return
    if column.endswith("]") and "[" in column:
        parent = schema.get(column[: column.index("[")])
        if parent is None:
            raise UsageError(f"{key}: no column {column[:column.index('[')]!r} in the schema")
        if parent.root != "MAP" or not parent.children[0].is_string:
            raise UsageError(f"{key}: {column!r} indexes a map key, but {column[:column.index('[')]!r} is "
                             f"{parent}, not a MAP with CHAR/VARCHAR keys")
    raise UsageError(f"{key}: no column {column!r} in the schema (columns: {', '.join(schema)})")
