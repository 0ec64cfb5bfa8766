"""Benchmark of reading a primary-key (deduplicate) table: this project's ``PaimonTable.scan(...).to_arrow()``
beside pypaimon 2.1 and pypaimon-rust, in one run.

    .venv/bin/python tools/bench_pk.py [--rows 10000000] [--buckets 4] [--updates 2] [--repeat 3] [--data DIR]

The table (kept in DIR, bench-data/pk, with its recipe): ``id BIGINT`` primary key, ``name``, ``cat`` (8
categories, a bitmap index on it) and ``v``, --buckets buckets, written by pypaimon-rust 0.4.0 (which writes
primary-key tables and their embedded indexes, but does not compact): a first commit of --rows rows, then
--updates commits each updating a tenth of the keys (drawn at random), the last of which also gives one key
the category ``rare``. Every bucket then holds 1 + --updates overlapping sorted runs (all on level 0, as
written without compaction), so each read merges ~1.2 records per row by key.

Queries: every row; one key (``id = X``: the bucket stage keeps its bucket, read whole and merged); one indexed
value (``cat = 'rare'``: the whole-bucket rule drops every bucket none of whose files' index holds it). Each
reader runs in a process of its own (pypaimon 2.1 pins ``pyarrow<20``, so it lives in ``.venv-pypaimon``,
pypaimon-rust in ``.venv-peer``, both made here from the package registry on first use): one untimed run,
then the median of --repeat runs, wall and CPU seconds (the process's, all threads), and the process's peak
resident memory. Row counts must agree.
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


# -- writing (run by pypaimon-rust's Python) ---------------------------------------------------------------

def write(warehouse: str, rows: int, buckets: int, updates: int, rare_id: int) -> None:
    import random

    import pyarrow as pa
    from pypaimon_rust.datafusion import PaimonCatalog, SQLContext

    ctx = SQLContext()
    ctx.register_catalog("paimon", {"warehouse": warehouse}, default_database="")
    ctx.sql("CREATE DATABASE paimon.`default`")
    ctx.sql("CREATE TABLE paimon.`default`.t (id BIGINT NOT NULL, name STRING, cat STRING, v BIGINT, "
            f"PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '{buckets}', 'file-index.bitmap.columns' = 'cat')")
    draw = random.Random(56)

    def commit(ids: list[int], version: int, rare: bool = False) -> None:
        table = PaimonCatalog({"warehouse": warehouse}).get_table("default.t")
        builder = table.new_batch_write_builder()
        writer = builder.new_write()
        for start in range(0, len(ids), 1_000_000):
            part = ids[start:start + 1_000_000]
            cats = [RARE if rare and i == rare_id else CATEGORIES[i % len(CATEGORIES)] for i in part]
            writer.write_arrow(pa.record_batch({
                "id": pa.array(part, pa.int64()), "name": pa.array([f"n{version}-{i}" for i in part]),
                "cat": pa.array(cats, pa.string()), "v": pa.array([version] * len(part), pa.int64())}))
        messages = writer.prepare_commit()
        writer.close()
        committer = builder.new_commit()
        committer.commit(messages)
        committer.close()

    commit(list(range(rows)), 0)
    for version in range(1, updates + 1):
        ids = set(draw.sample(range(rows), rows // 10)) | ({rare_id} if version == updates else set())
        commit(sorted(ids), version, rare=version == updates)


# -- reading, one reader per process ---------------------------------------------------------------------

def read_own(root: str, query: dict):
    from checkout import use_checkout

    use_checkout()  # this checkout's package, installed or not
    from fileindex import PaimonTable

    return lambda: PaimonTable(root).scan(query["where"]).to_arrow().num_rows


def read_rust(root: str, query: dict):
    from pypaimon_rust.datafusion import SQLContext

    ctx = SQLContext()
    ctx.register_catalog("paimon", {"warehouse": str(Path(root).parent.parent)}, default_database="")
    where = f" WHERE {query['where']}" if query["where"] else ""
    return lambda: sum(b.num_rows for b in ctx.sql(f"SELECT * FROM paimon.`default`.t{where}"))


def read_pypaimon(root: str, query: dict):
    from pypaimon import CatalogFactory

    def run() -> int:
        table = CatalogFactory.create({"warehouse": str(Path(root).parent.parent)}).get_table("default.t")
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


def pythons() -> dict[str, Path]:
    return {"fileindex": ROOT / ".venv" / "bin" / "python", "pypaimon 2.1": venv_python(PYPAIMON_VENV, PYPAIMON),
            "pypaimon-rust": venv_python(PEER_VENV, PEER)}


def make_table(args) -> str:
    recipe = json.dumps({"rows": args.rows, "buckets": args.buckets, "updates": args.updates, "peer": PEER})
    root = args.data / "warehouse" / "default.db" / "t"
    marker = args.data / "RECIPE"
    if not (marker.is_file() and marker.read_text() == recipe):
        import shutil

        shutil.rmtree(args.data, ignore_errors=True)
        args.data.mkdir(parents=True)
        started = time.perf_counter()
        subprocess.run([str(pythons()["pypaimon-rust"]), __file__, "--write", "--rows", str(args.rows), "--buckets",
                        str(args.buckets), "--updates", str(args.updates), "--data", str(args.data)], check=True)
        print(f"pypaimon-rust wrote the table in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        marker.write_text(recipe)
    return str(root)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--buckets", type=int, default=4)
    parser.add_argument("--updates", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=ROOT / "bench-data" / "pk")
    parser.add_argument("--readers", default=",".join(READERS), help="comma-separated, of " + ", ".join(READERS))
    parser.add_argument("--write", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    rare_id = args.rows // 3 + 7
    if args.write:
        write(str(args.data / "warehouse"), args.rows, args.buckets, args.updates, rare_id)
        return
    if args.child:
        reader, root, query = json.loads(args.child)
        print(json.dumps(child(reader, root, query, args.repeat)))
        return
    root = make_table(args)
    some_id = args.rows // 2 + 1
    queries = [{"name": "every row", "where": None, "equal": None},
               {"name": "one key", "where": f"id = {some_id}", "equal": ["id", some_id]},
               {"name": "indexed value", "where": f"cat = '{RARE}'", "equal": ["cat", RARE]}]
    readers = [r.strip() for r in args.readers.split(",")]
    environment = {**os.environ, "PYTHONPATH": ""}
    print(f"{args.rows:,} keys, {args.buckets} buckets, {args.updates} update commits of a tenth of the keys; "
          f"median of {args.repeat} warm runs, each reader in its own process")
    print(f"{'query':<14} {'reader':<14} {'rows':>11} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9}")
    for query in queries:
        counts = set()
        for reader in readers:
            result = subprocess.run([str(pythons()[reader]), __file__, "--repeat", str(args.repeat), "--child",
                                     json.dumps([reader, root, query])], capture_output=True, text=True,
                                    env=environment, cwd=ROOT)
            if result.returncode:
                print(f"{query['name']:<14} {reader:<14} failed: {result.stderr.strip().splitlines()[-1:]}")
                continue
            found = json.loads(result.stdout.strip().splitlines()[-1])
            counts.add(found["rows"])
            print(f"{query['name']:<14} {reader:<14} {found['rows']:>11,} {found['wall']:>8.2f} {found['cpu']:>8.2f} "
                  f"{found['peak_mib']:>9.0f}", flush=True)
        if len(counts) > 1:
            print(f"  ROW COUNTS DIFFER: {sorted(counts)}")


if __name__ == "__main__":
    main()
