"""Benchmark of the Spark pipeline: build and verify throughput, pruned scans beside plain Spark scans.

    .venv/bin/python tools/bench_spark.py [--files 50] [--rows 200000] [--repeat 3] [--master local[*]]
        [--data DIR] [--scans-only] [--json]

The dataset is the main job's (fileindex.spark.demo: every file's min/max spans every column, so
Parquet statistics cannot prune), regenerated from its seed into DIR (bench-data/ by default) when
missing; --rows is rows per file (--files 50 --rows 1000000 is 50M rows). Scans are timed from
planning until every result row is held, pruned and plain alike (as fileindex.spark.compare holds
them: persisted by a job, or collected from a local relation), after one untimed warm-up of each;
the median of --repeat runs is reported, with the pruned scan's planning seconds (the first scan is
timed again selecting two columns on both sides), and where the time of the first two scans goes (a
breakdown measured step by step in this process). --scans-only
leaves out the build and verify throughput and the task memory figures. Java's single-thread writer
figures are printed beside the per-core build throughput for scale: they were recorded on another
machine (../shared/bench/java-performance.md), not in this run.
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fileindex.predicate.parser import parse_predicate
from fileindex.spark import spark_session
from fileindex.spark.compare import compared_scan
from fileindex.spark.demo import DatasetSpec, generate
from fileindex.spark.jobs import build_indexes, verify_indexes

SELECTED = ("id", "amount")
JAVA_FIGURES = ROOT.parent / "shared" / "bench" / "java-performance.md"
FOUR_INDEXES = {
    "file-index.bloom-filter.columns": "id", "file-index.bloom-filter.id.fpp": "0.01",
    "file-index.bitmap.columns": "category", "file-index.range-bitmap.columns": "ts",
    "file-index.bsi.columns": "amount",
}


def dataset(spark, spec: DatasetSpec, folder: Path) -> None:
    marker = folder / "RECIPE"
    recipe = json.dumps(vars(spec))
    if marker.is_file() and marker.read_text() == recipe:
        return
    for old in folder.glob("*"):
        old.unlink()
    generate(spark, spec, str(folder))
    marker.write_text(recipe)


def scan_figures(spark, folder: str, where: str, repeat: int, columns: list[str] | None = None) -> dict:
    def once(warm):
        report = compared_scan(spark, folder, where, warm=warm, columns=columns)
        report.pop("_frame").unpersist()
        return report

    runs = [once(warm=k == 0) for k in range(repeat)]  # the first run warms both sides up, untimed
    pruned = statistics.median(r["pruned_seconds"] for r in runs)
    plain = statistics.median(r["plain_seconds"] for r in runs)
    last = runs[-1]
    return {"where": where, "pruned_seconds": pruned, "plain_seconds": plain, "speedup": plain / pruned,
            "planning_seconds": statistics.median(r["planning_seconds"] for r in runs),
            "identical": all(r["identical"] for r in runs), "files_read": last["files_read"],
            "files_total": last["files_total"], "rows_read": last["rows_read"], "rows_total": last["rows_total"],
            "result_rows": last["result_rows"]}


def breakdown(spark, folder: str, where: str, repeat: int) -> dict:
    """Where a pruned scan's seconds go, each step timed alone (median of ``repeat``, warm), in the order
    :func:`fileindex.spark.jobs.pruned_scan` takes them; then whole scans, held as ``timed_scan`` holds them."""
    from fileindex.pipeline.inputs import resolve_inputs
    from fileindex.scan.planner import evaluate_tasks, plan_read
    from fileindex.scan.reader import read_file, scannable
    from fileindex.spark.compare import holding, materialize
    from fileindex.spark.expressions import to_column, widen_signed_zeros
    from fileindex.spark.jobs import _local_read as local_read
    from fileindex.spark.jobs import per_file_job, predicate_types, pruned_scan, read_schema, spark_schema

    def median(step):
        step()
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            step()
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    inputs = resolve_inputs([folder])
    tasks = scannable(inputs)
    types = predicate_types(inputs, tasks)
    predicate = parse_predicate(where, types)
    widened = widen_signed_zeros(predicate, types)
    schema = read_schema(inputs, tasks, None, predicate)
    kept = [f for f in plan_read(inputs.table, tasks, widened)[0] if f.to_read]
    local, local_rows = local_read(spark, kept, schema, widened, types)

    def planning():
        resolved = resolve_inputs([folder])
        found = scannable(resolved)
        kinds = predicate_types(resolved, found)
        read_schema(resolved, found, None, parse_predicate(where, kinds))

    def empty_job():
        per_file_job(spark, [0], [1], lambda item: iter(()), spark_schema(schema)).persist().count()

    def whole(read):
        scan = pruned_scan(spark, folder, where, read=read)
        materialize(scan.frame, holding(scan.local_rows))[0].unpersist()

    return {
        "inputs, types, predicate, schema": median(planning),
        f"evaluating {len(tasks)} indexes": median(lambda: evaluate_tasks(tasks, widened)),
        f"reading the candidate rows of {len(kept)} files": median(
            lambda: [read_file(f, schema, widened, types) for f in kept]),
        "reading them into a local relation (read, conform, createDataFrame)": median(
            lambda: local_read(spark, kept, schema, widened, types)),
        f"the exact filter, and holding the rows ({holding(local_rows)})": median(
            lambda: materialize(local.where(to_column(predicate, types)), holding(local_rows))),
        "an empty Spark job (persist + count)": median(empty_job),
        "the pruned scan reading through a Spark job (persist + count)": median(lambda: whole("spark")),
        "the pruned scan (auto), held as timed": median(lambda: whole("auto")),
    }


def breakdowns(spark, spec: DatasetSpec, folder: str, repeat: int) -> dict:
    """The breakdown of the one-id scan and of the rare category's."""
    return {where: breakdown(spark, folder, where, repeat) for _, where in spec.predicates()[:2]}


def peak_task_memory(folder: Path, rows: int) -> dict:
    """Peak RSS of one process building the four index types over a file of ``rows`` rows (one task's work)."""
    big = folder.parent / f"task-memory-{rows}"  # beside the dataset: a job over its folder must not see it
    big.mkdir(exist_ok=True)
    path = big / "orders-0000.parquet"
    if not path.exists():
        import pyarrow.parquet as pq

        from fileindex.spark.demo import ROW_GROUP, make_file

        pq.write_table(make_file(DatasetSpec(files=1, rows_per_file=rows), 0), path, row_group_size=ROW_GROUP)
    script = ("import sys, time, resource; from fileindex.pipeline.inputs import resolve_inputs; "
              "from fileindex.pipeline.build import build_file; "
              f"task = resolve_inputs([{str(path)!r}]).tasks[0]; start = time.perf_counter(); "
              f"row = build_file(task, {FOUR_INDEXES!r}, overwrite=True); "
              "print(time.perf_counter() - start, row['status'], row['bytes'], "
              "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    seconds, status, size, peak = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                                                 check=True, cwd=ROOT).stdout.split()
    return {"rows": rows, "status": status, "seconds": float(seconds), "index_bytes": int(size),
            "peak_rss_mib": int(peak) / 1024}


def java_writer_figures() -> list[str]:
    if not JAVA_FIGURES.is_file():
        return []
    return [re.sub(r"\s+", " ", line.strip("| ")) for line in JAVA_FIGURES.read_text().splitlines()
            if re.match(r"\| (bloom|bitmap v2|range-bitmap|bsi) build", line)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=50)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--master", default=None)
    parser.add_argument("--memory-rows", type=int, default=2_000_000)
    parser.add_argument("--data", type=Path, default=ROOT / "bench-data", help="where the dataset is kept")
    parser.add_argument("--scans-only", action="store_true", help="leave out build, verify and task memory")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    spec = DatasetSpec(files=args.files, rows_per_file=args.rows)
    folder = args.data / f"spark-{args.files}x{args.rows}"
    folder.mkdir(parents=True, exist_ok=True)
    spark = spark_session(args.master)
    cores = spark.sparkContext.defaultParallelism
    dataset(spark, spec, folder)
    figures = {"files": spec.files, "rows": spec.rows, "cores": cores}
    if args.scans_only:
        if not all(Path(f"{path}.index").is_file() for path in folder.glob("*.parquet")):
            build_indexes(spark, str(folder), spec.options(), overwrite=True).collect()
        scans_only(spark, spec, str(folder), args, figures)
        return

    build_indexes(spark, str(folder), spec.options(), overwrite=True).collect()  # warm-up
    start = time.perf_counter()
    built = build_indexes(spark, str(folder), spec.options(), overwrite=True).collect()
    seconds = time.perf_counter() - start
    assert all(r.status == "written" for r in built), [r.error for r in built if r.error]
    figures["build"] = {"seconds": seconds, "rows_per_second": spec.rows / seconds,
                        "rows_per_second_per_core": spec.rows / seconds / cores,
                        "index_bytes": sum(r.bytes for r in built)}
    start = time.perf_counter()
    checked = verify_indexes(spark, str(folder)).collect()
    seconds = time.perf_counter() - start
    figures["verify"] = {"seconds": seconds, "rows_per_second_per_core": spec.rows / seconds / cores,
                         "checks": sum(r.checks for r in checked), "violations": sum(r.violations for r in checked)}
    figures["scans"] = all_scans(spark, spec, str(folder), args.repeat)
    figures["task_memory"] = peak_task_memory(folder, args.memory_rows)
    figures["java_single_thread_writers_recorded"] = java_writer_figures()
    figures["breakdown"] = breakdowns(spark, spec, str(folder), args.repeat)
    if args.json:
        print(json.dumps(figures))
        return
    b, v, m = figures["build"], figures["verify"], figures["task_memory"]
    print(f"{spec.files} files x {spec.rows_per_file:,} rows = {spec.rows:,} rows, {cores} cores")
    print(f"build  (bloom id, bitmap category+attrs[color], range-bitmap ts+amount): {b['seconds']:.1f} s, "
          f"{b['rows_per_second']:,.0f} rows/s, {b['rows_per_second_per_core']:,.0f} rows/s per core, "
          f"{b['index_bytes'] / 2**20:.0f} MiB of indexes")
    print(f"verify: {v['seconds']:.1f} s, {v['rows_per_second_per_core']:,.0f} rows/s per core, "
          f"{v['checks']:,} checks, {v['violations']} violations")
    print_scans(figures)
    print(f"one task building bloom-filter, bitmap, range-bitmap and bsi over {m['rows']:,} rows: "
          f"{m['seconds']:.1f} s, peak RSS {m['peak_rss_mib']:.0f} MiB")
    print("Java's single-thread writers (recorded on another machine, for scale):")
    for line in figures["java_single_thread_writers_recorded"]:
        print(f"  {line}")
    print("pypaimon: not measured; pypaimon 2.x pins pyarrow<20 and cannot share this environment (pyarrow 22)")


def all_scans(spark, spec: DatasetSpec, folder: str, repeat: int) -> list[dict]:
    """The dataset's scans, then the first again selecting two columns (both sides read only those)."""
    scans = [dict(scan_figures(spark, folder, where, repeat), purpose=purpose) for purpose, where in spec.predicates()]
    purpose, where = spec.predicates()[0]
    selected = scan_figures(spark, folder, where, repeat, columns=list(SELECTED))
    return [*scans, dict(selected, purpose=f"{purpose.split(' (')[0]}, selecting {', '.join(SELECTED)}")]


def scans_only(spark, spec: DatasetSpec, folder: str, args, figures: dict) -> None:
    figures["scans"] = all_scans(spark, spec, folder, args.repeat)
    figures["breakdown"] = breakdowns(spark, spec, folder, args.repeat)
    if args.json:
        print(json.dumps(figures))
        return
    print(f"{spec.files} files x {spec.rows_per_file:,} rows = {spec.rows:,} rows, {figures['cores']} cores")
    print_scans(figures)


def print_scans(figures: dict) -> None:
    print(f"{'scan':<52} {'files':>7} {'rows read':>11} {'result':>7} {'plan s':>7} {'pruned s':>9} "
          f"{'plain s':>8} {'x':>6}")
    for s in figures["scans"]:
        print(f"{s['purpose'][:52]:<52} {s['files_read']:>3}/{s['files_total']:<3} {s['rows_read']:>11,} "
              f"{s['result_rows']:>7} {s['planning_seconds']:>7.3f} {s['pruned_seconds']:>9.3f} "
              f"{s['plain_seconds']:>8.2f} {s['speedup']:>6.1f}{'' if s['identical'] else '  RESULTS DIFFER'}")
    for where, steps in figures["breakdown"].items():
        print(f"where the time of {where} goes, each step alone:")
        for name, seconds in steps.items():
            print(f"  {name:<72} {seconds:8.3f} s")


if __name__ == "__main__":
    main()
