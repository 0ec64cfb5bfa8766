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

from dataclasses import dataclass, field
from typing import Mapping

from .errors import UsageError
from .options import parse_memory_size
from .types import DataType, column_type

PREFIX = "file-index."
COLUMNS_SUFFIX = ".columns"
THRESHOLD_KEY = "file-index.in-manifest-threshold"
DEFAULT_THRESHOLD = "500 B"


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
    requests: tuple[IndexRequest, ...]
    in_manifest_threshold: int


def parse_options(options: Mapping[str, str], schema: dict[str, DataType]) -> FileIndexOptions:
    from .indexes import INDEX_TYPES

    declared: dict[tuple[str, str], dict] = {}
    for key, value in options.items():
        if key.startswith(PREFIX) and key.endswith(COLUMNS_SUFFIX):
            index_type = key[len(PREFIX):-len(COLUMNS_SUFFIX)]
            if index_type not in INDEX_TYPES:
                raise UsageError(f"{key}: unknown index type {index_type!r} (known: {', '.join(INDEX_TYPES)})")
            for item in str(value).split(","):
                column = item.strip()
                if not column:
                    raise UsageError(f"{key}={value!r} has an empty column name: list names separated by commas")
                _check_column(column, schema, key)
                declared.setdefault((column, index_type), {})
    general: dict[tuple[str, str], dict] = {}
    specific: dict[tuple[str, str], dict] = {}
    for key, value in options.items():
        if not key.startswith(PREFIX) or key.endswith(COLUMNS_SUFFIX):
            continue
        parts = key[len(PREFIX):].split(".")
        if len(parts) != 3:
            continue  # not an index option (read.enabled, in-manifest-threshold, ...)
        index_type, column, option = parts
        matches = [c for (c, t) in declared if t == index_type and (c == column or c.startswith(column + "["))]
        if not matches:
            raise UsageError(f"{key}: column {column!r} has no {index_type} index; declare it in "
                             f"{PREFIX}{index_type}{COLUMNS_SUFFIX}")
        target = specific if column in (c for c, t in declared if t == index_type) else general
        target.setdefault((column, index_type), {})[option] = str(value)
    requests = []
    for (column, index_type) in declared:
        merged = {}
        parent = column[: column.index("[")] if column.endswith("]") and "[" in column else None
        if parent is not None:
            merged.update(general.get((parent, index_type), {}))
        merged.update(specific.get((column, index_type), {}))
        requests.append(IndexRequest(column, index_type, merged))
    threshold = parse_memory_size(options.get(THRESHOLD_KEY, DEFAULT_THRESHOLD), option=THRESHOLD_KEY)
    return FileIndexOptions(tuple(requests), threshold)


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
