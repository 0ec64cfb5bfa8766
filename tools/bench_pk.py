"""Benchmark of reading a primary-key (deduplicate) table: this project's ``PaimonTable.scan(...).to_arrow()``
beside pypaimon 2.1 and pypaimon-rust, in one run.

    .venv/bin/python tools/bench_pk.py [--rows 10000000] [--buckets 4] [--updates 2] [--repeat 3] [--data DIR]
        [--writer java|pypaimon] [--rounds 1] [--checkout NAME=PATH ...]

The table (written once into DIR, .cache/bench-pk by default, beside its recipe; rewritten when the recipe
changes): ``id BIGINT`` primary key, ``name``, ``cat`` (8 categories) and ``v``, --buckets buckets, written by
Java Paimon 0.9.0 (``tools/java/PkTables.java``'s ``bench`` op, which generates the rows in the JVM): a load of
--rows keys, a full compaction (each bucket's file goes to the top level), then --updates commits without
compaction, each updating a tenth of the keys (drawn at random), the last of which also gives one key the
category ``rare``. Every bucket then holds a top-level file and --updates overlapping level-0 files, keys
repeated across them, so each read merges ~1.2 records per row by key. Java also gives each file a bitmap
index on ``cat`` (0.9.0's ``DataFileIndexWriter`` over the file's value rows, as Paimon 1.x's key-value
writer does; a sidecar at this size). Java writes it in 110 to 220 s at 10M rows (2 cores, loaded).
pypaimon 2.1 reads no table Java 0.9.0 wrote (its manifest reader requires ``_VALUE_STATS_COLS``, a field
of Paimon 1.0's manifests): its rows say so. ``--writer pypaimon`` has pypaimon 2.1 write the table instead
(Paimon 1.x manifests, which all three read; its own venv; .cache/bench-pk-pypaimon by default): the same rows
and commits without the compaction (pypaimon 2.1 compacts nothing: every bucket holds 1 + --updates overlapping
sorted runs on level 0) and without file indexes (it writes none), so ``cat = 'rare'`` reads every bucket.

Queries: every row; one key (``id = X``: the bucket stage keeps its bucket; in each of its files the key filter
reads the key's page, by the key column's page index, and the other columns of the matching record's pages); one
indexed value (``cat = 'rare'``: the whole-bucket rule drops every bucket none of whose files' index holds it,
and reads the one that holds it whole). Each reader runs in a process of its own (pypaimon 2.1 pins
``pyarrow<20``, so it lives in ``.venv-pypaimon``, pypaimon-rust in ``.venv-peer``, both made here from the
package registry on first use): one untimed run, then the median of --repeat runs, wall and CPU seconds (the
process's, all threads), and the process's peak resident memory. Row counts must agree. With --rounds N every
contender runs N times, interleaved (each round runs each one in turn, so the machine's load falls on them alike),
and the table shows the medians over the rounds (each round's figures and load average go to stderr);
--checkout NAME=PATH (repeated) adds this project at other checkouts (each runs its own tools/bench_pk.py's
child), e.g. ``--checkout main=/work/main``.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEER, PEER_VENV = "pypaimon-rust==0.4.0", ROOT / ".venv-peer"
PYPAIMON, PYPAIMON_VENV = "pypaimon==2.1.0", ROOT / ".venv-pypaimon"
CATEGORIES = [f"c{i}" for i in range(8)]
RARE = "rare"


def venv_python(venv: Path, package: str) -> Path:
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"making {venv} with {package} (once)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", package],
                       check=True)
    return python


# -- writing (by Java Paimon 0.9.0, tools/java/PkTables.java) --------------------------------------------------

def write(data: Path, rows: int, buckets: int, updates: int, rare_id: int) -> str:
    """The table's root: a load of ``rows`` keys, a full compaction, then ``updates`` commits of a tenth of the
    keys each (without compaction: level-0 files), the last giving ``rare_id`` the category RARE."""
    from pk_tables import JavaPk

    java = JavaPk("pk-bench-java")  # (its own build: the shared pk-tables-java stays the tests')

    def ask(request: dict) -> dict:
        started = time.perf_counter()
        answer = java.ask(request)
        if "error" in answer:
            sys.exit(f"bench_pk: Java failed on {request['op']}: {answer['error']}")
        print(f"  Java {request['op']}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
        return answer

    try:
        root = ask({"op": "create", "warehouse": str(data / "warehouse"), "table": "t",
                    "columns": [["id", "BIGINT"], ["name", "STRING"], ["cat", "STRING"], ["v", "BIGINT"]],
                    "primary_keys": ["id"], "partition_keys": [],
                    "options": {"bucket": str(buckets), "file.format": "parquet", "write-only": "true",
                                "file-index.bitmap.columns": "cat"}})["path"]
        ask({"op": "bench", "table": root, "keys": rows, "version": 0, "every": 1, "seed": 0, "rare": -1,
             "index": True})
        ask({"op": "compact", "table": root, "index": True})
        for version in range(1, updates + 1):
            ask({"op": "bench", "table": root, "keys": rows, "version": version, "every": 10, "seed": version,
                 "rare": rare_id if version == updates else -1, "index": True})
    finally:
        java.close()
    return root


def write_pypaimon(data: Path, rows: int, buckets: int, updates: int, rare_id: int) -> str:
    """The table written by pypaimon 2.1 (in its venv): the rows and commits of :func:`write`, without the
    compaction and the indexes (pypaimon 2.1 writes neither)."""
    python = venv_python(PYPAIMON_VENV, PYPAIMON)
    subprocess.run([str(python), __file__, "--write-pypaimon", json.dumps([str(data / "warehouse"), rows, buckets,
                                                                          updates, rare_id])], check=True)
    return str(data / "warehouse" / "db.db" / "t")


def pypaimon_writes(warehouse: str, rows: int, buckets: int, updates: int, rare_id: int) -> None:
    """(In pypaimon 2.1's venv.) A load of ``rows`` keys, then ``updates`` commits of a random tenth of them
    each, the last giving ``rare_id`` the category RARE; ``name`` says the key and commit, ``v`` = 10 id +
    commit."""
    import numpy as np
    import pyarrow as pa
    from pypaimon import CatalogFactory, Schema

    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), ("name", pa.string()), ("cat", pa.string()),
                        ("v", pa.int64())])
    catalog.create_table("db.t", Schema.from_pyarrow_schema(schema, primary_keys=["id"], options={
        "bucket": str(buckets), "file.format": "parquet"}), True)
    table = catalog.get_table("db.t")

    def commit(ids: np.ndarray, version: int) -> None:
        started = time.perf_counter()
        builder = table.new_batch_write_builder()
        writer, committer = builder.new_write(), builder.new_commit()
        for first in range(0, len(ids), 1_000_000):
            part = ids[first:first + 1_000_000].tolist()
            writer.write_arrow(pa.table({
                "id": part, "name": [f"name-{i}-{version}" for i in part],
                "cat": [RARE if i == rare_id and version == updates else CATEGORIES[i % 8] for i in part],
                "v": [10 * i + version for i in part]}, schema=schema))
        committer.commit(writer.prepare_commit())
        writer.close()
        committer.close()
        print(f"  pypaimon 2.1 commit {version}: {time.perf_counter() - started:.0f} s", file=sys.stderr)

    commit(np.arange(rows, dtype=np.int64), 0)
    draw = np.random.default_rng(0)
    for version in range(1, updates + 1):
        ids = draw.choice(rows, rows // 10, replace=False)
        commit(np.union1d(ids, [rare_id] if version == updates else []).astype(np.int64), version)


# -- reading, one reader per process ---------------------------------------------------------------------

def catalog_path(root: str) -> tuple[str, str, str]:
    """(warehouse, database, table) of a filesystem catalog's table root ``WAREHOUSE/DATABASE.db/TABLE``."""
    path = Path(root)
    return str(path.parent.parent), path.parent.name.removesuffix(".db"), path.name


def read_own(root: str, query: dict):
    from checkout import use_checkout

    use_checkout()  # this checkout's package, installed or not
    from fileindex import PaimonTable

    return lambda: PaimonTable(root).scan(query["where"]).to_arrow().num_rows


def read_rust(root: str, query: dict):
    from pypaimon_rust.datafusion import SQLContext

    ctx = SQLContext()
    warehouse, database, name = catalog_path(root)
    ctx.register_catalog("paimon", {"warehouse": warehouse}, default_database="")
    where = f" WHERE {query['where']}" if query["where"] else ""
    return lambda: sum(b.num_rows for b in ctx.sql(f"SELECT * FROM paimon.`{database}`.{name}{where}"))


def read_pypaimon(root: str, query: dict):
    from pypaimon import CatalogFactory

    def run() -> int:
        warehouse, database, name = catalog_path(root)
        table = CatalogFactory.create({"warehouse": warehouse}).get_table(f"{database}.{name}")
        builder = table.new_read_builder()
        if query["equal"]:
            column, value = query["equal"]
            builder = builder.with_filter(builder.new_predicate_builder().equal(column, value))
        return builder.new_read().to_arrow(builder.new_scan().plan().splits()).num_rows

    return run


READERS = {"fileindex": read_own, "pypaimon 2.1": read_pypaimon, "pypaimon-rust": read_rust}


def child(reader: str, root: str, query: dict, repeat: int) -> dict:
    run = READERS[reader](root, query)
    rows = run()  # (untimed: warms the page cache and imports)
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        found = run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        assert found == rows
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"rows": rows, "wall": statistics.median(walls), "cpu": statistics.median(cpus), "peak_mib": peak}


def python_of(reader: str) -> Path:
    """The Python that runs ``reader`` (a peer's venv made on first use)."""
    if reader == "pypaimon 2.1":
        return venv_python(PYPAIMON_VENV, PYPAIMON)
    if reader == "pypaimon-rust":
        return venv_python(PEER_VENV, PEER)
    return ROOT / ".venv" / "bin" / "python"


def make_table(args, rare_id: int) -> str:
    """The table of ``args``' recipe, written once and kept in --data beside its recipe."""
    recipe = json.dumps({"rows": args.rows, "buckets": args.buckets, "updates": args.updates,
                         "writer": "Java Paimon 0.9.0", "index": "bitmap cat"} if args.writer == "java" else
                        {"rows": args.rows, "buckets": args.buckets, "updates": args.updates,
                         "writer": PYPAIMON, "index": None})
    marker, where = args.data / "RECIPE", args.data / "ROOT"
    if not (marker.is_file() and marker.read_text() == recipe and where.is_file()):
        import shutil

        shutil.rmtree(args.data, ignore_errors=True)
        args.data.mkdir(parents=True)
        started = time.perf_counter()
        writer = write if args.writer == "java" else write_pypaimon
        where.write_text(os.path.relpath(writer(args.data, args.rows, args.buckets, args.updates, rare_id), args.data))
        print(f"{json.loads(recipe)['writer']} wrote the table in {time.perf_counter() - started:.0f} s",
              file=sys.stderr)
        marker.write_text(recipe)
    return table_root(args.data, where.read_text())


def table_root(data: Path, stored: str) -> str:
    """The table's root from ROOT: relative to --data (a checkout's cache may be shared by several worktrees, and
    one that wrote an absolute path may be gone); an absolute path, as older runs wrote, from its warehouse on."""
    path = Path(stored)
    if path.is_absolute() and "warehouse" in path.parts:
        path = Path(*path.parts[path.parts.index("warehouse"):])
    return str(data / path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--buckets", type=int, default=4)
    parser.add_argument("--updates", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=1, help="runs of every contender, interleaved")
    parser.add_argument("--writer", choices=("java", "pypaimon"), default="java")
    parser.add_argument("--data", type=Path, help="the table's folder (default: .cache/bench-pk, "
                                                  ".cache/bench-pk-pypaimon with --writer pypaimon)")
    parser.add_argument("--readers", default=",".join(READERS), help="comma-separated, of " + ", ".join(READERS))
    parser.add_argument("--checkout", action="append", default=[],
                        help="NAME=PATH: this project at another checkout too (its tools/bench_pk.py's child)")
    parser.add_argument("--queries", default="every row,one key,indexed value",
                        help="comma-separated, of: every row, one key, indexed value")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--write-pypaimon", help=argparse.SUPPRESS)
    args = parser.parse_args()
    rare_id = args.rows // 3 + 7
    if args.child:
        reader, root, query = json.loads(args.child)
        print(json.dumps(child(reader, root, query, args.repeat)))
        return
    if args.write_pypaimon:
        pypaimon_writes(*json.loads(args.write_pypaimon))
        return
    if args.data is None:
        args.data = ROOT / ".cache" / ("bench-pk" if args.writer == "java" else "bench-pk-pypaimon")
    root = make_table(args, rare_id)
    some_id = args.rows // 2 + 1
    queries = [{"name": "every row", "where": None, "equal": None},
               {"name": "one key", "where": f"id = {some_id}", "equal": ["id", some_id]},
               {"name": "indexed value", "where": f"cat = '{RARE}'", "equal": ["cat", RARE]}]
    chosen = {name.strip() for name in args.queries.split(",")}
    queries = [query for query in queries if query["name"] in chosen]
    # (name, reader, the script whose child runs it, its folder)
    contenders = [(r.strip(), r.strip(), Path(__file__), ROOT) for r in args.readers.split(",")]
    for item in args.checkout:
        name, path = item.split("=", 1)
        contenders.append((name, "fileindex", Path(path).resolve() / "tools" / "bench_pk.py", Path(path).resolve()))
    environment = {**os.environ, "PYTHONPATH": ""}
    writer = "Java Paimon 0.9.0" if args.writer == "java" else PYPAIMON
    print(f"{args.rows:,} keys, {args.buckets} buckets, {args.updates} update commits of a tenth of the keys, "
          f"written by {writer}; median of {args.repeat} warm runs, each reader in its own process"
          + (f", medians over {args.rounds} interleaved rounds" if args.rounds > 1 else ""))
    print(f"{'query':<14} {'reader':<14} {'rows':>11} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9}")
    for query in queries:
        counts = set()
        found: dict[str, list[dict]] = {name: [] for name, _, _, _ in contenders}
        for number in range(args.rounds):
            for name, reader, script, folder in contenders:
                if found[name] is None:
                    continue
                result = subprocess.run([str(python_of(reader)), str(script), "--repeat", str(args.repeat), "--child",
                                         json.dumps([reader, root, query])], capture_output=True, text=True,
                                        env=environment, cwd=folder)
                if result.returncode:
                    print(f"{query['name']:<14} {name:<14} failed: {result.stderr.strip().splitlines()[-1:]}")
                    found[name] = None  # type: ignore[assignment]
                    continue
                figures = json.loads(result.stdout.strip().splitlines()[-1])
                counts.add(figures["rows"])
                found[name].append(figures)
                if args.rounds > 1:
                    print(f"  round {number + 1} {query['name']:<14} {name:<14} wall {figures['wall']:.3f} CPU "
                          f"{figures['cpu']:.3f} peak {figures['peak_mib']:.0f} MiB, load {os.getloadavg()[0]:.1f}",
                          file=sys.stderr, flush=True)
        for name, runs in found.items():
            if runs:
                median = {key: statistics.median(run[key] for run in runs) for key in ("wall", "cpu", "peak_mib")}
                print(f"{query['name']:<14} {name:<14} {runs[0]['rows']:>11,} {median['wall']:>8.3f} "
                      f"{median['cpu']:>8.3f} {median['peak_mib']:>9.0f}", flush=True)
        if len(counts) > 1:
            print(f"  ROW COUNTS DIFFER: {sorted(counts)}")


if __name__ == "__main__":
    main()
