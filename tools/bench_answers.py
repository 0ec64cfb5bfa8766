#!/usr/bin/env python3
"""Answers from the index alone (#55) beside reading the column, in the same run, on one Parquet data file.

    .venv/bin/python tools/bench_answers.py [--rows 1000000] [--repeat 5] [--data DIR] [--json]

The file (made once under DIR, bench-data/answers by default, with its sidecar index) holds ``cat`` STRING
(20 categories, ``rare`` in 0.1 % of the rows; a bitmap index) and ``amount`` BIGINT (uniform in [0, 10^9), 1 %
null; a range-bitmap and a bsi). Each query's ``COUNT(*)`` is taken three ways: from the index (open the sidecar,
``FileIndexEvaluator.evaluate_exact``, ``exact_count``: what ``TableScan.count()`` does for a file whose answer is
exact), by pyarrow (read the predicate's column from the Parquet file, filter, count) and by DuckDB
(``SELECT count(*) FROM read_parquet(...) WHERE ...``). ``ORDER BY amount DESC LIMIT 10`` is taken from the
range-bitmap and the bsi (``FileIndexEvaluator.top_n``: the rows' positions), and by pyarrow (read the column,
``select_k_unstable``). Every way must give the same count (or a valid top 10) before a figure is printed.
Figures: median wall seconds and median CPU seconds of ``--repeat`` runs after one warm-up.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
sys.path[:0] = [str(ROOT)]

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from fileindex.container.file import FileIndexContainer
from fileindex.indexes.result import exact_count
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.parser import parse_predicate
from fileindex.types import parse_schema
from fileindex.writing.data_file import build_data_file_index

SCHEMA = parse_schema("cat STRING, amount BIGINT")
OPTIONS = {"file-index.bitmap.columns": "cat", "file-index.range-bitmap.columns": "amount",
           "file-index.bsi.columns": "amount"}
QUERIES = [  # (label, predicate, column it reads, the pyarrow filter, the DuckDB condition)
    ("rare category (bitmap)", "cat = 'rare'", "cat", lambda t: pc.equal(t["cat"], "rare"), "cat = 'rare'"),
    ("IN of two (bitmap)", "cat IN ('c01', 'c02')", "cat", lambda t: pc.is_in(t["cat"], pa.array(["c01", "c02"])),
     "cat IN ('c01', 'c02')"),
    ("1 % range (range-bitmap)", "amount BETWEEN 500000000 AND 509999999", "amount",
     lambda t: pc.and_(pc.greater_equal(t["amount"], 500_000_000), pc.less_equal(t["amount"], 509_999_999)),
     "amount BETWEEN 500000000 AND 509999999"),
    ("half the rows (range-bitmap)", "amount > 500000000", "amount", lambda t: pc.greater(t["amount"], 500_000_000),
     "amount > 500000000"),
]


def make_file(folder: Path, rows: int) -> Path:
    path = folder / f"answers-{rows}.parquet"
    if path.exists() and Path(f"{path}.index").exists():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(55)
    categories = np.array([f"c{i:02d}" for i in range(19)] + ["rare"])
    weights = np.full(20, 0.999 / 19)
    weights[-1] = 0.001
    amount = rng.integers(0, 10**9, rows)
    table = pa.table({"cat": pa.array(categories[rng.choice(20, rows, p=weights)]),
                      "amount": pa.array(amount, mask=rng.random(rows) < 0.01)})
    pq.write_table(table, path, row_group_size=128 * 1024)
    with open(f"{path}.index", "wb") as out:
        build_data_file_index(path, OPTIONS, out=out)
    return path


def timed(step: Callable[[], object], repeat: int) -> tuple[float, float, object]:
    """(median wall seconds, median CPU seconds, the last result) of ``repeat`` runs after a warm-up."""
    result = step()
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = step()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def index_count(index: Path, where: str, rows: int) -> int | None:
    evaluator = FileIndexEvaluator(SCHEMA)
    with FileIndexContainer.open(index) as container:
        return exact_count(evaluator.evaluate_exact(container, parse_predicate(where, SCHEMA)), rows)


def index_top(index: Path, limit: int) -> list[int]:
    with FileIndexContainer.open(index) as container:
        answer = FileIndexEvaluator(SCHEMA).top_n(container, "amount", limit, descending=True, nulls_first=False)
        assert answer is not None
        return list(answer.bitmap)


def only(index: Path, index_type: str, folder: Path) -> Path:
    """A sidecar holding only ``amount``'s ``index_type`` body (so ``top_n`` asks that one)."""
    from fileindex.container.writer import write_container

    target = folder / f"{index.name}.{index_type}"
    if not target.exists():
        with FileIndexContainer.open(index) as container:
            body = bytes(container.body(container.entry("amount", index_type)))
        target.write_bytes(write_container({"amount": {index_type: body}}))
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", type=Path, default=ROOT / "bench-data" / "answers")
    parser.add_argument("--json", action="store_true", help="one JSON object per row")
    args = parser.parse_args()
    path = make_file(args.data, args.rows)
    index = Path(f"{path}.index")
    rows = pq.ParquetFile(path).metadata.num_rows
    try:
        import duckdb
    except ImportError:
        connection = None
    else:
        connection = duckdb.connect()
    out: list[dict] = []
    for label, where, column, arrow_filter, sql in QUERIES:
        by_index = timed(lambda w=where: index_count(index, w, rows), args.repeat)
        by_arrow = timed(lambda c=column, f=arrow_filter: pc.sum(f(pq.read_table(path, columns=[c]))).as_py() or 0,
                         args.repeat)
        assert by_index[2] == by_arrow[2], (label, by_index[2], by_arrow[2])
        row = {"query": f"COUNT(*) WHERE {label}", "rows": by_index[2], "index_s": by_index[0],
               "index_cpu_s": by_index[1], "pyarrow_s": by_arrow[0], "pyarrow_cpu_s": by_arrow[1]}
        if connection is not None:
            query = f"SELECT count(*) FROM read_parquet('{path}') WHERE {sql}"
            by_duckdb = timed(lambda q=query: connection.execute(q).fetchone()[0], args.repeat)
            assert by_duckdb[2] == by_index[2], (label, by_duckdb[2])
            row |= {"duckdb_s": by_duckdb[0], "duckdb_cpu_s": by_duckdb[1]}
        out.append(row)
    amounts = pq.read_table(path, columns=["amount"])["amount"].to_numpy(zero_copy_only=False)
    tenth = np.sort(amounts[~np.isnan(amounts)] if amounts.dtype.kind == "f" else amounts)[-10]
    for index_type in ("range-bitmap", "bsi"):
        top = timed(lambda t=index_type: index_top(only(index, t, args.data), 10), args.repeat)
        assert len(top[2]) == 10 and min(amounts[top[2]]) >= tenth, (index_type, top[2])
        by_arrow = timed(lambda: pc.select_k_unstable(pq.read_table(path, columns=["amount"]), 10,
                                                      [("amount", "descending")]), args.repeat)
        out.append({"query": f"ORDER BY amount DESC LIMIT 10 ({index_type})", "rows": 10, "index_s": top[0],
                    "index_cpu_s": top[1], "pyarrow_s": by_arrow[0], "pyarrow_cpu_s": by_arrow[1]})
    if args.json:
        for row in out:
            print(json.dumps(row))
        return 0
    sizes = f"{path.stat().st_size / 2**20:.1f} MiB Parquet, {index.stat().st_size / 2**20:.1f} MiB index"
    print(f"{rows:,} rows, {sizes}; median of {args.repeat} (wall s / CPU s)")
    print(f"{'query':<50}{'rows':>9}{'index':>16}{'pyarrow':>16}{'duckdb':>16}  fastest other / index (wall, CPU)")
    for row in out:
        cells = [f"{row[k + '_s']:.4f}/{row[k + '_cpu_s']:.4f}" if k + "_s" in row else "-"
                 for k in ("index", "pyarrow", "duckdb")]
        ratios = [min(row[k + suffix] for k in ("pyarrow", "duckdb") if k + suffix in row) / row["index" + suffix]
                  for suffix in ("_s", "_cpu_s")]
        print(f"{row['query']:<50}{row['rows']:>9,}" + "".join(f"{c:>16}" for c in cells)
              + f"  {ratios[0]:.1f}x, {ratios[1]:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
