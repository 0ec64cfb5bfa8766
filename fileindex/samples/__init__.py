"""Sample containers written by Java, bundled for ``fileindex samples`` and the README examples."""
from __future__ import annotations

from typing import NamedTuple


class Sample(NamedTuple):
    schema: str  # the column types of the data the index was built from (`--schema`)
    where: str  # a predicate worth trying on it


MULTI_SCHEMA = "id INT, name STRING, ts TIMESTAMP(3), price DOUBLE, `列名😀` STRING, attrs MAP<STRING, STRING>"

SAMPLES = {
    "container_12col.index": Sample(", ".join(f"col_{j:02d} INT" for j in range(12)), "col_03 = 3500"),
    "multi__engine_layout.index": Sample(MULTI_SCHEMA, "name = 'alice' AND id < 10"),
    "multi__explicit_empty_entry.index": Sample("m MAP<STRING, INT>, x INT", "x = 7"),
    "str_mixed__bitmap_v2.index": Sample("c STRING", "c IN ('apple', '香蕉')"),
}
