"""The object tree a Kaitai debug reader builds, walked in one place.

A generated reader compiled in debug mode records in ``_debug`` where each field started and, once
read, where it ended (a repeated field: each element too). This module turns those records into
absolute positions and spec paths: :func:`finished_values` lists every field read to its end (for
``explain``), :func:`failure_point` finds the field being read when reading stopped (for errors).
"""
from __future__ import annotations

import inspect
from collections.abc import Iterator
from itertools import chain
from typing import Any, NamedTuple

import kaitaistruct
from kaitaistruct import KaitaiStruct


class Recorded(NamedTuple):
    """A field (or ``pos`` instance) the debug reader started to read."""

    parent: KaitaiStruct
    path: str  # spec path; an element of a repeated field ends in ``[i]``
    start: int  # absolute
    end: int | None  # absolute; None: being read when reading stopped
    value: Any  # what was read (a repeated field: the list); the generated readers are untyped
    base: int  # where a struct value counts its own positions from
    items: tuple[Recorded, ...] | None  # a repeated field's elements as far as they were started

    @property
    def length(self) -> int:
        """Bytes read so far: to the end, or none for a field being read."""
        return 0 if self.end is None else self.end - self.start

    @property
    def finished(self) -> tuple[Recorded, ...]:
        """The field itself, or each element of a repeated one, if read to its end."""
        parts = (self,) if self.items is None else self.items
        return tuple(part for part in parts if part.end is not None)


def is_struct(value) -> bool:
    return isinstance(value, KaitaiStruct)


def seq_fields(obj: KaitaiStruct, base: int, path: str) -> Iterator[Recorded]:
    """The ``seq`` fields of ``obj`` that were started, in reading order (one skipped by its ``if``,
    or after a failure, has no record). ``base``: where ``obj`` counts its positions from."""
    debug = getattr(obj, "_debug", {})
    for name in obj.SEQ_FIELDS:
        info = debug.get(name)
        if info and "start" in info:
            yield _recorded(obj, obj.__dict__.get(name), info, base, f"{path}/{name}")


def instance(obj: KaitaiStruct, name: str, base: int, path: str, *, root_base: int | None = None) -> Recorded:
    """The record of the ``pos`` instance ``name`` of ``obj``, read or being read. ``root_base``: where
    the root's stream starts, for an instance the spec reads from it (``io: _root._io``)."""
    at = root_base if root_base is not None and _reads_root_io(type(obj), name) else base
    info = obj._debug.get(f"_m_{name}") or {"start": 0}
    return _recorded(obj, obj.__dict__.get(f"_m_{name}"), info, at, f"{path}/{name}")


def _recorded(parent: KaitaiStruct, value, info: dict, base: int, path: str) -> Recorded:
    start = base + info["start"]
    end = base + info["end"] if "end" in info else None
    items = None
    if "arr" in info:
        items = tuple(_recorded(parent, value[i] if isinstance(value, list) and i < len(value) else None, item,
                                base, f"{path}[{i}]") for i, item in enumerate(info["arr"]))
    # A struct read from a sized substream counts its positions from the substream's start.
    own = base if isinstance(value, KaitaiStruct) and value._io is parent._io else start
    return Recorded(parent, path, start, end, value, own, items)


def finished_values(obj: KaitaiStruct, base: int, path: str, *, root_base: int) -> Iterator[Recorded]:
    """Every field under ``obj`` read to its end that holds a value (not a struct), depth first in
    reading order: ``seq`` fields, then the instances that read bytes. A field still being read when
    reading stopped is left out, with what it holds (the error names it)."""
    fields = chain(seq_fields(obj, base, path),
                   (instance(obj, name, base, path, root_base=root_base) for name in stored_instances(obj)))
    for field in fields:
        for part in field.finished:
            if isinstance(part.value, KaitaiStruct):
                yield from finished_values(part.value, part.base, part.path, root_base=root_base)
            else:
                yield part


def failure_point(obj: KaitaiStruct, base: int, path: str) -> tuple[int, str]:
    """Absolute start offset and spec path of the field being read when parsing stopped.

    A field with a recorded start and no end was in progress: descend into it. If every
    started field has ended, a `valid` check on the last one failed.
    """
    last = None
    for field in seq_fields(obj, base, path):
        if field.end is None:
            return stopped_in(field)
        last = field
    return (base, path) if last is None else (last.start, last.path)


def stopped_in(field: Recorded) -> tuple[int, str]:
    """Where reading stopped inside a field that did not end: in its last element started, if repeated."""
    inner = field.items[-1] if field.items else field
    if isinstance(inner.value, KaitaiStruct):
        return failure_point(inner.value, inner.base, inner.path)
    return inner.start, inner.path


def stored_instances(obj: KaitaiStruct) -> list[str]:
    """Instances of ``obj`` that read bytes (they have a position), reading each once."""
    names = []
    for name, member in type(obj).__dict__.items():
        if isinstance(member, property) and not name.startswith("_") and name not in obj.SEQ_FIELDS:
            try:
                getattr(obj, name)
            except (kaitaistruct.KaitaiStructError, AttributeError, ValueError, IndexError, EOFError):
                continue  # not read (a partial object) or not readable: the error is reported once
            if f"_m_{name}" in getattr(obj, "_debug", {}):
                names.append(name)
    return names


_ROOT_IO: dict[tuple[type, str], bool] = {}


def _reads_root_io(cls: type, name: str) -> bool:
    """Whether the spec reads this instance from the root stream (``io: _root._io``)."""
    key = (cls, name)
    if key not in _ROOT_IO:
        _ROOT_IO[key] = "self._root._io" in inspect.getsource(getattr(cls, name).fget)
    return _ROOT_IO[key]
