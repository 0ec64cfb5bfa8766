"""Timing a pruned scan, and checking it against a plain scan of the same inputs and predicate.

Both sides are timed from planning until every result row (every selected column) is held, the two
in the same way, and both warm (:func:`compared_scan` runs each once untimed first: a new session's
first job pays for starting Python workers and compiling the JVM's code, which would otherwise be
charged to whichever side runs first). How the rows are held follows the pruned result (see
:func:`materialize`): one read by a Spark job is persisted and counted; one read in this process is a
local relation, whose rows Spark holds in the driver as soon as it exists, so persisting it would only
add a job that copies them: it is collected into this process instead, and so is the plain scan's
result then, so the two times differ only in how the rows were found. Results compare as JSON text
per row (map columns cannot be compared by Spark directly), both ways, with counts.
"""
from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from fileindex.errors import UsageError
from fileindex.pipeline.inputs import check_index_dir, given_paths, resolve_inputs
from fileindex.scan.task import Inputs
from fileindex.pipeline.report import rows_match
from fileindex.scan.reader import merged_by_key, scannable
from fileindex.predicate.parser import parse_predicate
from fileindex.predicate.tree import Predicate
from fileindex.predicate.tree import columns as predicate_columns
from fileindex.spark.expressions import spark_column
from fileindex.spark import progress
from fileindex.spark.jobs import plain_scan, predicate_types, pruned_scan, read_schema
from fileindex.table.store import is_table_root
from fileindex.types import column_type
from fileindex.writing.outputs import check_output, replacing_folder

SCAN = "spark scan"  # the command whose --output a scan's result folder is (named in its OUTPUT_MARK)


def timed_scan(spark, inputs, where: str, *, snapshot=None, index_dir=None, source: str = "jobs",
               output: str | None = None, plan: str = "auto", overwrite: bool = False,
               columns: list[str] | None = None, external_roots: tuple[str, ...] = ()) -> dict:
    """Run the pruned scan; its figures (``files_total`` ... ``pruned_seconds``) and ``_frame``, the result.
    ``output``, a folder for the result rows, is written whole or not at all (see ``check_scan_output``).
    ``columns``: the result's columns (None: all); the data source reads every column and selects them."""
    if output:
        check_scan_output(output, inputs, index_dir, overwrite=overwrite)
    started = time.perf_counter()
    frame: Any  # a DataFrame
    if source == "datasource":
        with tempfile.TemporaryDirectory(prefix="fileindex-scan-") as folder:
            planning = Path(folder) / "report.json"
            frame = _datasource_frame(spark, inputs, where, snapshot, str(planning))
            frame = frame if columns is None else frame.select(*[spark_column(c) for c in columns])
            hold = "persist"
            frame, result_rows = materialize(frame, hold)
            seconds = time.perf_counter() - started
            stats = json.loads(planning.read_text())
    else:
        scan = pruned_scan(spark, inputs, where, snapshot=snapshot, index_dir=index_dir, plan=plan, columns=columns,
                           external_roots=external_roots)
        stats = scan.stats.as_dict()
        hold = holding(scan.local_rows)
        frame, result_rows = materialize(scan.frame, hold)
        seconds = time.perf_counter() - started
    report = {**stats, "result_rows": result_rows, "pruned_seconds": seconds, "held_by": hold, "_frame": frame}
    if output:
        with replacing_folder(output, overwrite=overwrite, what="--output", command=SCAN) as temporary:
            frame.write.mode("overwrite").parquet(str(temporary))  # the fresh temporary folder only
    return report


# a local relation of up to this many rows is collected as Python rows, a larger one as Arrow: at 80 rows
# collect() takes 10-25 ms and toArrow() 25-70 ms (a small job of its own), at 14k rows 150-280 ms against 50-70
COLLECT_UP_TO_ROWS = 2_000
HOLDS = ("persist", "collect", "arrow")


def holding(local_rows: int | None) -> str:
    """How a pruned result is held when timed (see :func:`materialize`): ``persist`` for rows a Spark job
    reads (``local_rows`` None); a local relation of ``local_rows`` rows is collected, as Python rows
    (``collect``) when few, else as Arrow (``arrow``)."""
    if local_rows is None:
        return "persist"
    return "collect" if local_rows <= COLLECT_UP_TO_ROWS else "arrow"


def materialize(frame, hold: str) -> tuple[Any, int]:
    """``frame`` with every row and every selected column held, and its row count: what a scan is timed to.

    ``persist`` + ``count`` runs a job that reads the rows into Spark's cache. A local relation's rows
    are held by Spark in the driver already, and its filter and selection run there with no job:
    persisting it would only add a job that copies them, so it is collected into this process instead
    (``collect`` or ``arrow``), which does more than a count, never less; it is not persisted, as
    rereading it (as :func:`compare_scans` does) reads the same rows again."""
    if hold == "persist":
        frame = frame.persist()
        return frame, frame.count()
    if hold == "collect":
        return frame, len(frame.collect())
    if hold == "arrow":
        return frame, frame.toArrow().num_rows
    raise ValueError(f"hold={hold!r}: one of {', '.join(HOLDS)}")


def check_scan_output(output: str, inputs, index_dir: str | None, *, overwrite: bool) -> None:
    """Refuse an ``--output`` that is, contains or lies inside an input or the index folder, or that
    exists with files in it unless ``overwrite``."""
    check_output(output, given_paths(inputs) + ([index_dir] if index_dir else []), overwrite=overwrite,
                 what="--output", command=SCAN)


def check_scan(inputs, where: str, *, snapshot=None, index_dir=None, source: str = "jobs",
               columns: list[str] | None = None, external_roots: tuple[str, ...] = ()) -> Predicate:
    """Refuse, before a Spark session starts, what the scan would refuse once planning: inputs, a table a
    file-by-file read cannot scan, the predicate, the selected columns. The predicate parsed."""
    if source == "datasource":
        _one_table(inputs)
    check_index_dir(index_dir)
    resolved = resolve_inputs([inputs] if isinstance(inputs, str) else list(inputs), snapshot=snapshot,
                              index_dir=index_dir, external_roots=external_roots)
    # (a primary-key table's rows are merged by bucket, not read file by file: every file is the table's)
    tasks = resolved.tasks if resolved.table is not None and merged_by_key(resolved.table) else scannable(resolved)
    predicate = parse_predicate(where, predicate_types(resolved, tasks))
    read_schema(resolved, tasks, columns, predicate)
    return predicate


def _one_table(inputs) -> str:
    paths = [inputs] if isinstance(inputs, str) else list(inputs)
    if len(paths) != 1 or not is_table_root(Path(paths[0])):
        raise UsageError("--source datasource reads one Paimon table")
    return paths[0]


def _datasource_frame(spark, inputs, where: str, snapshot, report: str):
    """The data source's pruned read; its planning writes what it pruned to ``report``."""
    from fileindex.spark.datasource import read_table

    return read_table(spark, _one_table(inputs), where, snapshot=snapshot, report=report)


def compared_scan(spark, inputs, where: str, *, warm: bool = True, snapshot=None, index_dir=None,
                  **scan_options) -> dict:
    """The pruned scan (``timed_scan``) beside a plain scan (``compare_scans``), both timed warm:
    with ``warm``, each runs once untimed first. The report holds ``speedup`` and ``_frame``."""
    if warm:
        progress.restart(" (warm-up, untimed)")
        unwritten = {k: v for k, v in scan_options.items() if k not in ("output", "overwrite")}
        warm_up = timed_scan(spark, inputs, where, snapshot=snapshot, index_dir=index_dir, **unwritten)
        warm_up.pop("_frame").unpersist()
        plain_scan(spark, resolve_inputs([inputs] if isinstance(inputs, str) else list(inputs), snapshot=snapshot,
                                         index_dir=index_dir, external_roots=scan_options.get("external_roots", ())),
                   where, columns=scan_options.get("columns")).count()
        progress.restart()
    report = timed_scan(spark, inputs, where, snapshot=snapshot, index_dir=index_dir, **scan_options)
    report.update(compare_scans(spark, inputs, where, report["_frame"], snapshot=snapshot, index_dir=index_dir,
                                columns=scan_options.get("columns"), hold=report["held_by"],
                                external_roots=scan_options.get("external_roots", ())))
    report["warm"] = warm
    return with_speedup(report)


PUSHDOWN_CONFS = ("spark.sql.parquet.filterPushdown", "spark.sql.orc.filterPushdown")


def compare_scans(spark, inputs, where: str, pruned_frame, *, snapshot=None, index_dir=None,
                  columns: list[str] | None = None, hold: str = "persist",
                  external_roots: tuple[str, ...] = ()) -> dict:
    """Time a plain scan (selecting ``columns``) and compare its rows with ``pruned_frame``'s (which must
    be persisted, or a local relation). The plain scan's rows are held as the pruned scan's were
    (``hold``, see :func:`materialize`), so the two times differ only in how the rows were found.
    When they differ, ``disagreeing`` lists the files whose index answers the predicate unsoundly
    for their own rows (see :func:`disagreeing_files`).

    Spark's Parquet and ORC filter pushdown disagrees with Spark SQL on NaN and on -0.0 versus 0.0
    (its statistics and dictionary filters drop row groups that SQL's comparison would keep), so for
    a predicate on a FLOAT or DOUBLE column the plain scan runs with that pushdown off, and says so.
    """
    from pyspark.sql import functions as F

    resolved = resolve_inputs([inputs] if isinstance(inputs, str) else list(inputs), snapshot=snapshot,
                              index_dir=index_dir, external_roots=external_roots)
    types = predicate_types(resolved, scannable(resolved))
    floats = any(getattr(column_type(types, c), "root", None) in ("FLOAT", "DOUBLE")
                 for c in predicate_columns(parse_predicate(where, types)))
    saved = {key: spark.conf.get(key, "true") for key in PUSHDOWN_CONFS}
    started = time.perf_counter()
    try:
        if floats:
            for key in PUSHDOWN_CONFS:
                spark.conf.set(key, "false")
        plain, plain_rows = materialize(plain_scan(spark, resolved, where, columns=columns), hold)
    finally:
        for key, value in saved.items():
            spark.conf.set(key, value)
    plain_seconds = time.perf_counter() - started
    if hold != "persist":
        plain = plain.persist()  # untimed: compared below, row by row

    def as_json(frame):
        return frame.select(F.to_json(F.struct(*[spark_column(c) for c in frame.columns])).alias("row"))

    pruned_json, plain_json = as_json(pruned_frame.select(*[spark_column(c) for c in plain.columns])), as_json(plain)
    identical = (pruned_frame.count() == plain_rows and pruned_json.exceptAll(plain_json).isEmpty()
                 and plain_json.exceptAll(pruned_json).isEmpty())
    plain.unpersist()
    report = {"plain_seconds": plain_seconds, "plain_rows": plain_rows, "identical": identical,
              "plain_filter_pushdown": not floats}
    if not identical:
        report["disagreeing"] = disagreeing_files(spark, resolved, where)
    return report


def disagreeing_files(spark, resolved, where: str) -> list[dict]:
    """The files whose index leaves out rows of their own that match ``where`` (what makes a pruned
    scan lose rows), each with its first violation: the verify job with the predicate given."""
    from fileindex.pipeline.report import summarize
    from fileindex.spark.jobs import verify_indexes

    scanned = Inputs(scannable(resolved), resolved.table)
    summary = summarize([row.asDict() for row in verify_indexes(spark, scanned, where=[where]).collect()])
    first: dict[str, dict] = {}
    for violation in summary["violation_detail"]:
        first.setdefault(violation["file"], violation)
    return [{"file": file["file"], "index": file["index"], "status": file["status"],
             "detail": _what(first.get(file["file"]), file["note"])}
            for file in summary["files_detail"] if file["status"] == "violations"]


def _what(violation: dict | None, note: str) -> str:
    if violation is None:
        return note
    rows = ", ".join(str(w["row"]) for w in violation["witnesses"])
    return (f"{violation['kind']}: answered {violation['answer']} but {rows_match(violation['true_rows'])}"
            + (f" (rows {rows})" if rows else ""))


def with_speedup(report: dict) -> dict:
    report["speedup"] = report["plain_seconds"] / report["pruned_seconds"]
    return report


def speedup_text(speedup: float) -> str:
    """``4.1x faster``, or ``2.0x slower`` when the pruned scan took longer."""
    return f"{speedup:.1f}x faster" if speedup >= 1 else f"{1 / speedup:.1f}x slower"
