#!/usr/bin/env python3
"""Cold starts: a new process per run for each import or command, beside ``import pyarrow.parquet`` and
pypaimon-rust's imports (in the peer's own interpreter, .venv-peer) in the same run.

    .venv/bin/python tools/bench_import.py [--runs N] [--source]

Runs are interleaved (one of each contender, N times); each prints the median wall and CPU seconds (user +
system of the child) and its ratio to ``import pyarrow.parquet``. Compiled bytecode is used as an installed
package has it: every contender's modules are compiled once into a private cache (PYTHONPYCACHEPREFIX)
before the timed runs; ``--source`` keeps the environment as it is (with PYTHONDONTWRITEBYTECODE set,
each run compiles this project's modules again). ``python -X importtime -c "from fileindex import
PaimonTable"`` shows where an import's time goes; tests/test_imports.py holds what each entry point imports.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

TABLE = "tests/tables/parquet/append_with_bitmap.db/append_with_bitmap"
OURS = [
    ("import fileindex", ["-c", "import fileindex"]),
    ("from fileindex import PaimonTable", ["-c", "from fileindex import PaimonTable"]),
    ("fileindex --help", ["-m", "fileindex", "--help"]),
    ("fileindex query (a bitmap v2 file)", ["-m", "fileindex", "query", "fileindex/samples/str_mixed__bitmap_v2.index",
                                            "--schema", "c STRING", "--where", "c = 'a'"]),
    ("fileindex read --where --json", ["-m", "fileindex", "read", TABLE, "--where", "f0 = 'Alice'", "--json"]),
]
BASELINE = ("import pyarrow.parquet", ["-c", "import pyarrow.parquet"])
PEER = [
    ("pypaimon-rust: import pypaimon_rust", ["-c", "import pypaimon_rust"]),
    ("pypaimon-rust: its SQL context", ["-c", "from pypaimon_rust.datafusion import SQLContext"]),
]


def timed(python: str, argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one new process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([python, *argv], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15, help="timed runs of each contender (medians)")
    parser.add_argument("--source", action="store_true", help="leave bytecode caching as the environment has it")
    args = parser.parse_args()
    ours = str(ROOT / ".venv" / "bin" / "python")
    contenders = [(label, ours, argv) for label, argv in [BASELINE, *OURS]]
    try:
        import bench_read

        peer = str(bench_read.peer_python())
        contenders += [(label, peer, argv) for label, argv in PEER]
    except (ImportError, OSError, subprocess.CalledProcessError) as err:
        print(f"pypaimon-rust left out: {err}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="bench-import-") as cache:
        env = dict(os.environ)
        if not args.source:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = cache
        for _, python, argv in contenders:  # compiles into the cache; not timed
            timed(python, argv, env)
        results: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in contenders}
        for _ in range(args.runs):
            for label, python, argv in contenders:
                results[label].append(timed(python, argv, env))
    base_wall = statistics.median(w for w, _ in results[BASELINE[0]])
    base_cpu = statistics.median(c for _, c in results[BASELINE[0]])
    print(f"{'cold start':44s} {'wall s':>8s} {'CPU s':>8s} {'wall x':>7s} {'CPU x':>7s}   (x: / {BASELINE[0]})")
    for label, runs in results.items():
        wall, cpu = statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)
        print(f"{label:44s} {wall:8.3f} {cpu:8.3f} {wall / base_wall:7.2f} {cpu / base_cpu:7.2f}")
    bytecode = 'as the environment has it' if args.source else 'compiled'
    print(f"medians of {args.runs} interleaved runs; bytecode {bytecode}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
