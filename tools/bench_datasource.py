"""Benchmark of spark.read.format("paimon-fileindex") on a table Java Paimon writes, beside a plain Spark read.

    .venv/bin/python tools/bench_datasource.py [--files 50] [--rows 200000] [--repeat 3] [--data DIR] [--json]

Needs what `tools/setup.sh --test` installs (a JDK and the Java Paimon 0.9.0 jar of the test oracle).
Java Paimon 0.9 writes an append table of --files commits (one data file each) of the main job's
rows (id, category, ts, amount; every file spans every column's range, so Parquet statistics cannot
prune), with a bloom-filter on id and a bitmap on category in sidecars; it is kept in DIR (bench-data/).
Paimon 0.9 has no range index (bsi and range-bitmap came later), so the range query shows what the
source costs when no index can help. Each query is timed until every result row is held by Spark
(persist + count), after one untimed warm-up; the median of --repeat runs is reported, for the
source pruned for the query (``read_table``: its ``where`` option, then Spark's filter), the source
read whole and filtered by Spark, and a plain Spark read of the same data files.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from fileindex.spark import spark_session
from fileindex.spark.datasource import FORMAT, read_table
from fileindex.spark.demo import DatasetSpec, make_file
from fileindex.table.scan import PaimonTable
from fileindex.values import Timestamp

COLUMNS = [("id", "BIGINT"), ("category", "STRING"), ("ts", "TIMESTAMP(6)"), ("amount", "DOUBLE")]


def write_table(spec: DatasetSpec, warehouse: Path) -> Path:
    from java_oracle import JavaOracle

    marker = warehouse / "RECIPE"
    recipe = json.dumps(vars(spec))
    root = warehouse / "db.db" / "orders"
    if marker.is_file() and marker.read_text() == recipe:
        return root
    import shutil

    shutil.rmtree(warehouse, ignore_errors=True)
    warehouse.mkdir(parents=True)
    options = {"bucket": "-1", "file-index.bloom-filter.columns": "id",
               "file-index.bloom-filter.id.items": str(spec.rows_per_file), "file-index.bloom-filter.id.fpp": "0.01",
               "file-index.bitmap.columns": "category", "file-index.in-manifest-threshold": "1B",
               "target-file-size": "1gb"}
    oracle = JavaOracle(warehouse, tables=True)
    try:
        for number in range(spec.files):
            table = make_file(spec, number)
            micros = table.column("ts").cast("int64").to_pylist()
            rows = [[i, c, Timestamp(t // 1000, (t % 1000) * 1000), float(a)] for i, c, t, a in
                    zip(table.column("id").to_pylist(), table.column("category").to_pylist(), micros,
                        table.column("amount").to_pylist(), strict=True)]
            root = oracle.write_table(warehouse, "orders", COLUMNS, options, [rows])
            print(f"  Java wrote commit {number + 1}/{spec.files}", file=sys.stderr, flush=True)
    finally:
        oracle.close()
    marker.write_text(recipe)
    return root


def timed(frame) -> tuple[float, int]:
    start = time.perf_counter()
    held = frame.persist()
    count = held.count()
    seconds = time.perf_counter() - start
    held.unpersist()
    return seconds, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=50)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=ROOT / "bench-data", help="where the table is kept")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    spec = DatasetSpec(files=args.files, rows_per_file=args.rows)
    root = write_table(spec, args.data / f"datasource-{args.files}x{args.rows}")
    spark = spark_session()
    data_files = [str(PaimonTable(root).data_path(entry)) for entry, _ in PaimonTable(root).live()]
    some_id = int(spec.ids(spec.files // 2)[1234])
    queries = [("selective equality (bloom-filter on id)", f"id = {some_id}"),
               ("rare category (bitmap)", "category = 'recalled'"),
               ("20-minute window (no range index in Paimon 0.9)",
                "ts BETWEEN TIMESTAMP '2026-01-13 10:00:00' AND TIMESTAMP '2026-01-13 10:20:00'")]

    def source(where):
        return read_table(spark, str(root), where)

    def unpruned(where):
        return spark.read.format(FORMAT).load(str(root)).where(where)

    def plain(where):
        return spark.read.parquet(*data_files).where(where)

    results = []
    for purpose, where in queries:
        figures = {"purpose": purpose, "where": where}
        for name, make in (("source", source), ("plain", plain)):
            timed(make(where))  # warm-up
            runs = [timed(make(where)) for _ in range(args.repeat)]
            figures[f"{name}_seconds"] = statistics.median(s for s, _ in runs)
            figures[f"{name}_rows"] = runs[0][1]
        runs = [timed(unpruned(where)) for _ in range(args.repeat)]
        figures["source_unpruned_seconds"] = statistics.median(s for s, _ in runs)
        figures["identical_counts"] = figures["source_rows"] == figures["plain_rows"] == runs[0][1]
        figures["speedup"] = figures["plain_seconds"] / figures["source_seconds"]
        results.append(figures)
    if args.json:
        print(json.dumps({"files": spec.files, "rows": spec.rows, "queries": results}))
        return
    print(f"Java Paimon 0.9 table: {len(data_files)} data files, {spec.rows:,} rows")
    print(f"{'query':<50} {'rows':>6} {'source s':>9} {'unpruned s':>14} {'plain s':>8} {'x':>6}")
    for f in results:
        print(f"{f['purpose']:<50} {f['source_rows']:>6} {f['source_seconds']:>9.2f} "
              f"{f['source_unpruned_seconds']:>14.2f} {f['plain_seconds']:>8.2f} {f['speedup']:>6.1f}"
              f"{'' if f['identical_counts'] else '  COUNTS DIFFER'}")
    print("pypaimon: not measured; pypaimon 2.x pins pyarrow<20 and cannot share this environment (pyarrow 22)")


if __name__ == "__main__":
    main()
