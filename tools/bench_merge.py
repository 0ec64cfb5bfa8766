#!/usr/bin/env python3
"""Merge throughput of one deduplicate bucket (fileindex.merge.reader.merge_bucket), beside the plain read of
the same Parquet files in the same run.

    python tools/bench_merge.py [--rows 1000000] [--repeat 3] [--engine deduplicate|partial-update|aggregation]
                                [--top-level-only]

The bucket, written here in the key-value layout (``_KEY_id``, ``_SEQUENCE_NUMBER``, ``_VALUE_KIND``, id, v,
name): ROWS keys on the top level (5) in 8 files of disjoint ranges, updates of a tenth of the keys on level 3
(2 files), and three level-0 files of updates and deletes of a twentieth each, at random keys: four sorted
runs overlapping everywhere. Printed, as the median of REPEAT runs: wall and CPU seconds of the plain read
(every batch of every file) and of the merge, and the merge's records in and rows out per second. ENGINE
(default deduplicate): partial-update merges with ``ignore-delete`` (vectorised), aggregation sums ``v``
and keeps the last non-null ``name`` (a key with several records goes through the reference merge).
``--top-level-only``: the 8 top-level files alone, a bucket read raw (no merge; each key checked to come once).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's package, imported below

from fileindex.merge.layout import KeyValueFile
from fileindex.merge.reader import merge_bucket
from fileindex.merge.spec import Aggregate, MergeSpec
from fileindex.types import parse_type

FIELDS = (("id", parse_type("BIGINT NOT NULL")), ("v", parse_type("BIGINT")), ("name", parse_type("STRING")))
COLUMNS = ["id", "v", "name"]
BATCH_ROWS = 65536


def write_bucket(folder: Path, rows: int, top_level_only: bool) -> list[tuple[Path, int, int, int, int]]:
    """(path, level, smallest key, largest key, retraction rows) of each file written."""
    rng = np.random.default_rng(42)
    sequence = iter(range(10**12))
    files = []

    def write(name: str, level: int, keys: np.ndarray, kinds: np.ndarray) -> None:
        count = len(keys)
        seq = np.fromiter((next(sequence) for _ in range(count)), dtype=np.int64, count=count)
        table = pa.table({"_KEY_id": keys, "_SEQUENCE_NUMBER": seq, "_VALUE_KIND": kinds.astype(np.int8),
                          "id": keys, "v": keys * 10 + level, "name": pa.array([f"n{k % 1000}" for k in keys])})
        path = folder / f"{name}.parquet"
        pq.write_table(table, path, row_group_size=BATCH_ROWS)
        files.append((path, level, int(keys[0]), int(keys[-1]), int(np.isin(kinds, (1, 3)).sum())))

    for number, keys in enumerate(np.array_split(np.arange(rows, dtype=np.int64), 8)):
        write(f"top-{number}", 5, keys, np.zeros(len(keys), dtype=np.int8))
    if top_level_only:
        return files
    updates = np.sort(rng.choice(rows, rows // 10, replace=False)).astype(np.int64)
    for number, keys in enumerate(np.array_split(updates, 2)):
        write(f"mid-{number}", 3, keys, np.full(len(keys), 2))
    for number in range(3):
        keys = np.sort(rng.choice(rows, rows // 20, replace=False)).astype(np.int64)
        write(f"l0-{number}", 0, keys, np.where(rng.random(len(keys)) < 0.1, 3, 2))
    return files


def handed(files: list[tuple[Path, int, int, int, int]]) -> list[KeyValueFile]:
    def reader(path: Path):
        return lambda: pq.ParquetFile(path).iter_batches(batch_size=BATCH_ROWS)
    return [KeyValueFile(path.name, level, pq.ParquetFile(path).metadata.num_rows, deletes, (low,), (high,),
                         reader(path)) for path, level, low, high, deletes in files]


def timed(work) -> tuple[float, float, int]:
    wall, cpu = time.perf_counter(), time.process_time()
    rows = work()
    return time.perf_counter() - wall, time.process_time() - cpu, rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--engine", choices=["deduplicate", "partial-update", "aggregation"], default="deduplicate")
    parser.add_argument("--top-level-only", action="store_true", help="the top level's files alone: read raw")
    args = parser.parse_args(argv)
    aggregates = (("id", Aggregate("primary-key")), ("v", Aggregate("sum", True)),
                  ("name", Aggregate("last_non_null_value")))
    spec = MergeSpec(args.engine, ("id",), FIELDS, ignore_delete=args.engine == "partial-update",
                     aggregates=aggregates if args.engine == "aggregation" else ())
    with tempfile.TemporaryDirectory(prefix="bench-merge-") as scratch:
        files = write_bucket(Path(scratch), args.rows, args.top_level_only)
        records = sum(pq.ParquetFile(f[0]).metadata.num_rows for f in files)

        def plain() -> int:
            return sum(b.num_rows for f in handed(files) for b in f.batches())

        def merged() -> int:
            return sum(b.num_rows for b in merge_bucket(spec, handed(files), COLUMNS))

        results = {name: [timed(work) for _ in range(args.repeat)] for name, work in (("plain read", plain),
                                                                                      ("merge", merged))}
    levels = "level 5: read raw" if args.top_level_only else "levels 5, 3, 0"
    print(f"{args.engine} bucket: {args.rows:,} keys, {records:,} records in {len(files)} files ({levels})")
    for name, runs in results.items():
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        out = runs[0][2]
        print(f"{name:10s}  wall {wall:6.3f} s  cpu {cpu:6.3f} s  {records / wall / 1e6:5.2f} M records/s in, "
              f"{out:,} rows out")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
