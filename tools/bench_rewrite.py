"""Benchmark of ``fileindex spark rewrite`` on a table Java Paimon 0.9 writes, beside ``spark build`` of the same files.

    .venv/bin/python tools/bench_rewrite.py [--files 60] [--rows 20000] [--repeat 3] [--master local[2]] [--json]

Needs what `tools/setup.sh --test` installs (a JDK and the Java Paimon 0.9.0 jar of the test oracle).
Java Paimon 0.9 writes an append table of --files commits (one ORC data file each; kept in
bench-data/rewrite/ and reused while the recipe is the same). Each run works on a fresh copy: ALTER
(a bloom filter on id, a bitmap on name, sidecars), then the rewrite: files per second over the
whole run (plan, Spark tasks, commit) and the seconds of the commit alone (from the first manifest
written to LATEST). ``spark build`` of the same live files with the same options into a folder is
the per-file work without the commit. The medians of --repeat runs after one untimed warm-up.
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from fileindex.spark import build_indexes, spark_session
from fileindex.spark.rewrite import spark_rewrite
from fileindex.table.options_alter import alter_table_options
from fileindex.table.stages import Stage, watching

COLUMNS = [("id", "BIGINT"), ("name", "STRING")]


def write_table(files: int, rows: int, warehouse: Path) -> Path:
    from java_oracle import JavaOracle

    marker = warehouse / "RECIPE"
    recipe = json.dumps({"files": files, "rows": rows})
    root = warehouse / "db.db" / "t"
    if marker.is_file() and marker.read_text() == recipe:
        return root
    shutil.rmtree(warehouse, ignore_errors=True)
    warehouse.mkdir(parents=True)
    oracle = JavaOracle(warehouse, tables=True)
    rng = random.Random(7)
    try:
        for number in range(files):
            batch = [[number * rows + j, f"n{rng.randrange(5000)}"] for j in range(rows)]
            oracle.write_table(warehouse, "t", COLUMNS, {"bucket": "-1", "file.format": "orc"}, [batch])
            print(f"  Java wrote commit {number + 1}/{files}", file=sys.stderr, flush=True)
    finally:
        oracle.close()
    marker.write_text(recipe)
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=60)
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    pristine = write_table(args.files, args.rows, ROOT / "bench-data" / "rewrite")
    options = {"file-index.bloom-filter.columns": "id", "file-index.bloom-filter.id.items": str(args.rows),
               "file-index.bloom-filter.id.fpp": "0.01", "file-index.bitmap.columns": "name",
               "file-index.in-manifest-threshold": "1 B"}
    spark = spark_session(args.master)
    work = ROOT / "bench-data" / "rewrite-work"
    rewrites, commits, builds = [], [], []
    for run in range(args.repeat + 1):
        shutil.rmtree(work, ignore_errors=True)
        table = work / "t"
        shutil.copytree(pristine, table)
        alter_table_options(table, set=options)
        marks: dict[Stage, float] = {}

        def mark(stage: Stage, marks: dict[Stage, float] = marks) -> None:
            marks.setdefault(stage, time.perf_counter())

        started = time.perf_counter()
        with watching(mark):
            result = spark_rewrite(spark, table)
        ended = time.perf_counter()
        assert result.snapshot_id is not None and len(result.changed) == args.files
        started_build = time.perf_counter()
        rows = build_indexes(spark, [str(table)], options, output_dir=str(work / "built")).collect()
        built = time.perf_counter() - started_build
        assert sum(row.status == "written" for row in rows) == args.files
        if run:  # the first run warms Spark and the page cache
            rewrites.append(ended - started)
            commits.append(ended - marks[Stage.MANIFESTS])
            builds.append(built)
    figures = {"files": args.files, "rows_per_file": args.rows, "master": args.master,
               "rewrite_s": statistics.median(rewrites), "commit_s": statistics.median(commits),
               "build_s": statistics.median(builds)}
    figures["rewrite_files_per_s"] = args.files / figures["rewrite_s"]
    figures["build_files_per_s"] = args.files / figures["build_s"]
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"{args.files} files x {args.rows:,} rows, {args.master}, median of {args.repeat}:")
        print(f"  spark rewrite  {figures['rewrite_s']:.2f} s  ({figures['rewrite_files_per_s']:.1f} files/s), "
              f"of which the commit {figures['commit_s']:.3f} s")
        print(f"  spark build    {figures['build_s']:.2f} s  ({figures['build_files_per_s']:.1f} files/s)")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
