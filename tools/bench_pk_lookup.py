"""The point lookup ``id = X`` on bench_pk's table, interleaved: this project at several checkouts (one's own commit
against another's) and pypaimon-rust, each round running each contender in a process of its own one after
another, so that the machine's load falls on them alike.

    .venv/bin/python tools/bench_pk_lookup.py [--checkout NAME=PATH ...] [--rounds 5] [--lookups 40]

Each process makes one untimed lookup (imports, page cache), then ``--lookups`` timed ones, and prints the median
CPU milliseconds of one (the process's CPU time, all threads) and the rows found; a lookup opens the table anew
(``PaimonTable(root).scan(where).to_arrow()``, as bench_pk times it), the peer's SQL context is made once (as
bench_pk does). The table is bench_pk's (``--data``, .cache/bench-pk by default: run bench_pk first). Prints each
round's figures, the median over rounds and the load average before and after.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from bench_pk import PEER_VENV, catalog_path, table_root

CHILD = """
import json, statistics, sys, time
kind, where, root, lookups = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
if kind == "peer":
    from pypaimon_rust.datafusion import SQLContext
    warehouse, database, name = json.loads(sys.argv[5])
    ctx = SQLContext()
    ctx.register_catalog("paimon", {"warehouse": warehouse}, default_database="")
    run = lambda: sum(b.num_rows for b in ctx.sql(f"SELECT * FROM paimon.`{database}`.{name} WHERE {where}"))
else:
    sys.path.insert(0, kind)
    from fileindex import PaimonTable
    run = lambda: PaimonTable(root).scan(where).to_arrow().num_rows
rows = run()
cpus = []
for _ in range(lookups):
    started = time.process_time()
    assert run() == rows
    cpus.append(time.process_time() - started)
print(json.dumps({"rows": rows, "cpu_ms": 1000 * statistics.median(cpus)}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", action="append", default=[],
                        help="NAME=PATH of a checkout of this project (default: this one, as 'this')")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--lookups", type=int, default=40)
    parser.add_argument("--rows", type=int, default=10_000_000, help="bench_pk's --rows (the key looked up)")
    parser.add_argument("--data", type=Path, default=ROOT / ".cache" / "bench-pk")
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args()
    root = table_root(args.data, (args.data / "ROOT").read_text())
    where = f"id = {args.rows // 2 + 1}"
    checkouts = dict(item.split("=", 1) for item in args.checkout) or {"this": str(ROOT)}
    contenders = [(name, str(ROOT / ".venv" / "bin" / "python"), str(Path(path).resolve()))
                  for name, path in checkouts.items()]
    if not args.no_peer:
        contenders.append(("pypaimon-rust", str(PEER_VENV / "bin" / "python"), "peer"))
    print(f"{where} on {root}: CPU ms per lookup, median of {args.lookups} lookups a process; "
          f"load average before {os.getloadavg()[0]:.1f}")
    found: dict[str, list[float]] = {name: [] for name, _, _ in contenders}
    for number in range(args.rounds):
        shown = []
        for name, python, kind in contenders:
            result = subprocess.run([python, "-c", CHILD, kind, where, root, str(args.lookups),
                                     json.dumps(catalog_path(root))], capture_output=True, text=True,
                                    env={**os.environ, "PYTHONPATH": ""}, cwd=kind if kind != "peer" else ROOT)
            if result.returncode:
                sys.exit(f"{name} failed: {result.stderr.strip().splitlines()[-1:]}")
            answer = json.loads(result.stdout.strip().splitlines()[-1])
            found[name].append(answer["cpu_ms"])
            shown.append(f"{name} {answer['cpu_ms']:.2f} ({answer['rows']} row)")
        print(f"round {number + 1} (load {os.getloadavg()[0]:.1f}): " + ", ".join(shown), flush=True)
    print("median over rounds: " + ", ".join(f"{name} {statistics.median(values):.2f}"
                                            for name, values in found.items()))


if __name__ == "__main__":
    main()
