"""The project's exception tree.

Everything the library raises on purpose derives from :class:`FileIndexError`.
Decoding errors carry the absolute byte ``offset`` where the bad field starts and the
``field`` path in the spec (for example ``file_index_format/head/columns[1]/name``).
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import ParamSpec, TypeVar, cast

Params = ParamSpec("Params")
Returned = TypeVar("Returned")


def printable(text: str, keep: str = "") -> str:
    """``text`` with its control characters (ESC, carriage return, newline...; those in ``keep`` kept) written as
    Python escapes: what a table holds, in its names or values, cannot recolour the terminal, move its cursor or
    split a one-line message."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c in keep else repr(c)[1:-1] for c in text)


class FileIndexError(Exception):
    """Root of every error this project raises on purpose."""


class DecodeError(FileIndexError):
    """Bytes that do not follow the layout. ``offset`` is absolute within the decoded buffer."""

    def __init__(self, message: str, *, offset: int, field: str):
        self.message = message
        self.offset = offset
        self.field = field
        super().__init__(f"{field} at offset {offset}: {message}")

    def __reduce__(self):  # keyword-only arguments: pickle (Spark, process pools) rebuilds through this
        return _rebuild_decode_error, (type(self), self.message, self.offset, self.field)


class TruncatedError(DecodeError):
    """The input ends inside a field."""


class BadMagicError(DecodeError):
    """The magic number is not Paimon's file-index magic."""


class InvalidOffsetError(DecodeError):
    """An offset points outside the bytes it must address."""


class InvalidLengthError(DecodeError):
    """A length or count is negative, or larger than the bytes present."""


class InvalidEncodingError(DecodeError):
    """A string is not valid (modified) UTF-8, or a value is not a legal encoding."""


class InvariantError(DecodeError):
    """Bytes that parse but break an invariant a correct reader relies on: Java would misread or
    reject them (keys out of order, overlapping bitmaps, rows past the row count, an implausibly
    empty bloom filter region). Raised by the deep checks of ``fileindex check`` (exit 3), never on
    the query path. What Java reads correctly but its writer would not produce (bodies in another
    order, Roaring bitmaps without run containers) is no error: ``check`` lists it as a note, and
    ``check --canonical`` exits 5 for it."""


class UnsupportedError(DecodeError):
    """Well-formed bytes this implementation does not (yet) understand."""


class UnsupportedVersionError(UnsupportedError):
    """A container or payload version other than the ones Paimon defines."""


class UnsupportedIndexTypeError(UnsupportedError):
    """An index type identifier this implementation does not know."""


class UsageError(FileIndexError, ValueError):
    """Bad input from the caller: options, predicates, schemas, values. The message says what to fix."""


class StoreError(FileIndexError):
    """A request an object store refused or could not answer (a missing bucket, an endpoint out of reach, denied
    credentials, a server error): one line naming the object, never a secret; the command line's exit code 2 (a
    file that cannot be read)."""


class ConfinementError(FileIndexError):
    """A file a folder's own documents name (a kit corpus, a vectors folder, a tarball's member) that
    leads out of the folder, is not a regular file, is over its size limit, or is not the file the
    folder's manifest lists. The message names the file."""


class ResourceError(FileIndexError):
    """Input that needs more memory, or deeper recursion, than this process has: a MemoryError or RecursionError
    met while reading it, raised as this where the public API returns (see :func:`resource_errors`). Every
    layer bounds what it reads by what the input means; this is the backstop."""


CO_GENERATOR = 0x20  # inspect.CO_GENERATOR (a cold command line imports neither inspect nor dis)


def resource_errors(function: Callable[Params, Returned]) -> Callable[Params, Returned]:
    """``function`` (a generator function too) raising ResourceError where a MemoryError or RecursionError
    would leave it."""
    def translated(err: BaseException) -> ResourceError:
        if isinstance(err, RecursionError):
            return ResourceError("an input nested deeper than this process can follow (a predicate or metadata "
                                 "file); please report it if the input is not hostile")
        return ResourceError("ran out of memory: an input claims more than this process can hold; please report "
                             "it if the input is not hostile")

    if getattr(getattr(function, "__code__", None), "co_flags", 0) & CO_GENERATOR:
        @functools.wraps(function)
        def generator(*args, **kwargs):
            try:
                yield from cast(Callable[..., Iterator], function)(*args, **kwargs)
            except (MemoryError, RecursionError) as err:
                raise translated(err) from None
        return cast(Callable[Params, Returned], generator)

    @functools.wraps(function)
    def wrapper(*args: Params.args, **kwargs: Params.kwargs) -> Returned:
        try:
            return function(*args, **kwargs)
        except (MemoryError, RecursionError) as err:
            raise translated(err) from None
    return wrapper


class EncodeError(FileIndexError, ValueError):
    """A value or structure cannot be written in the layout (for example a name over 65535 bytes)."""


class UnsupportedTypeError(UsageError):
    """An index type asked for a column type that Paimon's Java implementation refuses too."""


class SchemaMismatchError(DecodeError):
    """A body that shows it was built for another column type than the one given (bsi values
    outside the type's range, an index type the given type cannot have)."""


class SchemaMisfitError(UsageError):
    """A valid body read with a column type it was not built for: the schema given does not fit it.
    ``fits``: the types its bytes decode under, where they tell."""

    def __init__(self, message: str, *, column: str, given, fits=(), index_type: str = "", cause: str = ""):
        self.column = column
        self.given = given
        self.fits = list(fits)
        self.index_type = index_type  # (the index whose body did not decode, and why: for a hint told anew)
        self.cause = cause
        super().__init__(message)

    def __reduce__(self):
        return _rebuild_misfit, (str(self), self.column, self.given, self.fits, self.index_type, self.cause)


def _rebuild_misfit(message: str, column: str, given, fits, index_type: str = "", cause: str = "") -> SchemaMisfitError:
    return SchemaMisfitError(message, column=column, given=given, fits=fits, index_type=index_type, cause=cause)


def _rebuild_decode_error(kind: type[DecodeError], message: str, offset: int, field: str) -> DecodeError:
    return kind(message, offset=offset, field=field)


def under_type(err: DecodeError, data_type) -> DecodeError:
    """``err`` raised while decoding a body as ``data_type``, saying that a wrong type may explain it."""
    if err.message.startswith("does not decode as"):
        return err
    hinted = type(err)(f"does not decode as {data_type}: wrong schema? ({err.message})",
                       offset=err.offset, field=err.field)
    hinted.__cause__ = err.__cause__
    return hinted
