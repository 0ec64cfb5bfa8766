"""``ALTER TABLE … SET/RESET`` of table options: ``schema/schema-(N+1)`` as Java's SchemaManager writes it.

The new schema is the latest one with its ``id`` and options changed (``timeMillis`` now), created only if
absent (a concurrent ALTER that took the id wins; the change is re-applied on top of it, bounded).
Keys Java refuses to change on an existing table are refused, and ``file-index.*`` options are parsed
against the table's columns first, so that a typo never reaches a schema. Dropping an index takes its
per-column options (``file-index.<type>.<column>.<option>``) with it: ``--drop-index TYPE[:COLUMN]``, or a
RESET of ``file-index.<type>.columns``; the keys so removed are reported.
"""
from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from fileindex.errors import UnsupportedTypeError, UsageError
from fileindex.table.errors import CommitConflict
from fileindex.table.metadata import BOOLEAN_OPTIONS, boolean_option, load_schema, read_json
from fileindex.table.store import TableStore
from fileindex.types import DataType, column_type
from fileindex.writing.options import COLUMNS_SUFFIX, PREFIX, FileIndexOptions

# Options that change what the table's existing files mean (keys, layout, merging): never altered here.
IMMUTABLE = ("path", "bucket", "bucket-key", "primary-key", "partition", "merge-engine", "sequence.field")
MAX_ATTEMPTS = 20


def check_keys(set_: Mapping[str, str], reset: Iterable[str]) -> None:
    for key in [*set_, *reset]:
        if not key or key != key.strip() or "=" in key:
            raise UsageError(f"option key {key!r} is not an option name: write KEY=VALUE for --set, KEY for --reset")
        if key in IMMUTABLE:
            raise UsageError(f"option {key} changes what the table's existing files mean: not altered here")
    for key, value in set_.items():
        if key in BOOLEAN_OPTIONS and boolean_option(value) is None:
            raise UsageError(f"--set {key}={value}: not a boolean: write true or false")


def refuse_unset(keys: Iterable[str], options: Mapping[str, str]) -> None:
    """A RESET of an option the table does not hold changes nothing: most likely a misspelt key."""
    import difflib

    for key in keys:
        if key not in options:
            close = difflib.get_close_matches(key, list(options), n=1)
            hint = f"did you mean {close[0]}?" if close else f"its options: {', '.join(sorted(options)) or 'none'}"
            raise UsageError(f"--reset {key}: the table does not set this option; {hint}")


def refuse_ignored_keys(options: Mapping[str, str], types: dict[str, DataType],
                        changes: Mapping[str, str]) -> FileIndexOptions:
    """Parse the file-index options as a writer would: a UsageError naming the key for a wrong one, and for a
    key being set that Paimon would ignore (a typo such as ``file-index.bloom-filter.column``). Keys the table
    already held are left alone. The options parsed."""
    import warnings

    from fileindex.writing.options import IgnoredOptionWarning, parse_options

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", IgnoredOptionWarning)
        parsed = parse_options(options, types)
    for warning in caught:
        message = str(warning.message)
        if any(message.startswith(f"option {key} is ignored") for key in changes):
            raise UsageError(message)
        warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
    return parsed


def refuse_unwritable(parsed: FileIndexOptions, types: dict[str, DataType], changes: Mapping[str, str]) -> None:
    """Refuse an index the change declares or tunes that its writer refuses: a type it does not support (bsi on a
    STRING column) or an option value (``fpp=abc``), which the next ``rewrite`` would fail on at its first file."""
    from fileindex.indexes.registry import INDEX_TYPES, refused_type

    touched = {key[len(PREFIX):].split(".")[0] for key in changes if key.startswith(PREFIX)}
    for request in parsed.requests:
        check = INDEX_TYPES[request.index_type].check_writable
        if request.index_type not in touched or check is None:
            continue
        data_type = column_type(types, request.column)
        try:
            check(data_type, request.options)
        except UnsupportedTypeError as err:
            raise UsageError(f"{PREFIX}{request.index_type}{COLUMNS_SUFFIX} lists {request.column}: "
                             f"{refused_type(err, data_type)}") from None
        except UsageError as err:
            raise UsageError(f"{PREFIX}{request.index_type}{COLUMNS_SUFFIX} lists {request.column}: {err}") from None


@contextmanager
def nothing_written() -> Iterator[None]:
    """A refusal of the change (a UsageError) says that no schema was written."""
    try:
        yield
    except UsageError as err:
        raise UsageError(f"{err}; nothing written") from None


@dataclass
class Altered:
    schema_id: int | None  # the new schema, None when nothing changed
    removed: list[str] = field(default_factory=list)  # per-column options removed with their index


def _option_target(key: str) -> tuple[str, str] | None:
    """(index type, column) of ``file-index.<type>.<column>.<option>``; None for any other key."""
    if not key.startswith(PREFIX) or key.endswith(COLUMNS_SUFFIX):
        return None
    parts = key[len(PREFIX):].split(".")
    return (parts[0], parts[1]) if len(parts) == 3 else None


def _declared(options: Mapping[str, str], index_type: str) -> list[str]:
    value = options.get(f"{PREFIX}{index_type}{COLUMNS_SUFFIX}")
    return [c.strip() for c in value.split(",")] if value is not None else []


def _covers(columns: list[str], column: str) -> bool:
    """Whether an option for ``column`` applies to one of ``columns`` (a map column's options to its keys)."""
    return any(c == column or c.startswith(column + "[") for c in columns)


def drop_index(options: Mapping[str, str], spec: str) -> dict[str, str | None]:
    """``--drop-index TYPE[:COLUMN]``: the option changes (None: remove the key) that drop the index type
    from COLUMN (every column without one), with the per-column options left without an index."""
    index_type, _, column = spec.partition(":")
    columns_key = f"{PREFIX}{index_type}{COLUMNS_SUFFIX}"
    declared = _declared(options, index_type)
    if not declared:
        present = sorted({k[len(PREFIX):-len(COLUMNS_SUFFIX)] for k in options
                          if k.startswith(PREFIX) and k.endswith(COLUMNS_SUFFIX)})
        raise UsageError(f"--drop-index {spec}: the table declares no {index_type} index ({columns_key} is not set); "
                         f"its index types: {', '.join(present) or 'none'}")
    if column and column not in declared:
        raise UsageError(f"--drop-index {spec}: {columns_key} does not list {column} (it lists {', '.join(declared)})")
    kept = [c for c in declared if column and c != column]
    changes: dict[str, str | None] = {columns_key: ",".join(kept) if kept else None}
    for key in options:
        target = _option_target(key)
        if target and target[0] == index_type and not _covers(kept, target[1]):
            changes[key] = None
    return changes


def _orphaned_options(new: Mapping[str, str], changes: Mapping[str, str]) -> None:
    """Refuse per-column options the change leaves without their index, pointing at ``--drop-index``."""
    for key in new:
        target = _option_target(key)
        if target is None or key in changes or _covers(_declared(new, target[0]), target[1]):
            continue
        index_type, column = target
        raise UsageError(f"{key} is an option of the {index_type} index on {column}, which this change no longer "
                         f"declares: --drop-index {index_type}:{column} drops the index with its options "
                         f"(or --reset {key} as well)")


def _type_options(options: Mapping[str, str], index_type: str) -> list[str]:
    """The per-column option keys of an index type (``file-index.<type>.<column>.<option>``)."""
    return [key for key in options if (_option_target(key) or ("",))[0] == index_type]


def _apply(options: dict[str, str], changes: Mapping[str, str], removed: list[str],
           drops: Iterable[str]) -> tuple[dict[str, str], list[str]]:
    """The new options, and the per-column keys removed with an index (beyond the keys reset)."""
    new = {k: v for k, v in options.items() if k not in removed}
    new.update({k: str(v) for k, v in changes.items()})
    cascaded: list[str] = []
    for key in removed:  # a RESET of a columns key drops that type's per-column options too
        if key.startswith(PREFIX) and key.endswith(COLUMNS_SUFFIX) and key not in changes:
            cascaded += [k for k in _type_options(new, key[len(PREFIX):-len(COLUMNS_SUFFIX)]) if k not in changes]
    for spec in drops:
        columns_key = f"{PREFIX}{spec.partition(':')[0]}{COLUMNS_SUFFIX}"
        for key, value in drop_index(new, spec).items():
            if value is not None:
                new[key] = value
            elif key != columns_key:
                cascaded.append(key)
            else:
                del new[key]
    for key in cascaded:
        new.pop(key, None)
    _orphaned_options(new, changes)
    return new, list(dict.fromkeys(cascaded))


def alter_table(root: str | Path, set: Mapping[str, str] | None = None,  # shadows the builtin: Java's word
                reset: Iterable[str] = (), drop: Iterable[str] = (), branch: str | None = None) -> Altered:
    """Apply SET, RESET and ``drop`` (``TYPE[:COLUMN]`` index drops) to the latest schema's options: of the
    table's main branch, or of ``branch`` (its schemas are under ``branch/branch-NAME/schema/``)."""
    store = TableStore.at(root, branch)
    changes, removed, drops = dict(set or {}), list(reset), list(drop)
    with nothing_written():
        check_keys(changes, removed)
    for _ in range(MAX_ATTEMPTS):
        latest = store.latest_schema_id()
        data = read_json(store, store.schema_file(latest), "schema")
        schema = load_schema(store, latest)
        options = dict(data.get("options") or {})
        with nothing_written():
            refuse_unset(removed, options)
            new, cascaded = _apply(options, changes, removed, drops)
            if new == options:
                return Altered(None)
            types = schema.types()
            refuse_unwritable(refuse_ignored_keys(new, types, changes), types, changes)
        data["id"] = latest + 1
        data["options"] = new
        if "timeMillis" in data:
            data["timeMillis"] = int(time.time() * 1000)
        text = json.dumps(data, indent=2, ensure_ascii=False).encode()
        if store.link(store.schema_file(latest + 1), text):
            return Altered(latest + 1, cascaded)
    raise CommitConflict(f"{store.meta}: other writers changed the schema {MAX_ATTEMPTS} times while altering; nothing "
                         "was committed: retry")


def alter_table_options(root: str | Path, set: Mapping[str, str] | None = None,  # shadows the builtin: Java's word
                        reset: Iterable[str] = (), drop: Iterable[str] = (), branch: str | None = None) -> int | None:
    """Apply SET, RESET and index drops to the latest schema's options; the new schema id, or None when
    nothing changes (:func:`alter_table` also reports the options removed with an index)."""
    return alter_table(root, set, reset, drop, branch).schema_id
