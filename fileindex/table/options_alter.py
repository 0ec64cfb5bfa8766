"""``ALTER TABLE … SET/RESET`` of table options: ``schema/schema-(N+1)`` as Java's SchemaManager writes it.

The new schema is the latest one with its ``id`` and options changed (``timeMillis`` now), created only if
absent (a concurrent ALTER that took the id wins; the change is re-applied on top of it, bounded).
Keys Java refuses to change on an existing table are refused, and ``file-index.*`` options are parsed
against the table's columns first, so that a typo never reaches a schema.
"""
from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from fileindex.errors import UsageError
from fileindex.table.errors import CommitConflict
from fileindex.table.metadata import load_schema, not_a_table, read_json, schema_ids
from fileindex.writing.atomic import write_atomically

# Options that change what the table's existing files mean (keys, layout, merging): never altered here.
IMMUTABLE = ("path", "bucket", "bucket-key", "primary-key", "partition", "merge-engine", "sequence.field")
MAX_ATTEMPTS = 20


def latest_schema_id(root: Path) -> int:
    ids = schema_ids(root)
    if not ids:
        raise not_a_table(root, "no schema/schema-N file")
    return max(ids)


def check_keys(set_: Mapping[str, str], reset: Iterable[str]) -> None:
    for key in [*set_, *reset]:
        if not key or key != key.strip() or "=" in key:
            raise UsageError(f"option key {key!r} is not an option name: write KEY=VALUE for --set, KEY for --reset")
        if key in IMMUTABLE:
            raise UsageError(f"option {key} changes what the table's existing files mean: not altered here")


def refuse_unset(keys: Iterable[str], options: Mapping[str, str]) -> None:
    """A RESET of an option the table does not hold changes nothing: most likely a misspelt key."""
    import difflib

    for key in keys:
        if key not in options:
            close = difflib.get_close_matches(key, list(options), n=1)
            hint = f"did you mean {close[0]}?" if close else f"its options: {', '.join(sorted(options)) or 'none'}"
            raise UsageError(f"--reset {key}: the table does not set this option; {hint}")


def refuse_ignored_keys(options: Mapping[str, str], types, changes: Mapping[str, str]) -> None:
    """Parse the file-index options as a writer would: a UsageError naming the key for a wrong one, and for a
    key being set that Paimon would ignore (a typo such as ``file-index.bloom-filter.column``). Keys the table
    already held are left alone."""
    import warnings

    from fileindex.writing.options import IgnoredOptionWarning, parse_options

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", IgnoredOptionWarning)
        parse_options(options, types)
    for warning in caught:
        message = str(warning.message)
        if any(message.startswith(f"option {key} is ignored") for key in changes):
            raise UsageError(f"{message}; nothing written")
        warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)


def alter_table_options(root: str | Path, set: Mapping[str, str] | None = None,  # shadows the builtin: Java's word
                        reset: Iterable[str] = ()) -> int | None:
    """Apply SET and RESET to the latest schema's options; the new schema id, or None when nothing changes."""
    root = Path(root)
    changes, removed = dict(set or {}), list(reset)
    check_keys(changes, removed)
    for _ in range(MAX_ATTEMPTS):
        latest = latest_schema_id(root)
        path = root / "schema" / f"schema-{latest}"
        data = read_json(root, path, "schema")
        schema = load_schema(root, latest)
        options = dict(data.get("options") or {})
        refuse_unset(removed, options)
        new = {k: v for k, v in options.items() if k not in removed}
        new.update({k: str(v) for k, v in changes.items()})
        if new == options:
            return None
        refuse_ignored_keys(new, schema.types(), changes)
        data["id"] = latest + 1
        data["options"] = new
        if "timeMillis" in data:
            data["timeMillis"] = int(time.time() * 1000)
        text = json.dumps(data, indent=2, ensure_ascii=False).encode()
        if write_atomically(root / "schema" / f"schema-{latest + 1}", text, overwrite=False):
            return latest + 1
    raise CommitConflict(f"{root}: other writers changed the schema {MAX_ATTEMPTS} times while altering; nothing "
                         "was committed: retry")
