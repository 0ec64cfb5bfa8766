#!/usr/bin/env python3
"""Throughput of exhaustive verification (``fileindex verify``): rows per second per index type.

    .venv/bin/python tools/bench_verify.py [--rows 1000000] [--repeat 3] [--json]

Writes one Parquet file per case into a temporary folder, builds its index with the project's
writer, then times ``verify_file(..., exhaustive=True)`` (reading the data file's column included;
median of ``--repeat``) and prints rows/s. Each case must come out clean: a violation is an error.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from fileindex.scan.task import DataFileTask
from fileindex.pipeline.verify import verify_file
from fileindex.writing.data_file import build_data_file_index


def cases(rows: int) -> dict[str, tuple[pa.Array, dict[str, str]]]:
    rng = np.random.default_rng(7)
    ids = pa.array(rng.permutation(rows).astype(np.int64))
    wide = pa.array(rng.integers(-10**12, 10**12, rows))
    few = pa.array(rng.integers(0, 1000, rows).astype(np.int32))
    text = pa.array(np.char.add("k", rng.integers(0, 100_000, rows).astype(str)).tolist())
    return {
        "bloom-filter BIGINT distinct": (ids, {"file-index.bloom-filter.columns": "c",
                                               "file-index.bloom-filter.c.items": str(rows),
                                               "file-index.bloom-filter.c.fpp": "0.01"}),
        "bitmap INT 1000 values": (few, {"file-index.bitmap.columns": "c"}),
        "bitmap STRING 100k values": (text, {"file-index.bitmap.columns": "c"}),
        "bitmap BIGINT distinct": (ids, {"file-index.bitmap.columns": "c"}),
        "bsi BIGINT": (wide, {"file-index.bsi.columns": "c"}),
        "range-bitmap BIGINT distinct": (ids, {"file-index.range-bitmap.columns": "c"}),
        "range-bitmap STRING 100k values": (text, {"file-index.range-bitmap.columns": "c"}),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        for n, (name, (column, options)) in enumerate(cases(args.rows).items()):
            path = Path(folder) / f"case{n}.parquet"
            pq.write_table(pa.table({"c": column}), path)
            index = path.with_name(path.name + ".index")
            index.write_bytes(build_data_file_index(path, options).data)
            task = DataFileTask(str(path), path.name, path.stat().st_size)
            times = []
            for _ in range(args.repeat):
                started = time.perf_counter()
                report = verify_file(task, exhaustive=True)
                times.append(time.perf_counter() - started)
            failed |= report.status != "ok"
            seconds = statistics.median(times)
            figures = {"case": name, "rows": args.rows, "seconds": seconds, "rows_per_s": args.rows / seconds,
                       "status": report.status}
            print(json.dumps(figures) if args.json else
                  f"{name:<34} {seconds * 1000:8.0f} ms  {args.rows / seconds / 1e6:6.2f}M rows/s  {report.status}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
