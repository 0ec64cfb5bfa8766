"""Table planning against Java Paimon 0.9 in the same run: a filtered scan of a Java-written table.

    .venv/bin/python tools/bench_planning.py [--files 2000] [--rows 100] [--repeat 5] [--data DIR] [--json] [--cpu]

Java 0.9 (tools/java/PaimonBench.java, compiled against the oracle jar that `tools/setup.sh --test`
fetches) writes two append tables of --files data files of --rows rows in one commit, kept under
DIR (bench-data/planning by default): a bloom-filter on k (which spans the whole BIGINT range in
every file, so min/max statistics cannot prune) and a bitmap on cat, embedded in the manifest in
one table and in sidecar files in the other. For ``k = KEY`` (one row of the middle file) and
``cat = 'recalled'`` (a value in one file of 500), it times Java's
``ReadBuilder.withFilter(...).newScan().plan()`` (20 warm-up runs, median of --repeat), then, median
of --repeat after one warm-up: ``PaimonTable.plan`` (every file's index, sidecars included, as
``fileindex table`` does) and the data source's planning (``reader().partitions()``, which reads
the manifests and embedded indexes and leaves sidecars to its tasks). Each row checks that both
keep the same number of files where both evaluate the same indexes.

Each row is timed twice, like with like. Uncached: Java's table made by FileStoreTableFactory.create
(no manifest cache: every plan reads the manifest), ours with the per-process memos of manifests,
embedded indexes and sidecars emptied before each run (a first plan in a process). "(manifest cache)": Java's table
given the manifest cache CachingCatalog sets by default (catalog option cache-enabled: 128 MiB of
manifest files under 1 MiB), ours with the memos kept from the warm-up. ``--cpu`` times ours in CPU
seconds, best of 3 × --repeat (steadier than wall-clock seconds on a loaded machine; Java's stay wall-clock).
"""
from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
sys.path[:0] = [str(ROOT), str(TOOLS)]

import bench_java

from fileindex.container.file import EMBEDDED, MAPPED_SIDECARS, SIDECARS
from fileindex.spark.datasource import PaimonFileIndexSource
from fileindex.table.metadata import MANIFESTS
from fileindex import PaimonTable


def forget() -> None:
    """Empty the per-process memos of manifests, embedded indexes and sidecars, and collect what they held:
    the state of a warm process's first plan."""
    for memo in (MANIFESTS, EMBEDDED, SIDECARS, MAPPED_SIDECARS):
        memo.clear()
    gc.collect()


def median_seconds(step, root: Path, where: str, repeat: int, cpu: bool = False,
                   memo: bool = True) -> tuple[float, int]:
    """Median wall-clock seconds of ``repeat`` runs after a warm-up; ``cpu``: best CPU seconds of 3 × ``repeat``.
    Without ``memo`` every run starts with the memos empty (emptied untimed), as a first plan does."""
    clock = time.process_time if cpu else time.perf_counter
    result = step(root, where)  # warm-up
    times = []
    for _ in range(3 * repeat if cpu else repeat):
        if not memo:
            forget()
        start = clock()
        result = step(root, where)
        times.append(clock() - start)
    return (min(times) if cpu else statistics.median(times)), result


def table_plan(root: Path, where: str) -> int:
    """Files ``PaimonTable.plan`` keeps."""
    return sum(v.result.kind != "SKIP" for v in PaimonTable(root).plan(where))


def source_plan(root: Path, where: str) -> int:
    """Files the data source's planning keeps (sidecar files all: their tasks evaluate them)."""
    source = PaimonFileIndexSource({"path": str(root), "where": where})
    return sum(len(partition.value) for partition in source.reader(source.schema()).partitions())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", type=Path, default=ROOT / "bench-data" / "planning")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--cpu", action="store_true", help="our times in CPU seconds, best of 3 x --repeat")
    args = parser.parse_args()
    java, roots, key = bench_java.plan_tables(args.data, args.files, args.rows, args.repeat)
    rows = []
    for kind, root in roots.items():
        for where in (f"k = {key}", "cat = 'recalled'"):
            for memo, suffix in ((False, ""), (True, " (manifest cache)")):  # like with like: see the docstring
                name = f"table plan {kind} {args.files} files: {where}{suffix}"
                table_seconds, table_files = median_seconds(table_plan, root, where, args.repeat, args.cpu, memo)
                source_seconds, source_files = median_seconds(source_plan, root, where, args.repeat, args.cpu, memo)
                rows.append({"row": name, "memo": memo, "java_seconds": java[name].seconds,
                             "java_files": int(java[name].check), "table_seconds": table_seconds,
                             "table_files": table_files, "source_seconds": source_seconds,
                             "source_files": source_files})
    if args.json:
        print(json.dumps({"files": args.files, "rows_per_file": args.rows, "cpu": args.cpu, "rows": rows}))
        return
    if args.cpu:
        print(f"(table s and source s: CPU seconds, best of {3 * args.repeat}; java s: wall-clock, median)")
    print(f"{'planning a filtered scan':<58} {'java s':>8} {'table s':>8} {'x':>5} {'source s':>9} {'x':>5} "
          f"{'files kept (java/table/source)':>31}")
    for r in rows:
        print(f"{r['row'][:58]:<58} {r['java_seconds']:>8.4f} {r['table_seconds']:>8.4f} "
              f"{r['table_seconds'] / r['java_seconds']:>5.1f} {r['source_seconds']:>9.4f} "
              f"{r['source_seconds'] / r['java_seconds']:>5.1f} "
              f"{r['java_files']:>15}/{r['table_files']}/{r['source_files']}")


if __name__ == "__main__":
    main()
