"""The one module that runs the Kaitai-generated readers.

The normal path runs the readers compiled without position recording (``parse_fast``). When one
fails, the same bytes are read again with the debug reader, whose objects record where each field
starts and ends: the partially read tree tells which field was being read, and that field's
absolute offset and spec path go into the project's own error.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

import kaitaistruct
from kaitaistruct import KaitaiStream, KaitaiStruct

from fileindex import errors
from fileindex.kaitai_runtime import open_stream
from fileindex.lazy import LazyModule

if TYPE_CHECKING:
    from fileindex.decoding import debug_tree
else:  # (only where a read failed, or is explained: it imports inspect, 34 M instructions of a cold read)
    debug_tree = LazyModule("fileindex.decoding.debug_tree")

T = TypeVar("T", bound=KaitaiStruct)
StructError = kaitaistruct.KaitaiStructError  # what a generated reader raises, for readers that place it themselves

# A spec's `valid` checks, by the src_path the generated code reports, to the error they mean.
ValidationErrors = Mapping[str, type[errors.DecodeError]]

# The maps of the specs read by Kaitai only inside the specs that import them. A check that fails inside an
# imported spec reports a src_path in that spec, so it is looked up here, never in the importer's map.
IMPORTED_VALIDATIONS: Mapping[str, ValidationErrors] = {
    "roaring_bitmap": {"/seq/0": errors.InvalidEncodingError},  # the cookie, as indexes/roaring.py raises it
}


def parse(
    spec: Callable[[KaitaiStream], T], data, *, root: str, validations: ValidationErrors, base: int = 0
) -> T:
    """Parse ``data`` (bytes-like or a readable, seekable binary file) with a generated spec class.

    ``base`` is where ``data`` starts in the enclosing file (a body inside a container), so that
    error offsets are absolute.
    """
    obj, error = parse_partial(spec, data, root=root, validations=validations, base=base)
    if error is not None:
        raise error
    return obj


def parse_partial(spec: Callable[[KaitaiStream], T], data, *, root: str, validations: ValidationErrors,
                  base: int = 0) -> tuple[T, errors.DecodeError | None]:
    """The object tree as far as it could be read, and the project's error where reading stopped."""
    stream = open_stream(data)
    obj = spec(stream)
    try:
        obj._read()
    except kaitaistruct.KaitaiStructError as err:
        return obj, translate(err, obj, root=root, validations=validations, size=stream.size(), base=base)
    return obj, None


def parse_fast(fast_spec: Callable[[KaitaiStream], T], debug_spec: Callable[[KaitaiStream], KaitaiStruct], data, *,
               root: str, validations: ValidationErrors, base: int = 0) -> T:
    """Parse with the reader compiled without position recording (the normal path); when it fails,
    parse again with the debug reader, whose recorded positions give the error's field and offset."""
    stream = open_stream(data)
    try:
        return fast_spec(stream)  # a non-debug generated reader reads in its constructor
    except kaitaistruct.KaitaiStructError as err:
        parse(debug_spec, data, root=root, validations=validations, base=base)  # raises the placed error
        raise unplaced(err, root, base) from None  # both readers come from one spec: not reached


def parse_fast_in(fast_spec: Callable[[KaitaiStream], T], debug_spec: Callable[[KaitaiStream], KaitaiStruct], data, *,
                  part: tuple[int, int], position: int, root: str, validations: ValidationErrors, field: str,
                  base: int = 0) -> T:
    """``fast_spec`` read at ``position`` of the bytes ``data[part[0]:part[1]]``: a type the caller
    locates itself (where an array it decoded in bulk ends, or where a directory points).

    A failure is placed by the debug reader reading all of ``data`` in sequence. If that reads without
    failing (the type was reached another way, say through a bad directory offset), the error is placed
    at the type's start, under ``field``."""
    start, end = part
    stream = open_stream(memoryview(data)[start:end])
    stream.seek(position)
    try:
        return fast_spec(stream)
    except kaitaistruct.KaitaiStructError as err:
        parse(debug_spec, data, root=root, validations=validations, base=base)  # raises the placed error
        raise _as_project_error(err, base + start + position, field, root, validations) from None


def place_instance_failure(err: kaitaistruct.KaitaiStructError, debug_spec: Callable[[KaitaiStream], KaitaiStruct],
                           data, names, *, root: str, validations: ValidationErrors, base: int = 0,
                           offset: int = 0) -> errors.DecodeError:
    """The placed error for a failure in the fast reader while reading the root's ``pos`` instances
    ``names`` (or a part that one of them frames): the debug reader reads them again and raises it.
    A name may be a path of nested instances (``dictionary/chunks``). Returned, to be raised, only if
    the debug reader reads them without failing (``offset``)."""
    debug = parse(debug_spec, data, root=root, validations=validations, base=base)
    for name in names:
        obj, path, at = debug, root, base
        for part in name.split("/"):
            read_instance(obj, part, path=path, validations=validations, size=debug._io.size(), base=at)
            field = debug_tree.instance(obj, part, at, path)
            obj, path, at = field.value, field.path, field.base
    return unplaced(err, root, base + offset)


@contextmanager
def placing_instance_failures(debug_spec: Callable[[KaitaiStream], KaitaiStruct], data, names, *, root: str,
                              validations: ValidationErrors, base: int = 0, offset: int = 0) -> Iterator[None]:
    """Around fast-reader code that reads the root's ``pos`` instances ``names``: a failure there
    becomes the error :func:`place_instance_failure` places."""
    try:
        yield
    except kaitaistruct.KaitaiStructError as err:
        raise place_instance_failure(err, debug_spec, data, names, root=root, validations=validations, base=base,
                                     offset=offset) from None


def unplaced(err: kaitaistruct.KaitaiStructError, root: str, base: int) -> errors.DecodeError:
    """The project's error for a failure the debug reader could not place (kept as a safety net)."""
    return errors.DecodeError(str(err), offset=base, field=root)


def translate(
    err: kaitaistruct.KaitaiStructError,
    obj: KaitaiStruct,
    *,
    root: str,
    validations: ValidationErrors,
    size: int,
    base: int = 0,
) -> errors.DecodeError:
    offset, field = debug_tree.failure_point(obj, 0, root)
    return _as_project_error(err, base + min(max(offset, 0), size), field, root, validations)


def read_instance(obj: KaitaiStruct, name: str, *, path: str, validations: ValidationErrors, size: int,
                  base: int = 0):
    """The value of a ``pos`` instance of ``obj`` (read on first access); a failure becomes the
    project's error at the absolute offset of the field that failed inside it (``base``: where the
    parsed data starts in its file)."""
    try:
        return getattr(obj, name)
    except kaitaistruct.KaitaiStructError as err:
        offset, field = debug_tree.stopped_in(debug_tree.instance(obj, name, 0, path))
        raise _as_project_error(err, base + min(max(offset, 0), size), field, path.split("/")[0],
                                validations) from None


def _as_project_error(err: kaitaistruct.KaitaiStructError, offset: int, field: str, root: str,
                      validations: ValidationErrors) -> errors.DecodeError:
    if isinstance(err, kaitaistruct.EndOfStreamError):
        return errors.TruncatedError(
            f"input ends inside the field: {err.bytes_needed} bytes needed, {err.bytes_available} left",
            offset=offset, field=field,
        )
    if isinstance(err, kaitaistruct.ValidationFailedError):
        kind = _validation_errors(err, root, validations).get(err.src_path or "", errors.DecodeError)
        actual = getattr(err, "actual", None)
        shown = actual.hex() if isinstance(actual, bytes) else actual
        return kind(f"value {shown} is not allowed ({_expectation(err)})", offset=offset, field=field)
    if isinstance(err, kaitaistruct.InvalidArgumentError):
        return errors.InvalidLengthError(str(err), offset=offset, field=field)
    return errors.DecodeError(str(err), offset=offset, field=field)


def _validation_errors(err: kaitaistruct.ValidationFailedError, root: str,
                       validations: ValidationErrors) -> ValidationErrors:
    """The map of the spec whose check failed: ``validations`` (the map of ``root``, the spec being read)
    unless the check is in a spec ``root`` imports."""
    spec = _failing_spec(err)
    return validations if spec is None or spec == root else IMPORTED_VALIDATIONS.get(spec, {})


def _failing_spec(err: kaitaistruct.KaitaiStructError) -> str | None:
    """The id of the spec whose object raised ``err`` (the name of its generated module). Kaitai's error
    names the check's path in that spec but not the object; the generated code raises it in the object's
    own read method, so the object is the ``self`` of the innermost frame of the traceback."""
    frame = err.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    obj = None if frame is None else frame.tb_frame.f_locals.get("self")
    return type(obj).__module__.rpartition(".")[2] if isinstance(obj, KaitaiStruct) else None


def _expectation(err: kaitaistruct.ValidationFailedError) -> str:
    if isinstance(err, kaitaistruct.ValidationNotEqualError):
        expected = err.expected.hex() if isinstance(err.expected, bytes) else err.expected
        return f"expected {expected}"
    if isinstance(err, kaitaistruct.ValidationLessThanError):
        return f"minimum {err.min}"
    if isinstance(err, kaitaistruct.ValidationGreaterThanError):
        return f"maximum {err.max}"
    return "validation failed"
