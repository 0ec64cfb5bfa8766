"""Benchmark of page reads (``fileindex/arrow/parquet_pages.py``) against the module at another revision, in one run.

    .venv/bin/python tools/bench_parquet_pages.py [--baseline main] [--rows 1000000] [--repeat 15]

Two Parquet files of the main job's generator (``fileindex.spark.demo.make_file``: id, category, ts, amount)
with page indexes, written by pyarrow: --rows rows in one row group, and the same rows in 100 row groups
(a larger footer). Timed, interleaved rounds, medians of --repeat (wall and CPU milliseconds):

* footer decode: the footer's Thrift structure (bytes in memory);
* offset index decode: one column chunk's offset index (bytes in memory);
* page table: what page reads learn of a column chunk before copying pages, from the file (this tree: the
  offset index decoded and checked against every page's header; the baseline: decoded and checked alone);
* cold read: a new ``DataFileReader`` on a forgotten file (``data_files.FOOTERS`` cleared) reading 40 rows
  of every column from the first 50,000 rows (a few pages): pyarrow's footer, ours, the offset indexes, the
  page copies.

The baseline is ``fileindex/arrow/parquet_pages.py`` as it was at --baseline (``git show``), run in its place.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np
import pyarrow.parquet as pq

from fileindex.arrow import data_files, parquet_pages
from fileindex.spark.demo import DatasetSpec, make_file

MODULE = "fileindex/arrow/parquet_pages.py"


def module_at(revision: str, folder: Path):
    source = subprocess.run(["git", "show", f"{revision}:{MODULE}"], cwd=ROOT, check=True, capture_output=True,
                            text=True).stdout
    path = folder / "parquet_pages_baseline.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("parquet_pages_baseline", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module


def footer_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    length = int.from_bytes(data[-8:-4], "little")
    return data[-8 - length:-8]


def timed(action) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - wall, time.process_time() - cpu


def cases(module, path: Path, rows: np.ndarray) -> dict:
    """The timed actions on ``path`` with ``module`` as parquet_pages (this tree's or the baseline's API)."""
    raw = footer_bytes(path)
    columns = pq.ParquetFile(path).schema_arrow.names
    paged = module.PagedFooter.read(str(path))
    typed = hasattr(module, "PageTable")  # (the generic trees before typed Thrift)
    chunk = paged.row_groups[0].columns[0] if typed else paged.row_groups[0][1][1][1][0]
    at, length = (chunk.offset_index_offset, chunk.offset_index_length) if typed else (chunk[4][1], chunk[5][1])
    with open(path, "rb") as file:
        index = os.pread(file.fileno(), length, at)

    def decode_footer():
        module.decode(module.FileMetaData, raw, len(raw)) if typed else module.decode(raw)

    def decode_offset_index():
        module.decode(module.OffsetIndex, index, len(index)) if typed else module.decode(index)

    def page_table():
        paged._pages.clear()
        with open(path, "rb") as file:
            paged.pages(file.fileno(), 0, 0)
            if typed:  # (and every page's header checked against it, as before a page is copied)
                paged._headers.clear()
                paged.dictionary_encoded(file.fileno(), 0, 0)

    def cold_read():
        data_files.FOOTERS.clear()
        data_files.parquet_pages = module
        try:
            data_files.DataFileReader(path).read_rows(rows, columns)
        finally:
            data_files.parquet_pages = parquet_pages

    return {"footer decode": decode_footer, "offset index decode": decode_offset_index,
            "page table (1 column)": page_table, "cold 40-row read": cold_read}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="main", help="git revision of the module to compare with")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as tmp:
        folder = Path(tmp)
        baseline = module_at(args.baseline, folder)
        table = make_file(DatasetSpec(files=1, rows_per_file=args.rows), 0).drop_columns(["attrs"])
        files = {"1 row group": folder / "one.parquet", "100 row groups": folder / "hundred.parquet"}
        pq.write_table(table, files["1 row group"], row_group_size=args.rows, write_page_index=True)
        pq.write_table(table, files["100 row groups"], row_group_size=args.rows // 100, write_page_index=True)
        rng = np.random.default_rng(7)
        print(f"{args.rows:,} rows; medians of {args.repeat}, milliseconds wall / CPU; baseline: {MODULE} at "
              f"{args.baseline}")
        print(f"{'file':<16} {'case':<24} {'baseline':>17} {'this tree':>17} {'speed-up (CPU)':>15}")
        for name, path in files.items():
            groups = pq.ParquetFile(path).metadata.num_row_groups
            # 40 rows on a few pages of the first group (pyarrow's pages hold 20,000 rows): read page by page
            rows = np.sort(rng.choice(min(50_000, args.rows // groups), 40, replace=False)).astype(np.int64)
            ours, theirs = cases(parquet_pages, path, rows), cases(baseline, path, rows)
            for case in ours:
                times: dict[str, list[tuple[float, float]]] = {"baseline": [], "ours": []}
                theirs[case](), ours[case]()  # warm the code paths and the page cache
                for _ in range(args.repeat):
                    times["baseline"].append(timed(theirs[case]))
                    times["ours"].append(timed(ours[case]))
                wall = {k: statistics.median(w for w, _ in v) * 1e3 for k, v in times.items()}
                cpu = {k: statistics.median(c for _, c in v) * 1e3 for k, v in times.items()}
                print(f"{name:<16} {case:<24} {wall['baseline']:8.3f} /{cpu['baseline']:7.3f} "
                      f"{wall['ours']:8.3f} /{cpu['ours']:7.3f} {cpu['baseline'] / cpu['ours']:14.1f}x")


if __name__ == "__main__":
    main()
