"""The compiled loops (``fileindex._kernels``, from ``csrc/``), or ``None`` where the numpy reference path runs.

The extension is built at install when a C compiler is present. ``FILEINDEX_KERNELS`` chooses:
unset or ``auto`` uses it when it imports, ``python`` never uses it (the reference path, as on a
machine without a compiler), ``compiled`` requires it and fails on import otherwise. Both paths
give the same bytes and answers (tests/test_kernels.py). The choice is made once per process, at
import, from the environment: a Spark executor makes it again from its own.

``Kernels`` is the extension's surface as a type (its stub, ``_kernels.pyi``, documents each call;
a type checker holds the module to this protocol, and tests/test_kernels.py the names and
signatures of both to the built module).
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Protocol, TypeAlias, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import numpy as np
    from typing_extensions import Buffer

    from fileindex._kernels import BloomProbe, ByteStream

    BufferLike: TypeAlias = Buffer | np.ndarray  # numpy's stubs make ndarray a Buffer from Python 3.12 only

ENVIRONMENT = "FILEINDEX_KERNELS"
T = TypeVar("T")
CHOICES = ("auto", "compiled", "python")


class Kernels(Protocol):
    ByteStream: type[ByteStream]
    BloomProbe: type[BloomProbe]

    def wang_mix(self, keys: BufferLike, out: BufferLike) -> None: ...
    def wang_mix_one(self, key: int) -> int: ...
    def xxh64_offsets(self, data: BufferLike, offsets: BufferLike, width: int, out: BufferLike) -> None: ...
    def bloom_add_hashes(self, bits: BufferLike, hashes: BufferLike, num_bits: int, k: int) -> None: ...
    def bloom_add_longs(self, bits: BufferLike, keys: BufferLike, num_bits: int, k: int) -> None: ...
    def bloom_add_strings(self, bits: BufferLike, data: BufferLike, offsets: BufferLike, width: int, num_bits: int,
                          k: int) -> None: ...
    def bloom_test_hashes(self, bits: BufferLike, hashes: BufferLike, num_bits: int, k: int,
                          out: BufferLike) -> None: ...
    def bloom_test_hash(self, bits: BufferLike, num_bits: int, k: int, hash: int) -> bool: ...
    def roaring_bit_slices(self, rows: BufferLike, values: BufferLike, width: int, first_bit: int,
                           num_bits: int) -> list[bytes]: ...
    def roaring_serialize(self, rows: BufferLike, starts: BufferLike, counts: BufferLike,
                          sizes: BufferLike) -> bytes: ...
    def roaring_size(self, data: BufferLike, start: int) -> int: ...
    def roaring_cookies(self, data: BufferLike, start: int, offsets: BufferLike) -> bool: ...
    def roaring_bitmaps(self, data: BufferLike, spans: Sequence[tuple[int, int]],
                        deserialize: Callable[[bytes], T]) -> list[T] | None: ...
    def packed_locate(self, entries: BufferLike, samples: BufferLike, step: int,
                      keys: Sequence[int]) -> list[int | None]: ...
    def packed_rows(self, entries: BufferLike, samples: BufferLike, step: int, keys: Sequence[int], data: BufferLike,
                    body: int, limit: int, lengths: BufferLike = ...) -> list[bytes | int | None]: ...
    def group_rows(self, codes: BufferLike, rows: BufferLike, counts: BufferLike) -> None: ...
    def rows_union(self, parts: Sequence[bytes]) -> bytes: ...
    def roaring_rows(self, data: BufferLike, spans: Sequence[tuple[int, int]], limit: int) -> bytes | None: ...
    def hybrid_take(self, data: BufferLike, width: int, positions: BufferLike, out: BufferLike) -> int: ...
    def column_table(self, data: BufferLike, start: int, end: int, after: int, position_bytes: int,
                     names: dict[bytes, str],
                     decode: Callable[[bytes, int, str, int, int], str], entry_type: type[tuple],
                     record_type: type[tuple], table: str) -> tuple[tuple, int] | None: ...


def _load() -> Kernels | None:
    choice = os.environ.get(ENVIRONMENT, "auto").strip().lower() or "auto"
    if choice not in CHOICES:
        raise ImportError(f"{ENVIRONMENT}={choice!r}: use one of {', '.join(CHOICES)}")
    if choice == "python":
        return None
    try:
        from fileindex import _kernels
    except ImportError as error:
        if choice == "compiled":
            raise ImportError(f"{ENVIRONMENT}=compiled, but fileindex._kernels is not built ({error}): "
                              "reinstall with a C compiler present (pip install -e .)") from error
        return None
    return _kernels


compiled: Kernels | None = _load()


def describe() -> str:
    """One line for --version and benchmark output: which path runs."""
    return "compiled kernels (fileindex._kernels)" if compiled else "numpy reference path (no compiled kernels)"
