"""What judging a plain sidecar's staleness costs (``fileindex.io.staleness``), against reading its file whole.

    .venv/bin/python tools/bench_staleness.py [--rows 1000000] [--repeat 5]

Writes one Parquet file of ``--rows`` ids and 64 random bytes each, with a bloom-filter sidecar on the ids, then
times, interleaved, ``--repeat`` times each (wall and CPU seconds, the median): ``evaluate_file`` of ``id = -1``
(SKIP) with no source record (the time check), with one whose times match (untouched since the build), and with one
of a copy that kept no times (the sidecar older than its data file: the data file hashed); reading the file whole
(what a stale or unjudged sidecar costs); and ``build_file`` with and without the source record (hashing the data
file before it is read).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from checkout import use_checkout

use_checkout()

import pyarrow as pa
import pyarrow.parquet as pq

from fileindex.io import staleness
from fileindex.pipeline import build as pipeline_build
from fileindex.pipeline.build import build_file
from fileindex.pipeline.inputs import resolve_inputs
from fileindex.predicate.parser import parse_predicate
from fileindex.scan.reader import evaluate_file
from fileindex.types import parse_type

OPTIONS = {"file-index.bloom-filter.columns": "id", "file-index.bloom-filter.id.fpp": "0.001"}


def timed(work) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-staleness-"))
    try:
        data = folder / "part-0.parquet"
        noise = pa.array([os.urandom(64) for _ in range(args.rows)], pa.binary())
        pq.write_table(pa.table({"id": pa.array(range(args.rows), pa.int64()), "noise": noise}), data)
        (task,) = resolve_inputs([str(data)]).tasks
        build_file(task, OPTIONS)
        sidecar, record = task.sidecar_path(), staleness.record_path(task.sidecar_path())
        kept = record.read_bytes()
        predicate = parse_predicate("id = -1", {"id": parse_type("BIGINT")})
        older = os.stat(data).st_mtime_ns - 10**9
        built = os.stat(sidecar).st_mtime_ns

        def judged(with_record: bool, copied: bool):
            def work():
                os.utime(sidecar, ns=(older, older) if copied else (built, built))
                if with_record:
                    record.write_bytes(kept)
                else:
                    record.unlink(missing_ok=True)
                start = time.perf_counter(), time.process_time()
                verdict = evaluate_file(task, predicate)
                assert (verdict.result.kind == "SKIP") == (with_record or not copied), verdict
                return time.perf_counter() - start[0], time.process_time() - start[1]
            return work

        def rebuilt(with_record: bool):
            def work():
                saved = pipeline_build.source_of
                if not with_record:
                    pipeline_build.source_of = lambda *_: None  # type: ignore[assignment]
                try:
                    start = time.perf_counter(), time.process_time()
                    build_file(task, OPTIONS, overwrite=True)
                    return time.perf_counter() - start[0], time.process_time() - start[1]
                finally:
                    pipeline_build.source_of = saved
            return work

        cases = {"skip, no record (time check)": judged(False, False),
                 "skip, record, times match": judged(True, False),
                 "skip, record, copy (hashed)": judged(True, True),
                 "read whole (stale, no record)": lambda: timed(lambda: pq.read_table(data)),
                 "build, no record": rebuilt(False), "build, with record": rebuilt(True)}
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for _ in range(args.repeat):
            for name, work in cases.items():  # (interleaved: the machine's load falls on every case alike)
                runs[name].append(work())
        print(f"{args.rows} rows, {os.stat(data).st_size / 2**20:.1f} MiB; median of {args.repeat} (wall s, cpu s)")
        for name, times in runs.items():
            wall = statistics.median(t[0] for t in times)
            cpu = statistics.median(t[1] for t in times)
            print(f"  {name:34} {wall:8.4f} {cpu:8.4f}")
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
