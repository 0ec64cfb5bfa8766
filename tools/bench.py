#!/usr/bin/env python3
"""Benchmarks held against Java's own timings (tools/bench_reference/java-performance.md).

    .venv/bin/python tools/bench.py [--only SUBSTRING] [--json] [--repeat N]

Every row first checks its output (bytes, SHA-256, result cardinalities) against ``java_results``
in perf_datasets.json and marks ``checked``; a row whose check fails prints no ratio. Figures are
the median of ``--repeat`` runs, wall and CPU seconds (Python's process, Java's timing thread: its JIT and
collector run on others). ``ratio`` = python / java (below 1.0: faster than Java), of wall and of CPU.

Java runs in the same run (``--java same-run``, the default when a JDK is present: the pinned Java
Paimon 0.9.0 jar, tools/bench_java.py) for the container, bloom-filter and bitmap V1 rows; the
other rows use the recorded figures scaled by the machine factor those rows show: by wall for the
wall ratio, by Java's CPU for the CPU ratio (on a loaded machine the two factors part: wall stretches
with the load, CPU far less). The ``java`` column says which (``same-run`` or ``recorded-scaled``);
``--java recorded`` uses the recorded figures unscaled.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_data

from fileindex.container.file import FileIndexContainer
from fileindex.indexes import bitmap, bloom_filter, bsi, range_bitmap
from fileindex.indexes.result import SKIP
from fileindex.types import parse_type

REFERENCE = bench_data.REFERENCE
_UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def java_figures() -> dict[str, float]:
    """Benchmark name → Java's median seconds per op, read from the reference tables."""
    figures = {}
    for line in (REFERENCE / "java-performance.md").read_text().splitlines():
        match = re.match(r"\|\s*([^|]+?)\s*\|\s*([\d.,]+)\s*(ns|µs|us|ms|s)\s*\|", line)
        if match:
            figures[match.group(1)] = float(match.group(2).replace(",", "")) * _UNITS[match.group(3)]
    return figures


class Timing(NamedTuple):
    """Median wall and CPU seconds of a row's timed runs; divided by the operations a run makes."""

    wall: float
    cpu: float

    def __truediv__(self, operations: float) -> Timing:
        return Timing(self.wall / operations, self.cpu / operations)


@dataclass
class Outcome:
    seconds_per_op: Timing
    checked: bool
    note: str = ""


@dataclass
class Row:
    name: str
    java_name: str
    run: Callable[[int], Outcome]


def median_time(fn: Callable[[], object], repeat: int) -> tuple[Timing, object]:
    return median_time_with_setup(lambda: None, lambda _: fn(), repeat)


def median_time_with_setup(setup: Callable[[], object], fn: Callable[[object], object],
                           repeat: int) -> tuple[Timing, object]:
    """Like median_time, with an untimed ``setup()`` before each run whose value ``fn`` receives."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        state = setup()
        cpu_start, start = time.process_time(), time.perf_counter()
        result = fn(state)
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu_start)
    return Timing(statistics.median(walls), statistics.median(cpus)), result


_CACHE: dict[str, object] = {}


def cached(key: str, make: Callable[[], object]):
    if key not in _CACHE:
        _CACHE[key] = make()
    return _CACHE[key]


def java_result(key: str) -> str:
    return bench_data.perf_datasets()["java_results"][key]


# --------------------------------------------------------------------------------------------- bloom

BLOOM_OPTIONS = {"items": "1000000", "fpp": "0.01"}
BLOOM_TYPES = {"bigint_1m": "BIGINT", "string_1m_avg16": "STRING"}


def bloom_probes(name: str) -> pa.Array:
    k = np.arange(100_000)
    even = k % 2 == 0
    data = cached(name, lambda: bench_data.checked_dataset(name))
    present = np.asarray(bench_data.u(12 if name == "bigint_1m" else 14, k, 1_000_000), dtype=np.int64)
    if name == "bigint_1m":
        absent = bench_data.r(13, k).view(np.int64)
        values = np.where(even, np.asarray(data)[present], absent)
        return pa.array(values)
    absent_chars = np.concatenate(
        [np.full((len(k), 1), ord("x"), dtype=np.uint8), bench_data.hex_digits(bench_data.r(15, k), 16)], axis=1)
    absent = bench_data.strings_from_matrix(absent_chars, np.full(len(k), 17))
    present_values = data.take(pa.array(present))
    triples = zip(present_values.to_pylist(), absent.to_pylist(), even, strict=True)
    return pa.array([p if e else a for p, a, e in triples])


def bloom_payload(name: str) -> bytes:
    return cached(f"bloom:{name}", lambda: bloom_filter.build(
        cached(name, lambda: bench_data.checked_dataset(name)), parse_type(BLOOM_TYPES[name]), BLOOM_OPTIONS))


def bloom_build(name: str) -> Callable[[int], Outcome]:
    def run(repeat: int) -> Outcome:
        data = cached(name, lambda: bench_data.checked_dataset(name))
        data_type = parse_type(BLOOM_TYPES[name])
        seconds, payload = median_time(lambda: bloom_filter.build(data, data_type, BLOOM_OPTIONS), repeat)
        ok = len(payload) == int(java_result(f"bloom.{name}.bytes")) and \
            hashlib.sha256(payload).hexdigest() == java_result(f"bloom.{name}.sha256")
        return Outcome(seconds / len(data), ok)
    return run


def bloom_lookup(name: str, batch: bool) -> Callable[[int], Outcome]:
    def run(repeat: int) -> Outcome:
        data_type = parse_type(BLOOM_TYPES[name])
        reader = bloom_filter.BloomFilterReader(bloom_payload(name), data_type)
        probes = cached(f"probes:{name}", lambda: bloom_probes(name))
        if batch:
            seconds, hits = median_time(lambda: reader.might_contain_column(probes), repeat)
            skips = int((~hits).sum())
        else:
            values = probes.to_pylist()
            seconds, results = median_time(lambda: [reader.visit_equal(v) for v in values], max(1, repeat // 2))
            skips = sum(r is SKIP for r in results)
        ok = skips == int(java_result(f"bloom.{name}.lookup_skip_count"))
        return Outcome(seconds / len(probes), ok, f"{skips} SKIP")
    return run


def bloom_open(name: str) -> Callable[[int], Outcome]:
    def run(repeat: int) -> Outcome:
        data_type = parse_type(BLOOM_TYPES[name])
        payload = bloom_payload(name)
        seconds, reader = median_time(lambda: bloom_filter.BloomFilterReader(payload, data_type), repeat * 20)
        return Outcome(seconds, reader.num_hash_functions == 7 and reader.num_bits == 8 * (len(payload) - 4))
    return run


# -------------------------------------------------------------------------------------------- bitmap

BITMAP_TYPES = {"string_1m_card1k": "STRING", "int_1m_card100k": "INT"}


def bitmap_literals(name: str) -> dict:
    if name == "string_1m_card1k":
        keys = bench_data.string_keys(name)
        return {"eq": keys[0], "eq100": keys[:100], "in10": keys[100:110], "absent": "absent"}
    return {"eq": 12345, "eq100": [-50000 + 1000 * j for j in range(100)], "in10": [7 * j for j in range(10)],
            "absent": 1000000}


def bitmap_payload(name: str, version: int) -> bytes:
    return cached(f"bitmap:{name}:{version}", lambda: bitmap.build(
        cached(name, lambda: bench_data.checked_dataset(name)), parse_type(BITMAP_TYPES[name]),
        {"version": str(version)}))


def bitmap_rows(name: str, version: int) -> list[Row]:
    data_type = parse_type(BITMAP_TYPES[name])
    prefix = f"bitmap_v{version}.{name}"
    literals = bitmap_literals(name)

    def reader():
        return bitmap.BitmapReader(bitmap_payload(name, version), data_type)

    def warm_reader():
        warmed = reader()
        warmed.visit_equal(literals["absent"])
        return warmed

    def build(repeat: int) -> Outcome:
        data = cached(name, lambda: bench_data.checked_dataset(name))
        seconds, payload = median_time(lambda: bitmap.build(data, data_type, {"version": str(version)}), repeat)
        _CACHE[f"bitmap:{name}:{version}"] = payload
        ok = len(payload) == int(java_result(f"{prefix}.bytes")) and \
            hashlib.sha256(payload).hexdigest() == java_result(f"{prefix}.sha256")
        return Outcome(seconds / len(data), ok)

    def query(setup, fn, expected_key: str, per: int = 1):
        def run(repeat: int) -> Outcome:
            seconds, cardinality = median_time_with_setup(setup, fn, repeat * 4)
            return Outcome(seconds / per, cardinality == int(java_result(f"{prefix}.{expected_key}")),
                           f"{cardinality} rows")
        return run

    eq = lambda r: r.visit_equal(literals["eq"]).cardinality  # noqa: E731
    # one batch call here; Java makes 100 visitEqual calls (it has no batch API)
    eq100 = lambda r: sum(result.cardinality for result in r.visit_equal_many(literals["eq100"]))  # noqa: E731
    in10 = lambda r: r.visit_in(literals["in10"]).cardinality  # noqa: E731
    not_in10 = lambda r: r.visit_not_in(literals["in10"]).cardinality  # noqa: E731
    is_null = lambda r: r.visit_is_null().cardinality  # noqa: E731
    label = f"bitmap v{version}"
    return [
        Row(f"{label} build {name}", f"{label} build {name}", build),
        Row(f"{label} eq cold {name}", f"{label} eq cold (new reader, meta read + 1 eq) {name}",
            query(reader, eq, "eq_card")),
        Row(f"{label} eq x100 (meta warm) {name}", f"{label} eq x100 distinct values (meta warm) {name}",
            query(warm_reader, eq100, "eq100_card_sum", per=100)),
        Row(f"{label} IN 10 (meta warm) {name}", f"{label} IN 10 values (meta warm) {name}",
            query(warm_reader, in10, "in10_card")),
        Row(f"{label} NOT IN 10 (meta warm) {name}", f"{label} NOT IN 10 values (meta warm) {name}",
            query(warm_reader, not_in10, "notin10_card")),
        Row(f"{label} IS NULL (meta warm) {name}", f"{label} IS NULL (meta warm) {name}",
            query(warm_reader, is_null, "isnull_card")),
    ]


# ----------------------------------------------------------------------------------------------- bsi

def bsi_rows() -> list[Row]:
    name = "bigint_1m"
    data_type = parse_type("BIGINT")

    def payload() -> bytes:
        return cached("bsi", lambda: bsi.build(cached(name, lambda: bench_data.checked_dataset(name)), data_type))

    def build(repeat: int) -> Outcome:
        data = cached(name, lambda: bench_data.checked_dataset(name))
        seconds, out = median_time(lambda: bsi.build(data, data_type), repeat)
        _CACHE["bsi"] = out
        ok = len(out) == int(java_result("bsi.bigint_1m.bytes")) and \
            hashlib.sha256(out).hexdigest() == java_result("bsi.bigint_1m.sha256")
        return Outcome(seconds / len(data), ok)

    def open_reader(repeat: int) -> Outcome:
        seconds, reader = median_time(lambda: bsi.BsiReader(payload(), data_type), repeat * 4)
        return Outcome(seconds, reader.row_count == 1_000_000, "lazy: slices decode on first use")

    def decoded_reader():
        reader = cached("bsi:reader", lambda: bsi.BsiReader(payload(), data_type))
        reader.validate()  # Java's reader deserializes every slice when it opens
        return reader

    first = int(np.asarray(cached(name, lambda: bench_data.checked_dataset(name)))[0])

    def query(fn, key: str) -> Callable[[int], Outcome]:
        def run(repeat: int) -> Outcome:
            reader = decoded_reader()
            seconds, cardinality = median_time(lambda: fn(reader).cardinality, repeat * 4)
            return Outcome(seconds, cardinality == int(java_result(f"bsi.bigint_1m.{key}")), f"{cardinality} rows")
        return run

    return [
        Row("bsi build bigint_1m", "bsi build bigint_1m", build),
        Row("bsi open reader bigint_1m", "bsi open reader (eager deserialize) bigint_1m", open_reader),
        Row("bsi lt 0 bigint_1m", "bsi lt 0 (open reader) bigint_1m",
            query(lambda r: r.visit_less_than(0), "lt 0.card")),
        Row("bsi gte 5e8 bigint_1m", "bsi gte 500000000 (open reader) bigint_1m",
            query(lambda r: r.visit_greater_or_equal(500_000_000), "gte 500000000.card")),
        Row("bsi between ±1e8 bigint_1m", "bsi between -100000000 and 100000000 (open reader) bigint_1m",
            query(lambda r: r.visit_between(-100_000_000, 100_000_000), "between -100000000 and 100000000.card")),
        Row("bsi eq v[0] bigint_1m", "bsi eq v[0] (open reader) bigint_1m",
            query(lambda r: r.visit_equal(first), "eq v[0].card")),
    ]


# -------------------------------------------------------------------------------------- range-bitmap

RANGE_TYPES = {"bigint_1m": "BIGINT", "string_1m_card10k": "STRING"}


def range_queries(name: str) -> list[tuple[str, Callable, str]]:
    """(label as in Java's table, query, java_results key)."""
    if name == "bigint_1m":
        data = np.asarray(cached(name, lambda: bench_data.checked_dataset(name)))
        first, ten = int(data[0]), [int(v) for v in data[:10]]
        return [("lt 0", lambda r: r.visit_less_than(0), "lt 0"),
                ("gte 500000000", lambda r: r.visit_greater_or_equal(500_000_000), "gte 500000000"),
                (f"eq {first}", lambda r: r.visit_equal(first), f"eq {first}"),
                ("in 10", lambda r: r.visit_in(ten), "in 10")]
    keys = bench_data.string_keys(name)
    return [(f"lt '{keys[5000]}'", lambda r: r.visit_less_than(keys[5000]), f"lt '{keys[5000]}'"),
            (f"gte '{keys[7500]}'", lambda r: r.visit_greater_or_equal(keys[7500]), f"gte '{keys[7500]}'"),
            (f"eq '{keys[42]}'", lambda r: r.visit_equal(keys[42]), f"eq '{keys[42]}'"),
            ("in 10", lambda r: r.visit_in(keys[:10]), "in 10")]


def range_rows(name: str) -> list[Row]:
    data_type = parse_type(RANGE_TYPES[name])
    prefix = f"range_bitmap.{name}"

    def payload() -> bytes:
        return cached(f"range:{name}", lambda: range_bitmap.build(
            cached(name, lambda: bench_data.checked_dataset(name)), data_type))

    def build(repeat: int) -> Outcome:
        data = cached(name, lambda: bench_data.checked_dataset(name))
        seconds, out = median_time(lambda: range_bitmap.build(data, data_type), max(1, repeat // 2))
        _CACHE[f"range:{name}"] = out
        ok = len(out) == int(java_result(f"{prefix}.bytes")) and \
            hashlib.sha256(out).hexdigest() == java_result(f"{prefix}.sha256")
        return Outcome(seconds / len(data), ok)

    def timed(fn, key: str, warm: bool) -> Callable[[int], Outcome]:
        def run(repeat: int) -> Outcome:
            if warm:
                reader = range_bitmap.RangeBitmapReader(payload(), data_type)
                fn(reader)
                seconds, cardinality = median_time(lambda: fn(reader).cardinality, repeat * 4)
            else:
                seconds, cardinality = median_time_with_setup(
                    lambda: range_bitmap.RangeBitmapReader(payload(), data_type), lambda r: fn(r).cardinality,
                    repeat * 4)
            return Outcome(seconds, cardinality == int(java_result(f"{prefix}.{key}.card")), f"{cardinality} rows")
        return run

    top_desc = lambda r: r.visit_top_n(100, descending=True)  # noqa: E731
    top_asc = lambda r: r.visit_top_n(100, descending=False)  # noqa: E731
    queries = range_queries(name) + [("topN k=100 DESC NULLS LAST", top_desc, "topN k=100 DESC NULLS LAST"),
                                     ("topN k=100 ASC NULLS LAST", top_asc, "topN k=100 ASC NULLS LAST")]
    rows = [Row(f"range-bitmap build {name}", f"range-bitmap build {name}", build)]
    for label, fn, key in queries:
        for warm in (False, True):
            state = "warm (same reader)" if warm else "cold (new reader)"
            rows.append(Row(f"range-bitmap {label} {'warm' if warm else 'cold'} {name}",
                            f"range-bitmap {label} {state} {name}", timed(fn, key, warm)))
    return rows


# ----------------------------------------------------------------------------------------- container

def container_head(repeat: int) -> Outcome:
    data = (REFERENCE.parent.parent / "fileindex" / "samples" / "container_12col.index").read_bytes()
    expected = bench_data.perf_datasets()["container_12col"]["sha256"]
    loops = 2000

    def opened() -> FileIndexContainer:
        for _ in range(loops):  # keeps only the last container, as Java's loop does
            last = FileIndexContainer.from_bytes(data)
        return last

    seconds, container = median_time(opened, repeat)
    ok = hashlib.sha256(data).hexdigest() == expected and len(container.columns) == 12
    return Outcome(seconds / loops, ok)


ROWS = [
    Row("bloom build bigint_1m", "bloom build bigint_1m (1M rows, items=1M, fpp=0.01)", bloom_build("bigint_1m")),
    Row("bloom lookup bigint_1m (batch)", "bloom lookup bigint_1m (100k visitEqual)", bloom_lookup("bigint_1m", True)),
    Row("bloom lookup bigint_1m (per value)", "bloom lookup bigint_1m (100k visitEqual)",
        bloom_lookup("bigint_1m", False)),
    Row("bloom open reader bigint_1m", "bloom open reader bigint_1m", bloom_open("bigint_1m")),
    Row("bloom build string_1m_avg16", "bloom build string_1m_avg16 (1M rows, items=1M, fpp=0.01)",
        bloom_build("string_1m_avg16")),
    Row("bloom lookup string_1m_avg16 (batch)", "bloom lookup string_1m_avg16 (100k visitEqual)",
        bloom_lookup("string_1m_avg16", True)),
    Row("bloom lookup string_1m_avg16 (per value)", "bloom lookup string_1m_avg16 (100k visitEqual)",
        bloom_lookup("string_1m_avg16", False)),
    Row("bloom open reader string_1m_avg16", "bloom open reader string_1m_avg16", bloom_open("string_1m_avg16")),
    *bitmap_rows("string_1m_card1k", 2), *bitmap_rows("int_1m_card100k", 2),
    *bitmap_rows("string_1m_card1k", 1), *bitmap_rows("int_1m_card100k", 1),
    *bsi_rows(),
    *range_rows("bigint_1m"), *range_rows("string_1m_card10k"),
    Row("container head read 12 columns", "FileIndexFormat head read, 12-column container (x100k)", container_head),
]


def format_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def format_ratio(ratio: float | None) -> str:
    return "-" if ratio is None else f"{ratio:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="run only rows whose name contains this")
    parser.add_argument("--json", action="store_true", help="one JSON object per row")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per row (median)")
    parser.add_argument("--java", choices=("same-run", "recorded"), default="same-run",
                        help="time Java 0.9.0 now (default) or use the recorded figures as they are")
    args = parser.parse_args()
    recorded = java_figures()
    rows = [row for row in ROWS if not args.only or args.only in row.name]
    if not rows:
        print(f"no row matches {args.only!r}", file=sys.stderr)
        return 2
    same_run, factor, cpu_factor = {}, 1.0, None
    if args.java == "same-run":
        import bench_java

        same_run = bench_java.run(args.repeat, args.only or "")
        factor = bench_java.machine_factor(same_run, recorded)
        cpu_factor = bench_java.machine_factor(same_run, recorded, cpu=True)
        print(f"Java 0.9.0 timed in this run: {len(same_run)} rows; this machine runs Java {factor:.2f}x the "
              f"recorded times, {cpu_factor:.2f}x in CPU (other rows: recorded x those factors)", file=sys.stderr)
    if not args.json:
        print(f"{'row':<44} {'python/op':>11} {'cpu/op':>9} {'java/op':>11} {'cpu/op':>9} {'java':>15} {'ratio':>6} "
              f"{'cpu':>6}  checked")
    failed = False
    for row in rows:
        outcome = row.run(args.repeat)
        timed = same_run.get(row.java_name)
        source = "same-run" if timed else "recorded-scaled" if same_run else "recorded"
        java_seconds = timed.seconds if timed else recorded[row.java_name] * factor
        java_cpu = timed.cpu_seconds if timed else None if cpu_factor is None else recorded[row.java_name] * cpu_factor
        python = outcome.seconds_per_op
        ratio = python.wall / java_seconds if outcome.checked else None
        cpu_ratio = python.cpu / java_cpu if outcome.checked and java_cpu else None
        failed |= not outcome.checked
        if args.json:
            print(json.dumps({"row": row.name, "python_per_op_s": python.wall, "python_cpu_per_op_s": python.cpu,
                              "java_per_op_s": java_seconds, "java_cpu_per_op_s": java_cpu, "java_source": source,
                              "ratio": ratio, "cpu_ratio": cpu_ratio, "checked": outcome.checked}))
        else:
            print(f"{row.name:<44} {format_seconds(python.wall):>11} {format_seconds(python.cpu):>9} "
                  f"{format_seconds(java_seconds):>11} {format_seconds(java_cpu):>9} {source:>15} "
                  f"{format_ratio(ratio):>6} {format_ratio(cpu_ratio):>6}  {'yes' if outcome.checked else 'NO'} "
                  f"{outcome.note}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
