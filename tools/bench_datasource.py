"""Benchmark of spark.read.format("paimon-fileindex") on a table Java Paimon writes, beside a plain Spark read.

    .venv/bin/python tools/bench_datasource.py [--files 50] [--rows 200000] [--repeat 3] [--data DIR] [--json]

Needs what `tools/setup.sh --test` installs (a JDK and the Java Paimon 0.9.0 jar of the test oracle).
Java Paimon 0.9 writes an append table of --files commits (one data file each) of the main job's
rows (id, category, ts, amount; every file spans every column's range, so Parquet statistics cannot
prune), with a bloom-filter on id and a bitmap on category in sidecars; it is kept in DIR (bench-data/).
Paimon 0.9 has no range index (bsi and range-bitmap came later), so the range query shows what the
source costs when no index can help. Each query is timed from making the DataFrame until every
result row is held by Spark (``persist`` + ``count``), the load (``read_table`` or
``spark.read...load``) shown apart, after one untimed warm-up; the median of --repeat runs is reported, for the
source pruned for the query (``read_table``: its ``where`` option, then Spark's filter), the source
read whole and filtered by Spark, and a plain Spark read of the same data files.

The floor rows time the same way what no table can go below: a trivial Python data source (one
partition yielding 80 rows as one Arrow batch, its schema given, as ``read_table`` gives it) and a
plain Spark read of an 80-row Parquet file. The trivial source's time is split where its Python code
runs: load, until the planning worker calls ``reader()`` (Spark's analysis and a worker round trip that
makes the source), until its one task calls ``read()`` (``partitions()``, scheduling, a Python worker
for the task), and the rest (the rows to the JVM, caching, ``count``'s aggregation).

``PYTHONPATH=OTHER_CHECKOUT`` times another checkout's package, for before/after figures in the same
run: run it from outside both checkouts, as Spark's Python workers put their current folder first on
their path (the package the workers import is shown).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.append(str(ROOT))  # after PYTHONPATH, which may name another checkout to time

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

import fileindex
from fileindex.spark import spark_session
from fileindex.spark.datasource import FORMAT, read_table
from fileindex.spark.demo import DatasetSpec, make_file
from fileindex import PaimonTable
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


FLOOR_SCHEMA = "id bigint, category string, ts timestamp, amount double"
FLOOR_ROWS = 80


class FloorSource(DataSource):
    """The least a Python data source can do: one partition, 80 rows in one Arrow batch."""

    @classmethod
    def name(cls) -> str:
        return "bench-floor"

    def reader(self, schema):
        return FloorReader(self.options["marks"])


def mark(marks: str, what: str) -> None:
    """When the trivial source reached ``what``, by the wall clock its worker shares with the driver."""
    with open(marks, "a") as out:
        out.write(f"{what} {time.time()}\n")


class FloorReader(DataSourceReader):
    def __init__(self, marks: str):
        mark(marks, "reader")
        self.marks = marks

    def partitions(self):
        return [InputPartition(0)]

    def read(self, partition):
        mark(self.marks, "read")
        yield pa.record_batch([pa.array(range(FLOOR_ROWS), pa.int64()), pa.array(["recalled"] * FLOOR_ROWS),
                               pa.array([0] * FLOOR_ROWS, pa.timestamp("us", "UTC")),
                               pa.array([1.0] * FLOOR_ROWS)], names=["id", "category", "ts", "amount"])


def timed(make, marks: Path | None = None) -> dict:
    """Seconds to make a DataFrame (load) and to hold its rows (persist + count), in all; with ``marks``,
    also until the trivial source's reader() and read() ran."""
    if marks is not None:
        marks.write_text("")
    start, wall = time.perf_counter(), time.time()
    frame = make()
    loaded = time.perf_counter()
    held = frame.persist()
    count = held.count()
    done = time.perf_counter()
    held.unpersist()
    figures = {"load": loaded - start, "seconds": done - start, "rows": count}
    if marks is not None:
        reached = dict(line.split() for line in marks.read_text().splitlines())
        figures["to_reader"] = float(reached["reader"]) - wall - figures["load"]
        figures["to_read"] = float(reached["read"]) - float(reached["reader"])
        figures["rest"] = figures["seconds"] - figures["load"] - figures["to_reader"] - figures["to_read"]
    return figures


def median_of(make, repeat: int, warm: bool = True, marks: Path | None = None) -> dict:
    if warm:
        timed(make, marks)
    runs = [timed(make, marks) for _ in range(repeat)]
    return {key: statistics.median(run[key] for run in runs) for key in runs[0] if key != "rows"} | {
        "rows": runs[0]["rows"]}


def floor_figures(spark, repeat: int, folder: Path) -> dict:
    spark.dataSource.register(FloorSource)
    tiny, marks = folder / "floor-80-rows.parquet", folder / "marks"
    pq.write_table(pa.table({"id": pa.array(range(FLOOR_ROWS), pa.int64())}), tiny)
    trivial = spark.read.format("bench-floor").schema(FLOOR_SCHEMA).option("marks", str(marks))
    return {"python source": median_of(trivial.load, repeat, marks=marks),
            "plain parquet": median_of(lambda: spark.read.parquet(str(tiny)), repeat)}


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
    some_id = int(spec.ids(spec.files // 2)[1234 % spec.rows_per_file])
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

    workers = spark.sparkContext.parallelize([0], 1).map(lambda _: __import__("fileindex").__file__).first()
    with tempfile.TemporaryDirectory() as folder:  # never in --data, which may be shared read-only
        floor = floor_figures(spark, args.repeat, Path(folder))
    results = []
    for purpose, where in queries:
        figures = {"purpose": purpose, "where": where}
        for name, make in (("source", source), ("plain", plain)):
            figures[name] = median_of(partial(make, where), args.repeat)
        figures["source_unpruned"] = median_of(partial(unpruned, where), args.repeat, warm=False)
        figures["identical_counts"] = figures["source"]["rows"] == figures["plain"]["rows"] == \
            figures["source_unpruned"]["rows"]
        figures["speedup"] = figures["plain"]["seconds"] / figures["source"]["seconds"]
        results.append(figures)
    if args.json:
        print(json.dumps({"files": spec.files, "rows": spec.rows, "package": fileindex.__file__,
                          "workers_package": workers, "floor": floor,
                          "queries": results}))
        return
    print(f"Java Paimon 0.9 table: {len(data_files)} data files, {spec.rows:,} rows; package {fileindex.__file__}, "
          f"workers' {workers}")
    print(f"{'query':<50} {'rows':>6} {'source s (load)':>16} {'unpruned s':>11} {'plain s (load)':>15} {'x':>6}")
    for f in results:
        print(f"{f['purpose']:<50} {f['source']['rows']:>6} {f['source']['seconds']:>8.2f} ({f['source']['load']:.2f})"
              f" {f['source_unpruned']['seconds']:>11.2f} {f['plain']['seconds']:>7.2f} ({f['plain']['load']:.2f})"
              f" {f['speedup']:>6.1f}{'' if f['identical_counts'] else '  COUNTS DIFFER'}")
    for name, f in floor.items():
        print(f"{'floor: ' + name + ' of ' + str(f['rows']) + ' rows':<57} {f['seconds']:>8.2f} ({f['load']:.2f})"
              + (f"; to reader() {f['to_reader']:.2f}, to read() {f['to_read']:.2f}, rest {f['rest']:.2f}"
                 if "to_read" in f else ""))
    print("pypaimon: not measured; pypaimon 2.x pins pyarrow<20 and cannot share this environment (pyarrow 22)")


if __name__ == "__main__":
    main()
