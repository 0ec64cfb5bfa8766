"""Recreate the benchmark datasets of tools/bench_reference/perf_datasets.json exactly (SplitMix64).

Every dataset is generated with numpy (no per-row Python loop) and checked against the canonical
SHA-256 Java printed before any timing means anything.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pyarrow as pa

REFERENCE = Path(__file__).resolve().parent / "bench_reference"
ROWS = 1_000_000
_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)


def perf_datasets() -> dict:
    return json.loads((REFERENCE / "perf_datasets.json").read_text())


def mix64(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def r(seed: int, index: np.ndarray) -> np.ndarray:
    """r(seed, i) = mix64(seed + (i+1)·γ mod 2^64), unsigned."""
    with np.errstate(over="ignore"):
        return mix64(np.uint64(seed) + (index.astype(np.uint64) + np.uint64(1)) * _GOLDEN_GAMMA)


def u(seed: int, index: np.ndarray, n: int) -> np.ndarray:
    return r(seed, index) % np.uint64(n)


def hex_digits(x: np.ndarray, digits: int) -> np.ndarray:
    """The last ``digits`` lowercase hex digits of each uint64, as an (n, digits) uint8 matrix."""
    shifts = np.arange(digits - 1, -1, -1, dtype=np.uint64) * np.uint64(4)
    return _HEX[((x[:, None] >> shifts[None, :]) & np.uint64(0xF)).astype(np.intp)]


def strings_from_matrix(chars: np.ndarray, lengths: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """A pyarrow string array whose row i is chars[i, :lengths[i]] (null where not valid)."""
    lengths = np.where(valid, lengths, 0) if valid is not None else lengths
    mask = np.arange(chars.shape[1])[None, :] < lengths[:, None]
    data = chars[mask].tobytes()
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int32)
    validity = None if valid is None else pa.array(valid).buffers()[1]
    null_count = 0 if valid is None else int((~valid).sum())
    return pa.Array.from_buffers(pa.string(), len(lengths), [validity, pa.py_buffer(offsets), pa.py_buffer(data)],
                                 null_count=null_count)


def _keys(prefix: str, count: int, digits_j: int, seed: int, shift: int, hex_len: int) -> np.ndarray:
    j = np.arange(count)
    head = np.array([list(f"{prefix}{k:0{digits_j}d}-".encode()) for k in range(count)], dtype=np.uint8)
    tail = hex_digits(r(seed, j) >> np.uint64(shift), hex_len)
    return np.concatenate([head, tail], axis=1)


def dataset(name: str) -> pa.Array:
    i = np.arange(ROWS)
    if name == "bigint_1m":
        return pa.array(u(1, i, 2_000_000_001).astype(np.int64) - 1_000_000_000)
    if name == "string_1m_avg16":
        chars = np.concatenate([hex_digits(r(3, i), 16), hex_digits(r(4, i), 16)], axis=1)
        return strings_from_matrix(chars, 8 + u(2, i, 17).astype(np.int64))
    if name == "string_1m_card1k":
        keys = _keys("k", 1000, 4, 5, 32, 8)
        pick = u(6, i, 1000).astype(np.intp)
        return strings_from_matrix(keys[pick], np.full(ROWS, keys.shape[1]), u(7, i, 100) != 0)
    if name == "int_1m_card100k":
        values = (u(8, i, 100_000).astype(np.int64) - 50_000).astype(np.int32)
        return pa.array(values, mask=(u(9, i, 100) == 0))
    if name == "string_1m_card10k":
        keys = _keys("s", 10000, 5, 10, 40, 6)
        return strings_from_matrix(keys[u(11, i, 10000).astype(np.intp)], np.full(ROWS, keys.shape[1]))
    raise KeyError(name)


def string_keys(name: str) -> list[str]:
    """K (string_1m_card1k) or L (string_1m_card10k): the distinct keys the query literals name."""
    if name == "string_1m_card1k":
        return [bytes(row).decode() for row in _keys("k", 1000, 4, 5, 32, 8)]
    return [bytes(row).decode() for row in _keys("s", 10000, 5, 10, 40, 6)]


def canonical_sha256(array: pa.Array) -> str:
    """0x00 per null, else 0x01 + value (BIGINT 8 / INT 4 bytes BE, STRING 4-byte BE length + UTF-8)."""
    valid = np.asarray(array.is_valid())
    if pa.types.is_string(array.type):
        offsets = np.frombuffer(array.buffers()[1], dtype=np.int32)[array.offset:array.offset + len(array) + 1]
        data = np.frombuffer(array.buffers()[2], dtype=np.uint8)
        lengths = np.where(valid, np.diff(offsets), 0)
        record_len = np.where(valid, 5 + lengths, 1)
        starts = np.concatenate(([0], np.cumsum(record_len)[:-1]))
        out = np.zeros(int(record_len.sum()), dtype=np.uint8)
        out[starts[valid]] = 1
        header = lengths[valid].astype(">u4").view(np.uint8).reshape(-1, 4)
        for b in range(4):
            out[starts[valid] + 1 + b] = header[:, b]
        # every valid string's bytes go right after its 5-byte record header
        row = np.repeat(np.arange(len(array)), lengths)
        within = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        out[starts[row] + 5 + within] = data[offsets[row] + within]
        return hashlib.sha256(out.tobytes()).hexdigest()
    width = 8 if pa.types.is_int64(array.type) else 4
    values = array.fill_null(0).to_numpy().astype(f">i{width}").view(np.uint8).reshape(-1, width)
    records = np.zeros((len(array), 1 + width), dtype=np.uint8)
    records[:, 0] = valid
    records[:, 1:] = values
    keep = np.repeat(np.arange(1 + width)[None, :] == 0, len(array), axis=0) | valid[:, None]
    return hashlib.sha256(records[keep].tobytes()).hexdigest()


def checked_dataset(name: str) -> pa.Array:
    array = dataset(name)
    expected = perf_datasets()["datasets"][name]["sha256"]
    actual = canonical_sha256(array)
    if actual != expected:
        raise SystemExit(f"dataset {name}: SHA-256 {actual} != Java's {expected}: the recipe is wrong")
    return array
