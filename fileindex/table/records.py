"""Checked access to the fields of a decoded metadata record (a JSON object, an Avro or ORC row): a field of
the wrong type is a TableError naming it, never a crash further on."""
from __future__ import annotations

from typing import Any

from fileindex.table.errors import TableError

TypeSpec = type | tuple[type, ...]  # what isinstance takes


def field_of(record: dict, key: str, types: TypeSpec, where: str, *, optional: bool = False) -> Any:
    """``record[key]`` if it has one of ``types`` (a TableError naming the field otherwise)."""
    value = record.get(key) if isinstance(record, dict) else None
    if value is None and optional:
        return None
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in _tuple(types)):
        got = "missing" if value is None else f"a {type(value).__name__}"
        raise TableError(f"{where}: field {key} is {got}, not {_names(types)}")
    return value


def _tuple(types: TypeSpec) -> tuple[type, ...]:
    return types if isinstance(types, tuple) else (types,)


def _names(types: TypeSpec) -> str:
    return " or ".join(t.__name__ for t in _tuple(types))
