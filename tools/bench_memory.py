#!/usr/bin/env python3
"""Peak memory of building bloom-filter, bsi and range-bitmap over a 10M-row BIGINT column (target: < 1 GiB).

    .venv/bin/python tools/bench_memory.py [--rows N]

The column follows the bigint_1m recipe (u(1, i, 2000000001) - 1e9) extended to N rows. Prints the
process's peak RSS after each build, and the time of each build. The bloom filter is sized for the
column (items = rows, fpp = 0.01): each build thread fills a bit set of its own on the compiled path.
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_data

from fileindex.indexes import bloom_filter, bsi, range_bitmap
from fileindex.types import parse_type


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000_000)
    args = parser.parse_args()
    column = pa.array(bench_data.u(1, np.arange(args.rows), 2_000_000_001).astype(np.int64) - 1_000_000_000)
    print(f"{args.rows:,} BIGINT rows generated; peak RSS {peak_rss_mib():.0f} MiB")
    data_type = parse_type("BIGINT")
    bloom = lambda values, data_type: bloom_filter.build(  # noqa: E731
        values, data_type, {"items": str(args.rows), "fpp": "0.01"})
    for name, build in (("bloom-filter", bloom), ("bsi", bsi.build), ("range-bitmap", range_bitmap.build)):
        start = time.perf_counter()
        payload = build(column, data_type)
        seconds = time.perf_counter() - start
        print(f"{name:<13} {len(payload):>12,} bytes  {seconds:6.2f} s  {1e9 * seconds / args.rows:6.0f} ns/row  "
              f"peak RSS {peak_rss_mib():.0f} MiB")
        del payload
    return 0 if peak_rss_mib() < 1024 else 1


if __name__ == "__main__":
    sys.exit(main())
