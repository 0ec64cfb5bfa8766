"""Benchmark of PaimonTable.scan(...).to_arrow() beside pypaimon-rust and a plain pyarrow.dataset read, in one run.

    .venv/bin/python tools/bench_read.py [--files 50] [--rows 200000] [--repeat 5] [--data DIR] [--memory]
        [--sections classic,engines,interleaved,cold,answers,scale] [--loaded] [--answers] [--only SUBSTRING ...]
        [--cold-python VENV/bin/python]: cold with the package as `pip install .` installs it (not editable)
        [--cold-baseline VENV/bin/python]: cold, another such install's read beside it (main's)
    .venv/bin/python tools/bench_read.py --sections scale [--scale 10000000,50000000] [--loaded]: the selective
        queries at each table size (50 files of 200k rows, then of 1M rows, one row group a file, as the peer
        writes), interleaved with DuckDB and the peer, and how each contender's time grows with the table
    .venv/bin/python tools/bench_read.py --sections interleaved --loaded --checkout main=../main --checkout this=.:
        a commit against another, each checkout in a process of its own, interleaved with the peers round by round
    .venv/bin/python tools/bench_read.py --store s3 [--latency 0.020] [--repeat 3] [--checkout main=../main]: the
        table on an S3 server behind a counting proxy: requests, bytes received and wall time per query, of this
        checkout and each --checkout round by round (tools/bench_read_store.py)

The table: --files data files of --rows rows (the main job's generator, ``fileindex.spark.demo.make_file``:
id, category, ts, amount; every file spans every id, and a few of each file's timestamps stray over every
day, so min/max statistics cannot prune), written by pypaimon-rust 0.4.0 with a bloom filter on ``id``, a
bitmap on ``category`` and a range bitmap on ``ts`` (sidecars); kept in DIR (bench-data/read) with its
recipe. pypaimon-rust runs in its own virtual environment (.venv-peer, made here from the package
registry on first use; never a dependency of the package) through tools/bench_read_peer.py.

Each query's row shows the data files the scan reads after pruning (``files``). Timed, medians of --repeat
warm runs after one untimed run, each from opening the table to holding every
result row in Arrow: this project's scan (a new PaimonTable each run); pypaimon-rust's SQL ``SELECT *``
(one SQLContext) and, where its predicate form can say the filter, its ReadBuilder plan + read; and
``pyarrow.dataset`` over the table's live data files with the same filter. Row counts must agree.

The engine routes follow, wall and CPU seconds (this process's, all threads) for the queries an engine
filters: ``scan(where).to_arrow()``; Polars ``scan().to_polars().filter(expression).collect()``; DuckDB SQL
over ``scan().to_duckdb(connection, name="orders")`` (registered each run in one connection; ``SELECT * ...
WHERE``, fetched as Arrow); pypaimon-rust's SQL.
``files``: the data files each of the three opens (counted at the reader); rows must agree.
``--memory`` also measures the peak resident memory of a full scan streamed through ``to_batches()``
in a fresh process, of this checkout and of each ``--checkout`` (medians of 3, alternating).
"""
from __future__ import annotations

import argparse
import contextlib
import datetime as dt
from collections import Counter
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import cast
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from checkout import ROOT, use_checkout

use_checkout()  # this checkout's package, installed or not

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from bench_read_peer import median_of, medians

from fileindex import PaimonTable
from fileindex.arrow import data_files
from fileindex.spark.demo import CATEGORIES, RARE_CATEGORY, START, DatasetSpec, make_file

PEER = "pypaimon-rust==0.4.0"
PEER_VENV = ROOT / ".venv-peer"


def peer_python() -> Path:
    python = PEER_VENV / "bin" / "python"
    if not python.exists():
        print(f"making {PEER_VENV} with {PEER} (once)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", PEER, "pyarrow"],
                       check=True)
    return python


def make_table(spec: DatasetSpec, data: Path) -> Path:
    root = data / "warehouse" / "default.db" / "orders"
    recipe = json.dumps({**vars(spec), "peer": PEER})
    marker = data / "RECIPE"
    if marker.is_file() and marker.read_text() == recipe:
        return root
    import shutil

    shutil.rmtree(data, ignore_errors=True)
    (data / "parquet").mkdir(parents=True)
    files = []
    for number in range(spec.files):
        path = data / "parquet" / f"part-{number:04d}.parquet"
        pq.write_table(make_file(spec, number).drop_columns(["attrs"]), path)
        files.append(str(path))
    started = time.perf_counter()
    subprocess.run([str(peer_python()), str(ROOT / "tools" / "bench_read_peer.py"), "write",
                    str(data / "warehouse"), *files], check=True)
    print(f"pypaimon-rust wrote the table in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    shutil.rmtree(data / "parquet")
    marker.write_text(recipe)
    return root


def queries(spec: DatasetSpec) -> list[dict]:
    some_id = int(spec.ids(spec.files // 2)[1234 % spec.rows_per_file])
    start = START + dt.timedelta(days=spec.files // 2, hours=12)
    end = start + dt.timedelta(minutes=20)
    window = f"ts >= TIMESTAMP '{start}' AND ts < TIMESTAMP '{end}'"
    three = [int(spec.ids(number)[4321 % spec.rows_per_file]) for number in (1, spec.files // 3, spec.files - 2)]
    listed = ", ".join(map(str, three))
    other = CATEGORIES[-1]
    either = f"category = '{RARE_CATEGORY}' OR category = '{other}'"
    return [
        {"name": "one id", "where": f"id = {some_id}", "sql": f"id = {some_id}",
         "filter": {"method": "equal", "field": "id", "literals": [some_id]},
         "arrow": pc.field("id") == some_id, "polars": pl.col("id") == some_id},
        {"name": "rare category", "where": f"category = '{RARE_CATEGORY}'", "sql": f"category = '{RARE_CATEGORY}'",
         "filter": {"method": "equal", "field": "category", "literals": [RARE_CATEGORY]},
         "arrow": pc.field("category") == RARE_CATEGORY, "polars": pl.col("category") == RARE_CATEGORY},
        {"name": "IN of 3 ids", "where": f"id IN ({listed})", "sql": f"id IN ({listed})",
         "filter": "none",
         "arrow": pc.field("id").isin(three), "polars": pl.col("id").is_in(three)},
        {"name": "OR of 2 categories", "where": either, "sql": either, "filter": "none",
         "arrow": (pc.field("category") == RARE_CATEGORY) | (pc.field("category") == other),
         "polars": (pl.col("category") == RARE_CATEGORY) | (pl.col("category") == other)},
        {"name": "20-minute window", "where": window, "sql": window, "filter": "none",
         "arrow": (pc.field("ts") >= pa.scalar(start, pa.timestamp("us"))) &
                  (pc.field("ts") < pa.scalar(end, pa.timestamp("us"))),
         "polars": (pl.col("ts") >= start) & (pl.col("ts") < end)},
        {"name": "full scan", "where": None, "sql": "", "filter": None, "arrow": None},
        {"name": "amount > 100 (most rows)", "where": "amount > 100.00", "sql": "amount > 100.00", "filter": "none",
         "arrow": pc.field("amount") > pa.scalar(100, pa.decimal128(12, 2))},
    ]


def ours(root: Path, where: str | None) -> int:
    return PaimonTable(root).scan(where).to_arrow().num_rows


def via_polars(root: Path, expression) -> int:
    return PaimonTable(root).scan().to_polars().filter(expression).collect().height


def via_duckdb(connection, root: Path, sql: str) -> int:
    PaimonTable(root).scan().to_duckdb(connection, name="orders")
    return connection.sql(f"SELECT * FROM orders WHERE {sql}").to_arrow_table().num_rows


def files_opened(run) -> int:
    """The data files ``run()`` opens (a reader made for them), each counted once."""
    opened: set[str] = set()
    original = data_files.DataFileReader.__init__

    def counting(self, source, *args, **kwargs):
        opened.add(str(getattr(source, "name", source)))  # (a file the store opened, or a path)
        original(self, source, *args, **kwargs)

    data_files.DataFileReader.__init__ = counting
    try:
        run()
    finally:
        data_files.DataFileReader.__init__ = original
    return len(opened)


def engine_routes(root: Path, cases: list[dict], peer: list[dict], repeat: int) -> None:
    print(f"\nengine routes: wall / CPU seconds, medians of {repeat} warm runs; files opened by where, Polars, DuckDB")
    connection = duckdb.connect()  # one database, as the peer's one SQLContext (making one takes ~0.1 s)
    print(f"{'query':<26} {'rows':>10} {'files':>10} {'where':>13} {'Polars':>13} {'DuckDB':>13} {'peer SQL':>13} "
          f"{'Polars/where':>12} {'DuckDB/where':>12}")
    for case, theirs in zip(cases, peer, strict=True):
        if "polars" not in case:
            continue
        routes = {"where": lambda case=case: ours(root, case["where"]),
                  "Polars": lambda case=case: via_polars(root, case["polars"]),
                  "DuckDB": lambda case=case: via_duckdb(connection, root, case["sql"])}
        figures = {name: medians(run, repeat) for name, run in routes.items()}
        peer_wall, peer_cpu, peer_rows = theirs["sql"]
        counts = {rows for _, _, rows in figures.values()} | {peer_rows}
        assert len(counts) == 1, (case["name"], figures, peer_rows)
        files = "/".join(str(files_opened(run)) for run in routes.values())
        shown = " ".join(f"{wall:>6.4f}/{cpu:<6.4f}" for wall, cpu, _ in [*figures.values(), (peer_wall, peer_cpu, 0)])
        where_wall = figures["where"][0]
        print(f"{case['name']:<26} {peer_rows:>10,} {files:>10} {shown} {figures['Polars'][0] / where_wall:>12.2f} "
              f"{figures['DuckDB'][0] / where_wall:>12.2f}")


def files_read(root: Path, where: str | None) -> int:
    """The data files the scan reads (all rows or the index's rows) after the funnel."""
    return sum(f.read in ("all", "rows") for f in PaimonTable(root).scan(where).plan())


def plain(files: list[str], expression) -> int:
    return ds.dataset(files, format="parquet").to_table(filter=expression).num_rows


def peak_memory(root: Path, checkout: Path = ROOT) -> int:
    """Peak resident KiB of a process streaming a full scan through to_batches() with ``checkout``'s package: its
    VmHWM (ru_maxrss would carry this process's peak over the fork and exec)."""
    program = ("import re, sys; sys.path.insert(0, sys.argv[2]);"
               "from fileindex import PaimonTable;"
               "n = sum(b.num_rows for b in PaimonTable(sys.argv[1]).scan().to_batches());"
               "print(n, re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1))")
    out = subprocess.run([sys.executable, "-c", program, str(root), str(checkout.resolve())], check=True,
                         capture_output=True, text=True, cwd=checkout).stdout.split()
    return int(out[1])


def peak_memories(root: Path, rounds: int = 3) -> None:
    """:func:`peak_memory` of this checkout and each ``--checkout``, fresh processes alternating, medians."""
    checkouts = {"ours": ROOT, **{name: Path(path) for name, path in CHECKOUTS.items()}}
    peaks: dict[str, list[int]] = {name: [] for name in checkouts}
    for _ in range(rounds):
        for name, path in checkouts.items():
            peaks[name].append(peak_memory(root, path))
    load = os.getloadavg()[0]
    for name, found in peaks.items():
        print(f"full scan through to_batches(), {name}: peak {statistics.median(found) / 1024:,.0f} MiB resident "
              f"(of {', '.join(f'{kib / 1024:.0f}' for kib in sorted(found))}; load {load:.1f})")


# -- interleaved rounds, cold processes, a loaded machine (#54) -----------------------------------------------

SECTIONS = ("classic", "engines", "interleaved", "cold", "answers", "scale")
SELECTIVE = ("one id", "rare category", "IN of 3 ids")  # the queries the cold section runs (small answers)


def duckdb_parquet(connection, files: list[str], sql: str) -> int:
    """DuckDB over the same Parquet files, the same WHERE: what many users would pick instead of a table reader."""
    listed = ", ".join(f"'{name}'" for name in files)
    where = f" WHERE {sql}" if sql else ""
    return connection.sql(f"SELECT * FROM read_parquet([{listed}]){where}").to_arrow_table().num_rows


def timed(run) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of this process with all its threads, rows) of one run."""
    started, cpu = time.perf_counter(), time.process_time()
    rows = run()
    return time.perf_counter() - started, time.process_time() - cpu, rows


class PeerServer:
    """pypaimon-rust's SQL in a long-lived process of its own (``bench_read_peer.py serve``), one query a call."""

    def __init__(self, warehouse: Path):
        self.process = subprocess.Popen([str(peer_python()), str(ROOT / "tools" / "bench_read_peer.py"), "serve",
                                         str(warehouse)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, sql: str) -> tuple[float, float, int]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(sql) + "\n")
        self.process.stdin.flush()
        wall, cpu, rows = json.loads(self.process.stdout.readline())
        return wall, cpu, rows

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


CHECKOUT_SERVER = """
import json, sys, time
sys.path.insert(0, sys.argv[1] + "/tools")
from checkout import use_checkout
use_checkout()
from fileindex import PaimonTable
for line in sys.stdin:
    where = json.loads(line) or None
    started, cpu = time.perf_counter(), time.process_time()
    rows = PaimonTable(sys.argv[2]).scan(where).to_arrow().num_rows
    print(json.dumps([time.perf_counter() - started, time.process_time() - cpu, rows]), flush=True)
"""


class CheckoutServer(PeerServer):
    """Another checkout of this project (``--checkout NAME=PATH``: a commit to compare with) in a long-lived
    process of its own, ``ours`` one query a call, as :class:`PeerServer` serves the peer."""

    def __init__(self, checkout: str, root: Path):  # pylint: disable=super-init-not-called
        self.process = subprocess.Popen([sys.executable, "-c", CHECKOUT_SERVER, str(Path(checkout).resolve()),
                                         str(root)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        cwd=checkout)


CHECKOUTS: dict[str, str] = {}  # --checkout NAME=PATH: other checkouts run beside ours (interleaved, scale)


def interleaved_runs(root: Path, files: list[str], cases: list[dict],
                     repeat: int) -> dict[tuple[str, str], tuple[float, float]]:
    """Each query by ours, each ``--checkout``, DuckDB over the Parquet files and the peer's SQL, one after the
    other, round after round (a round untimed first): a change of load meets every contender alike. (query,
    contender) -> the medians of wall / CPU seconds; row counts must agree."""
    connection = duckdb.connect()
    peer = PeerServer(root.parent.parent)
    others = {name: CheckoutServer(path, root) for name, path in CHECKOUTS.items()}
    runners = {"ours": lambda case: timed(lambda: ours(root, case["where"])),
               **{name: lambda case, server=server: server.run(case["where"] or "")
                  for name, server in others.items()},
               "DuckDB parquet": lambda case: timed(lambda: duckdb_parquet(connection, files, case["sql"])),
               "peer SQL": lambda case: peer.run(case["sql"])}
    figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
    try:
        for round_number in range(repeat + 1):
            for case in cases:
                counts = set()
                for name, runner in runners.items():
                    wall, cpu, rows = runner(case)
                    counts.add(rows)
                    if round_number:
                        figures.setdefault((case["name"], name), []).append((wall, cpu))
                assert len(counts) == 1, (case["name"], counts)
    finally:
        peer.close()
        for server in others.values():
            server.close()
    return {key: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
            for key, runs in figures.items()}


PEERS = ("DuckDB parquet", "peer SQL")


def contenders() -> tuple[str, ...]:
    return ("ours", *CHECKOUTS, *PEERS)


def interleaved(root: Path, files: list[str], cases: list[dict], repeat: int) -> None:
    """``interleaved_runs`` of every query, printed (ours/best: against the peers, not the ``--checkout`` ones)."""
    load = os.getloadavg()[0]
    figures = interleaved_runs(root, files, cases, repeat)
    print(f"\ninterleaved: wall / CPU seconds, medians of {repeat} rounds (contenders one after the other each "
          f"round); load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    print(f"{'query':<26} " + " ".join(f"{name:>15}" for name in contenders()) + f" {'ours/best wall':>14} "
          f"{'ours/best CPU':>13}")
    for case in cases:
        medians_of = {name: figures[case["name"], name] for name in contenders()}
        (our_wall, our_cpu), others = medians_of["ours"], [medians_of[name] for name in PEERS]
        print(f"{case['name']:<26} " + " ".join(f"{w:>7.4f}/{c:<7.4f}" for w, c in medians_of.values())
              + f" {our_wall / min(w for w, _ in others):>14.2f} {our_cpu / min(c for _, c in others):>13.2f}")


SCALED = ("one id", "rare category", "IN of 3 ids", "20-minute window")  # the queries the scale section runs


def scale(files: int, sizes: list[int], data: Path, repeat: int) -> None:
    """The selective queries at each table size (``--scale``: total rows, ``--files`` files each, one row group a
    file as pypaimon-rust writes), contenders interleaved as in ``interleaved``; then each contender's wall time
    at the largest size over its time at the smallest."""
    figures: dict[tuple[int, str, str], tuple[float, float]] = {}
    for size in sizes:
        spec = DatasetSpec(files=files, rows_per_file=size // files)
        root = make_table(spec, data / f"{files}x{spec.rows_per_file}")
        table = PaimonTable(root)
        paths = [str(table.data_path(entry)) for entry, _ in table.live()]
        cases = [case for case in queries(spec) if case["name"] in SCALED]
        for (name, contender), found in interleaved_runs(root, paths, cases, repeat).items():
            figures[size, name, contender] = found
    print(f"\nscale: wall / CPU seconds, medians of {repeat} interleaved rounds, {files} files at each size; load "
          f"average {' '.join(f'{v:.1f}' for v in os.getloadavg())} at the end")
    print(f"{'query':<20} {'rows':>11} " + " ".join(f"{name:>15}" for name in contenders())
          + f" {'ours/best wall':>14} {'ours/best CPU':>13}")
    for name in SCALED:
        for size in sizes:
            cells = [figures[size, name, contender] for contender in contenders()]
            best_wall, best_cpu = (min(figures[size, name, peer][k] for peer in PEERS) for k in (0, 1))
            print(f"{name:<20} {size:>11,} " + " ".join(f"{w:>7.4f}/{c:<7.4f}" for w, c in cells)
                  + f" {cells[0][0] / best_wall:>14.2f} {cells[0][1] / best_cpu:>13.2f}")
        if len(sizes) > 1:
            growth = [figures[sizes[-1], name, c][0] / figures[sizes[0], name, c][0] for c in contenders()]
            print(f"{'':<20} {f'{sizes[-1] // sizes[0]}x rows':>11} " + " ".join(f"{g:>14.2f}x" for g in growth))


def process_seconds(command: list[str], env: dict[str, str], cwd: Path = ROOT) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of a new process running ``command`` to its end (its output dropped)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=cwd, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


INSTALL = ("import sys, fileindex; hooked = any('__editable__' in getattr(f, '__module__', '') for f in sys.meta_path);"
           "print(('editable install (its import hook loaded at start-up)' if hooked else 'plain install (pip install "
           ".)') + ': ' + fileindex.__file__)")


def installed(python: str, cwd: Path) -> str:
    """Which install of the package ``python`` imports from ``cwd``, and where from."""
    return subprocess.run([python, "-c", INSTALL], check=True, capture_output=True, text=True, cwd=cwd).stdout.strip()


def cold(root: Path, files: list[str], cases: list[dict], repeat: int, ours: Path | None = None,
         baseline: Path | None = None) -> None:
    """A new process per query (import + plan + read), contenders interleaved round by round: ``fileindex read
    ROOT --where ... --json``; ``PaimonTable(ROOT).scan(where).to_arrow()``; pypaimon-rust's import + SQL;
    DuckDB's import + read_parquet. Then the imports alone. Medians of wall / CPU seconds (the child's).
    Every child compiles its modules once, into a bytecode cache of this run (the untimed first round fills it),
    as an installed package's are: PYTHONDONTWRITEBYTECODE in the environment would have this checkout's
    modules compiled from source in every process, and pyarrow's not (their bytecode came with the wheel).
    ``ours``: the interpreter of a virtual environment where the package is installed as a user installs it
    (``pip install .``), run outside this checkout; by default this interpreter, on this checkout (an editable
    install's import hook costs each process 30-45 ms of start-up a plain install does not pay). ``baseline``: the
    interpreter of another such environment (say, main's), whose ``fileindex read`` runs in the same rounds."""
    python = str(ours.absolute()) if ours else sys.executable  # (not resolved: a venv's python is a symlink)
    where = Path(tempfile.mkdtemp(prefix="bench-read-cwd-")) if ours else ROOT  # (-m would find this checkout)
    print(f"\ncold: fileindex from the {installed(python, where)}")
    other = str(baseline.absolute()) if baseline else None
    if other:
        print(f"cold: baseline read from the {installed(other, where)}")
    duck_python, peer = sys.executable, [str(peer_python()), str(ROOT / "tools" / "bench_read_peer.py"), "cold",
                                         str(root.parent.parent)]
    api = ("import sys; from fileindex import PaimonTable;"
           "print(PaimonTable(sys.argv[1]).scan(sys.argv[2]).to_arrow().num_rows)")
    duck = ("import sys, duckdb; files = ', '.join(repr(f) for f in sys.argv[2:]);"
            "print(len(duckdb.sql(f'SELECT * FROM read_parquet([{files}]) WHERE {sys.argv[1]}').fetchall()))")
    rows: dict[str, dict[str, list[str]]] = {}
    for case in (c for c in cases if c["name"] in SELECTIVE):
        rows[case["name"]] = {"fileindex read": [python, "-m", "fileindex", "read", str(root), "--where", case["where"],
                                                 "--json"],
                              **({"baseline read": [other, "-m", "fileindex", "read", str(root), "--where",
                                                    case["where"], "--json"]} if other else {}),
                              "PaimonTable": [python, "-c", api, str(root), case["where"]],
                              "peer SQL": [*peer, case["sql"]],
                              "DuckDB parquet": [duck_python, "-c", duck, case["sql"], *files]}
    rows["import"] = {"fileindex read": [python, "-m", "fileindex", "--version"],
                      **({"baseline read": [other, "-m", "fileindex", "--version"]} if other else {}),
                      "PaimonTable": [python, "-c", "from fileindex import PaimonTable"],
                      "peer SQL": [str(peer_python()), "-c", "import pypaimon_rust.datafusion"],
                      "DuckDB parquet": [duck_python, "-c", "import duckdb"],
                      "pyarrow.parquet": [python, "-c", "import pyarrow.parquet"]}
    figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
    bytecode = tempfile.TemporaryDirectory(prefix="bench-read-bytecode-")
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
           "PYTHONPYCACHEPREFIX": bytecode.name}
    for round_number in range(repeat + 1):
        for name, commands in rows.items():
            for contender, command in commands.items():
                measured = process_seconds(command, env, where if command[0] in (python, other) else ROOT)
                if round_number:
                    figures.setdefault((name, contender), []).append(measured)
    bytecode.cleanup()
    if ours:
        import shutil

        shutil.rmtree(where, ignore_errors=True)
    contenders = ["fileindex read", *(["baseline read"] if other else []), "PaimonTable", "peer SQL", "DuckDB parquet",
                  "pyarrow.parquet"]
    print(f"\ncold: a new process per query, wall / CPU seconds, medians of {repeat} rounds (import row: "
          "`fileindex --version`, `from fileindex import PaimonTable`, the peer's and DuckDB's and pyarrow.parquet's "
          "imports)")
    print(f"{'query':<26} " + " ".join(f"{name:>15}" for name in contenders) + f" {'read/peer wall':>14}")
    for name in rows:
        cells = []
        for contender in contenders:
            found = figures.get((name, contender))
            wall, cpu = (statistics.median(w for w, _ in found), statistics.median(c for _, c in found)) if found \
                else (0.0, 0.0)
            cells.append(f"{wall:>7.3f}/{cpu:<7.3f}" if found else f"{'-':>15}")
        read, theirs = (statistics.median(w for w, _ in figures[name, who]) for who in ("fileindex read", "peer SQL"))
        print(f"{name:<26} " + " ".join(cells) + f" {read / theirs:>14.2f}")


@contextlib.contextmanager
def neighbours(count: int) -> Iterator[None]:
    """``count`` CPU-bound neighbour processes running meanwhile (a loaded machine), stopped after."""
    started = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for process in started:
            process.kill()
            process.wait()
def answer_queries(spec: DatasetSpec) -> list[tuple[str, str | None, str, bool]]:
    """(name, where, the column a read for the count reads, whether the index answers it exactly) of the counts
    compared."""
    by_name = {case["name"]: case for case in queries(spec)}
    listed = ", ".join(f"'{c}'" for c in (RARE_CATEGORY, CATEGORIES[-1]))
    return [("rare category", by_name["rare category"]["where"], "category", True),
            ("category IN (2)", f"category IN ({listed})", "category", True),
            ("20-minute window", by_name["20-minute window"]["where"], "ts", True),
            ("one id (bloom)", by_name["one id"]["where"], "id", False),
            ("amount > 100 (no index)", by_name["amount > 100 (most rows)"]["where"], "amount", False),
            ("every row", None, "id", True)]


def with_another_value(name: str, spec: DatasetSpec, number: int) -> str | None:
    """The ``number``-th other predicate of the count case ``name``'s shape: another category, pair, window, id
    or bound (the first dozen all different, and none the case's own); None for a case without a value."""
    categories = CATEGORIES[number % len(CATEGORIES)], CATEGORIES[(number + 1) % len(CATEGORIES)]
    start = START + dt.timedelta(days=spec.files // 2, hours=13 + number)
    return {"rare category": f"category = '{categories[0]}'",
            "category IN (2)": f"category IN ('{categories[0]}', '{categories[1]}')",
            "20-minute window": f"ts >= TIMESTAMP '{start}' AND ts < TIMESTAMP '{start + dt.timedelta(minutes=20)}'",
            "one id (bloom)": f"id = {int(spec.ids(number % spec.files)[(777 + number) % spec.rows_per_file])}",
            "amount > 100 (no index)": f"amount > {101 + number}.00"}.get(name)


def another_value(root: Path, name: str, where: str | None, spec: DatasetSpec, repeat: int,
                  duckdb_count) -> tuple[float, float, int] | None:
    """``count()`` on one PaimonTable (warmed by the case's own predicate) of another value each run: nothing of
    its plans is reused, only what it keeps below them (its files, their opened indexes). Each count checked
    against DuckDB's (untimed)."""
    if with_another_value(name, spec, 0) is None:
        return None
    table = PaimonTable(root)
    table.scan(where).count()
    asked: list[tuple[str, int]] = []

    def count_another() -> int:
        other = cast(str, with_another_value(name, spec, len(asked)))
        asked.append((other, table.scan(other).count()))
        return asked[-1][1]

    timing = medians(count_another, repeat)
    assert len({other for other, _ in asked}) == len(asked), asked  # (never a plan the table kept)
    for other, count in asked:
        assert count == duckdb_count(other), (other, count)
    return timing


def answers(root: Path, files: list[str], spec: DatasetSpec, repeat: int) -> None:
    """``count()`` and top-10 (#55) beside pypaimon-rust's SQL and DuckDB over the same Parquet files (one
    connection each, made once), and beside this scan reading the predicate's column (``read column``: what a
    count reads of a file the index does not answer): wall and CPU seconds, medians; the counts and the top values
    must agree."""
    cases = answer_queries(spec)
    top = "ts DESC"
    sql = [f"SELECT count(*) FROM {{table}}{f' WHERE {where}' if where else ''}" for _, where, _, _ in cases]
    request = {"queries": [{"sql": q} for q in sql] + [{"sql": f"SELECT * FROM {{table}} ORDER BY {top} LIMIT 10",
                                                         "rows": True}], "repeat": repeat}
    peer = json.loads(subprocess.run([str(peer_python()), str(ROOT / "tools" / "bench_read_peer.py"), "answers",
                                      str(root.parent.parent), json.dumps(request)],
                                     check=True, capture_output=True, text=True).stdout)
    connection = duckdb.connect()
    listed = "read_parquet([" + ", ".join(f"'{f}'" for f in files) + "])"
    print(f"\ncount() and top-10 (#55): wall / CPU seconds, medians of {repeat} warm runs; count(): a new "
          "PaimonTable each run (the snapshot's metadata read, the plan made); same table: repeated on one PaimonTable "
          "(its plan kept); another value: one PaimonTable asked another value of the same shape each run (a new "
          "plan; its files and opened indexes kept), beside DuckDB's and the peer's figures for the case's own value; "
          "DuckDB: read_parquet over the table's data files")
    print(f"{'query':<24} {'count':>10} {'same table':>15} {'another value':>15} {'count()':>15} {'read column':>15} "
          f"{'DuckDB':>15} {'peer SQL':>15} {'fastest/same':>12} {'fastest/another':>15} {'fastest/count()':>15}  "
          "files answered by")
    same = PaimonTable(root)

    def duckdb_count(where: str) -> int:
        return connection.sql(f"SELECT count(*) FROM {listed} WHERE {where}").fetchall()[0][0]

    for (name, where, column, by_index), statement, theirs in zip(cases, sql, peer[:-1], strict=True):
        warm = medians(lambda where=where: same.scan(where).count(), repeat)
        ours = medians(lambda where=where: PaimonTable(root).scan(where).count(), repeat)
        reading = medians(lambda where=where, column=column: sum(b.num_rows for b in PaimonTable(root).scan(
            where, [column]).to_batches()), repeat)
        duck = medians(lambda statement=statement: connection.sql(statement.format(table=listed)).fetchall()[0][0],
                       repeat)
        assert warm[2] == ours[2] == reading[2] == duck[2] == theirs[2], (name, warm, ours, reading, duck, theirs)
        answered = Counter(f["answered_by"] for f in PaimonTable(root).scan(where).explain(count=True).as_dict()
                           ["files"])
        fastest = min(duck[0], theirs[0])
        other = another_value(root, name, where, spec, repeat, duckdb_count)
        shown = [f"{wall:>7.4f}/{cpu:<7.4f}" for wall, cpu, _ in (warm, ours, reading, duck, theirs)]
        shown.insert(1, f"{other[0]:>7.4f}/{other[1]:<7.4f}" if other else f"{'':>15}")
        print(f"{name:<24} {ours[2]:>10,} " + " ".join(shown)
              + f" {fastest / warm[0]:>12.1f} " + (f"{fastest / other[0]:>15.1f}" if other else f"{'':>15}")
              + f" {fastest / ours[0]:>15.1f}  "
              + ", ".join(f"{how} {n}" for how, n in sorted(answered.items())))
        assert by_index == (answered.get("read", 0) == 0), (name, answered)
    warm = medians(lambda: same.scan(limit=10, order_by=top).to_arrow().column("ts").to_pylist(), repeat)
    ours = medians(lambda: PaimonTable(root).scan(limit=10, order_by=top).to_arrow().column("ts").to_pylist(),
                   repeat)
    duck = medians(lambda: [r[0] for r in connection.sql(
        f"SELECT ts FROM {listed} ORDER BY {top} LIMIT 10").fetchall()], repeat)
    theirs = peer[-1]
    assert warm[2] == ours[2] == duck[2] and [str(v) for v in ours[2]] == [str(r["ts"]) for r in theirs[2]], \
        (warm, ours, duck, theirs)
    fastest = min(duck[0], theirs[0])
    print(f"{'top-10 by ts DESC':<24} {10:>10,} {warm[0]:>7.4f}/{warm[1]:<7.4f} {'':>15} "
          f"{ours[0]:>7.4f}/{ours[1]:<7.4f} {'':>15} {duck[0]:>7.4f}/{duck[1]:<7.4f} "
          f"{theirs[0]:>7.4f}/{theirs[1]:<7.4f} "
          f"{fastest / warm[0]:>12.1f} {'':>15} {fastest / ours[0]:>15.1f}  (range-bitmap top-N per file)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=50)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", type=Path, default=ROOT / "bench-data" / "read")
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--store", choices=("s3",),
                        help="instead: the table on an S3 server behind a counting proxy (tools/bench_read_store.py)")
    parser.add_argument("--latency", type=float, default=0.020, help="--store: seconds added to every request")
    parser.add_argument("--sections", default="classic,engines",
                        help=f"comma-separated, of {', '.join(SECTIONS)} (interleaved: ours, DuckDB over the Parquet "
                             "files and the peer, round by round; cold: a new process per query)")
    parser.add_argument("--cold-python", type=Path,
                        help="cold: the python of a virtual environment where `pip install .` installed the package "
                             "(run outside this checkout: no editable install's import hook); default: this one")
    parser.add_argument("--cold-baseline", type=Path,
                        help="cold: the python of another such environment (say, main's), whose `fileindex read` runs "
                             "in the same rounds as a column of its own")
    parser.add_argument("--loaded", action="store_true",
                        help="run with a CPU-bound neighbour process per core (a loaded machine)")
    parser.add_argument("--checkout", action="append", default=[], metavar="NAME=PATH",
                        help="interleaved, scale, --store: also another checkout of this project (e.g. main's), in "
                             "a process of its own, beside ours each round")
    parser.add_argument("--answers", action="store_true", help="only count() and top-10 (#55): --sections answers")
    parser.add_argument("--only", action="append", default=[], metavar="SUBSTRING",
                        help="every section but scale: only the queries whose name contains this (given again: or "
                             "that one)")
    parser.add_argument("--scale", default="10000000,50000000",
                        help="the scale section: comma-separated total rows, a table of --files files each (built "
                             "from the recipe into --data once; 50M rows take about 2.5 GiB)")
    args = parser.parse_args()
    sections = [name.strip() for name in args.sections.split(",") if name.strip()]
    unknown = sorted(set(sections) - set(SECTIONS))
    if unknown:
        parser.error(f"--sections: unknown {', '.join(unknown)} (of {', '.join(SECTIONS)})")
    args.data = args.data.resolve()  # (the peer's writer takes no relative warehouse)
    for item in args.checkout:
        name, _, path = item.partition("=")
        if not path or not (Path(path) / "tools" / "checkout.py").is_file():
            parser.error(f"--checkout {item}: give NAME=PATH, PATH a checkout of this project")
        CHECKOUTS[name] = path
    if sections == ["scale"]:
        with neighbours(len(os.sched_getaffinity(0))) if args.loaded else contextlib.nullcontext():
            scale(args.files, [int(size) for size in args.scale.split(",")], args.data, args.repeat)
        return
    spec = DatasetSpec(files=args.files, rows_per_file=args.rows)
    cases = [case for case in queries(spec) if not args.only or any(part in case["name"] for part in args.only)]
    if not cases:
        parser.error(f"--only: no query's name contains {' or '.join(map(repr, args.only))}")
    root = make_table(spec, args.data / f"{args.files}x{args.rows}")
    if args.store:
        from bench_read_store import store_benchmark

        store_benchmark(root, cases, peer_python(), args.repeat, args.latency, CHECKOUTS)
        return
    table = PaimonTable(root)
    files = [str(table.data_path(entry)) for entry, _ in table.live()]
    if args.answers:
        sections = ["answers"]
    print(f"{spec.files} files x {spec.rows_per_file:,} rows" + (" (loaded: a CPU-bound neighbour per core)"
                                                                   if args.loaded else ""))
    with neighbours(len(os.sched_getaffinity(0))) if args.loaded else contextlib.nullcontext():
        if "classic" in sections or "engines" in sections:
            request = {"queries": [{"sql": q["sql"], "filter": q["filter"]} for q in cases], "repeat": args.repeat}
            peer = json.loads(subprocess.run([str(peer_python()), str(ROOT / "tools" / "bench_read_peer.py"), "time",
                                              str(root.parent.parent), json.dumps(request)],
                                             check=True, capture_output=True, text=True).stdout)
        if "classic" in sections:
            classic(root, files, cases, peer, args.repeat)
        if "engines" in sections:
            engine_routes(root, cases, peer, args.repeat)
        if "interleaved" in sections:
            interleaved(root, files, cases, args.repeat)
        if "cold" in sections:
            cold(root, files, cases, args.repeat, args.cold_python, args.cold_baseline)
        if "answers" in sections:
            answers(root, files, spec, args.repeat)
        if "scale" in sections:
            scale(args.files, [int(size) for size in args.scale.split(",")], args.data, args.repeat)
        if args.memory:
            peak_memories(root)


def classic(root: Path, files: list[str], cases: list[dict], peer: list[dict], repeat: int) -> None:
    print(f"medians of {repeat} warm runs, seconds")
    print(f"{'query':<26} {'rows':>10} {'files':>5} {'ours':>8} {'peer SQL':>9} {'peer RB':>8} {'pyarrow':>8} "
          f"{'ours/peer':>9} {'pyarrow/ours':>12}")
    for case, theirs in zip(cases, peer, strict=True):
        our_time, rows = median_of(lambda case=case: ours(root, case["where"]), repeat)
        plain_time, plain_rows = median_of(lambda case=case: plain(files, case["arrow"]), repeat)
        sql_time, _, sql_rows = theirs["sql"]
        builder = theirs.get("read_builder")
        counts = {rows, plain_rows, sql_rows} | ({builder[1]} if builder else set())
        assert len(counts) == 1, (case["name"], rows, plain_rows, sql_rows, builder)
        print(f"{case['name']:<26} {rows:>10,} {files_read(root, case['where']):>5} {our_time:>8.4f} {sql_time:>9.4f} "
              f"{builder[0] if builder else float('nan'):>8.4f} {plain_time:>8.4f} {our_time / sql_time:>9.2f} "
              f"{plain_time / our_time:>12.1f}")


if __name__ == "__main__":
    main()
