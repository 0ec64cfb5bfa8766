"""Small generated data files with sidecar indexes, for the pipeline and Spark tests."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from fileindex.writing.data_file import build_data_file_index

OPTIONS = {
    "file-index.bloom-filter.columns": "id",
    "file-index.bloom-filter.id.items": "500",
    "file-index.bitmap.columns": "category,m[k]",
    "file-index.range-bitmap.columns": "amount",
    "file-index.bsi.columns": "day",
}
CATEGORIES = ["a", "b", "c", "d", "é"]


def data_table(seed: int, rows: int = 400) -> pa.Table:
    rng = np.random.default_rng(seed)
    category = [None if rng.random() < 0.05 else CATEGORIES[i] for i in rng.integers(0, len(CATEGORIES), rows)]
    amount = rng.normal(0, 100, rows)
    amount[rng.integers(0, rows, 4)] = [0.0, -0.0, np.nan, np.inf]
    maps = [None if rng.random() < 0.1 else [("k", int(v)), ("j", 1)] if rng.random() < 0.8 else [("j", 2)]
            for v in rng.integers(0, 6, rows)]
    return pa.table({
        "id": pa.array(rng.permutation(rows * 10)[:rows] + seed * 100_000, type=pa.int64()),
        "category": pa.array(category, type=pa.string()),
        "amount": pa.array(amount, type=pa.float64()),
        "day": pa.array(rng.integers(19000, 19030, rows), type=pa.int32()).cast(pa.date32()),
        "m": pa.array(maps, type=pa.map_(pa.string(), pa.int32())),
    })


def write_dataset(folder: Path, files: int = 4, rows: int = 400, *, with_indexes: bool = True) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number in range(files):
        path = folder / f"part-{number}.parquet"
        pq.write_table(data_table(number, rows), path, row_group_size=64)
        if with_indexes:
            path.with_name(path.name + ".index").write_bytes(build_data_file_index(path, OPTIONS).data)
        paths.append(path)
    return paths
