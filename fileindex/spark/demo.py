"""The main job: generate a realistic dataset, build its indexes, verify them, and scan with them.

The dataset is a few dozen Parquet files of orders (made on the executors, from a seed): a unique
``id`` spread over all files; a low-cardinality ``category`` with one rare value in two files; a
``ts`` that grows with the file number but has a few late and early events in every file; an
``amount``; and ``attrs``, a map with a ``color`` key. Every file's min/max statistics span nearly
the whole range of every column, so Parquet statistics cannot prune anything; the indexes can.
"""
from __future__ import annotations

import datetime as dt
import math
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from fileindex.spark.compare import compared_scan, speedup_text
from fileindex.spark.jobs import build_indexes, per_file_job, verify_indexes
from fileindex.io.atomic import replacing

CATEGORIES = ["books", "garden", "toys", "games", "music", "tools", "food", "shoes", "sports", "office", "pets",
              "baby"]
COLORS = ["red", "green", "blue", "black", "white", "teal", "amber", "violet"]
RARE_CATEGORY = "recalled"
START = dt.datetime(2026, 1, 1)
ROW_GROUP = 10_000
OPTIONS = {
    "file-index.bloom-filter.columns": "id",
    "file-index.bloom-filter.id.fpp": "0.01",
    "file-index.bitmap.columns": "category,attrs[color]",
    "file-index.range-bitmap.columns": "ts,amount",
    "file-index.in-manifest-threshold": "1B",
}


@dataclass(frozen=True)
class DatasetSpec:
    files: int = 32
    rows_per_file: int = 100_000
    seed: int = 20261123
    recipe: int = 2  # raised whenever make_file's output changes: the benchmarks then regenerate their data

    @property
    def rows(self) -> int:
        return self.files * self.rows_per_file

    def ids(self, number: int) -> np.ndarray:
        """The ids of file ``number``: a slice of one permutation of all ids, so every file spans them.

        The permutation is i -> (a·i + b) mod rows with a coprime to rows near rows/φ, whose strides
        spread every slice over the whole range; a file's slice costs only its own rows (shuffling
        every id for each file took 0.3 s a file at 3.2M ids, most of generating the demo's data)."""
        rows, stride = self.rows, int(self.rows / 1.618033988749895) | 1
        while math.gcd(stride, rows) != 1:
            stride += 2
        positions = np.arange(number * self.rows_per_file, (number + 1) * self.rows_per_file, dtype=np.int64)
        return (positions * stride + self.seed) % rows

    def options(self) -> dict[str, str]:
        return {**OPTIONS, "file-index.bloom-filter.id.items": str(self.rows_per_file)}

    def rare_files(self) -> tuple[int, ...]:
        return (self.files // 3, (2 * self.files) // 3)

    def predicates(self) -> list[tuple[str, str]]:
        """(what it shows, predicate) for the scans of the demo."""
        some_id = int(self.ids(self.files // 2)[1234 % self.rows_per_file])
        day = START + dt.timedelta(days=self.files // 4, hours=10)
        end = day + dt.timedelta(minutes=20)
        window = f"ts BETWEEN TIMESTAMP '{day:%Y-%m-%d %H:%M:%S}' AND TIMESTAMP '{end:%Y-%m-%d %H:%M:%S}'"
        return [("one id (bloom-filter skips files)", f"id = {some_id}"),
                ("a rare category (bitmap: files and rows)", f"category = '{RARE_CATEGORY}'"),
                ("a 20-minute window (range-bitmap: rows)", window),
                ("a color among large amounts (bitmap AND range-bitmap)",
                 "attrs['color'] = 'teal' AND amount >= 9990.00")]


def make_file(spec: DatasetSpec, number: int) -> pa.Table:
    rng = np.random.default_rng((spec.seed, number))
    n = spec.rows_per_file
    ids = spec.ids(number)
    category = np.array(CATEGORIES, dtype=object)[rng.integers(0, len(CATEGORIES), n)]
    if number in spec.rare_files():
        category[rng.choice(n, 40, replace=False)] = RARE_CATEGORY
    # file `number` holds day `number`, in order; 0.1 % of its events arrived late or early
    micros_per_day = 86_400_000_000
    offsets = np.sort(rng.integers(0, micros_per_day, n))
    stray = rng.choice(n, max(2, n // 1000), replace=False)
    offsets[stray] = rng.integers(-number * micros_per_day, (spec.files - number) * micros_per_day, len(stray))
    start = int((START - dt.datetime(1970, 1, 1)).total_seconds() * 1_000_000) + number * micros_per_day
    ts = pa.array(start + offsets, type=pa.timestamp("us"))
    amount = _cents(rng.integers(0, 1_000_000, n))
    colors = np.array(COLORS, dtype=object)[rng.integers(0, len(COLORS), n)]
    sizes = np.array(["S", "M", "L"], dtype=object)[rng.integers(0, 3, n)]
    attrs = pa.MapArray.from_arrays(
        pa.array(np.arange(0, 2 * n + 1, 2, dtype=np.int32)),
        _flat(pa.array(np.tile(np.array(["color", "size"], dtype=object), n), type=pa.string())),
        _flat(pa.array(np.column_stack([colors, sizes]).ravel(), type=pa.string())))
    return pa.table({"id": ids, "category": pa.array(category, type=pa.string()), "ts": ts, "amount": amount,
                     "attrs": attrs})


def _flat(array) -> pa.Array:
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


def _cents(cents: np.ndarray) -> pa.Array:
    """Integer cents as DECIMAL(12, 2): the unscaled values are the cents (128-bit little-endian)."""
    words = np.column_stack([cents.astype(np.int64), cents.astype(np.int64) >> 63]).ravel()
    return pa.Array.from_buffers(pa.decimal128(12, 2), len(cents), [None, pa.py_buffer(words.tobytes())])


def _write_one(number: int, *, spec: DatasetSpec, folder: str):
    table = make_file(spec, number)
    path = Path(folder) / f"orders-{number:04d}.parquet"
    with replacing(path) as temporary:
        pq.write_table(table, temporary, row_group_size=ROW_GROUP)
    yield pa.table({"file": [str(path)], "rows": [table.num_rows]})


def generate(spark, spec: DatasetSpec, folder: str) -> list[str]:
    """Write the dataset's files on the executors; their paths."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    frame = per_file_job(spark, list(range(spec.files)), [1] * spec.files,
                         partial(_write_one, spec=spec, folder=folder), "file string, rows long")
    return sorted(row.file for row in frame.collect())


def run_demo(spark, spec: DatasetSpec, folder: str, say=print) -> dict:
    """Generate, build, verify and scan; say() each step as it finishes; the figures."""
    figures: dict = {"files": spec.files, "rows": spec.rows, "scans": []}
    started = time.perf_counter()
    say(f"generating {spec.files} Parquet files x {spec.rows_per_file:,} rows in {folder} ...")
    generate(spark, spec, folder)
    figures["generate_seconds"] = time.perf_counter() - started
    say(f"  done in {figures['generate_seconds']:.1f} s")

    step = time.perf_counter()
    say("building bloom-filter (id), bitmap (category, attrs[color]) and range-bitmap (ts, amount) indexes ...")
    built = [r.asDict() for r in build_indexes(spark, folder, spec.options(), overwrite=True).collect()]
    failed = [r for r in built if r["status"] == "failed"]
    figures["build_seconds"] = time.perf_counter() - step
    figures["index_bytes"] = sum(r["bytes"] for r in built)
    say(f"  {len(built) - len(failed)} containers, {figures['index_bytes'] / 2**20:.1f} MiB, in "
        f"{figures['build_seconds']:.1f} s ({spec.rows / figures['build_seconds']:,.0f} rows/s)"
        + (f"; {len(failed)} FAILED: {failed[0]['error']}" if failed else ""))

    step = time.perf_counter()
    say("verifying every index against its file's rows ...")
    from fileindex.pipeline.report import summarize

    summary = summarize([r.asDict() for r in verify_indexes(spark, folder).collect()])
    figures["verify_seconds"] = time.perf_counter() - step
    figures["verify"] = {k: summary[k] for k in ("files", "checks", "violations", "by_status", "bloom")}
    say(f"  {summary['checks']:,} checks over {summary['files']} files, {summary['violations']} violations, in "
        f"{figures['verify_seconds']:.1f} s")

    for purpose, where in spec.predicates():
        say(f"scanning: {purpose}: {where}")
        report = compared_scan(spark, folder, where)
        report.pop("_frame").unpersist()
        report.update(purpose=purpose, where=where)
        figures["scans"].append(report)
        found = report["result_rows"]
        say(f"  read {report['files_read']}/{report['files_total']} files, {report['rows_read']:,}/"
            f"{report['rows_total']:,} rows -> {found:,} {'row' if found == 1 else 'rows'} in "
            f"{report['pruned_seconds']:.2f} s; "
            f"plain scan {report['plain_seconds']:.2f} s; pruned {speedup_text(report['speedup'])} (both warm); "
            f"{'identical' if report['identical'] else 'DIFFERENT'}")
    figures["seconds"] = time.perf_counter() - started
    return figures
