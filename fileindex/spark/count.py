"""``fileindex spark scan TABLE --where P --count``: the number of rows the pruned scan returns, found per file as
``TableScan.count()`` finds it (``scan.answers``): from the metadata and the indexes where they say it exactly,
planned in the driver; the files they do not answer are read by one Spark job (only the predicate's columns,
filtered exactly by Spark) and counted. Where every file is answered, no Spark session is started.

The predicate is Spark's: its floating-point zeros are widened as the Spark scans widen them
(``widen_signed_zeros``: Spark calls -0.0 equal to 0.0), so the count is ``df.count()`` of the same filter over
``spark.read.format("paimon-fileindex")``.
"""
from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from fileindex.errors import UsageError
from fileindex.scan.answers import READ, answered, count_columns
from fileindex.scan.reader import output_schema, selected_schema
from fileindex.scan.task import Inputs
from fileindex.spark.expressions import to_column, widen_signed_zeros
from fileindex.spark.jobs import _read_job, _table_of


def spark_count(session: Callable[[], Any], inputs, where: str, *, snapshot: int | None = None,
                external_roots: tuple[str, ...] = (), planned: Callable[[Any], None] | None = None) -> dict:
    """{"count", "files", "answered_by": {how: files}, "spark_job": whether one ran, "seconds"}; ``session()``
    gives the Spark session, asked for only where a file must be read; ``planned(scan)`` is told the scan once
    it is planned (the command line's note of level-0 files not read)."""
    started = time.perf_counter()
    table = _table_of(inputs, snapshot, external_roots)
    if table is None:
        raise UsageError("--count counts a Paimon table's rows: give one table root")
    types = table.schema.types()
    predicate = table.parse(where)
    scan = table.scan(widen_signed_zeros(predicate, types))
    files = scan.plan(exact=True)
    if planned is not None:
        planned(scan)
    columns = count_columns(scan)
    ways = [answered(item, table, columns)["answered_by"] for item in files]
    reads = [item for item, how in zip(files, ways, strict=True) if how == READ and item.to_read]
    total = sum(item.rows for item, how in zip(files, ways, strict=True) if how != READ and item.to_read)
    if reads:
        schema = selected_schema(output_schema(Inputs([], table)), columns, predicate)
        frame = _read_job(session(), reads, schema, scan.predicate, types)
        total += frame.where(to_column(predicate, types)).count()
    return {"count": total, "files": len(files), "answered_by": dict(sorted(Counter(ways).items())),
            "spark_job": bool(reads), "seconds": time.perf_counter() - started}
