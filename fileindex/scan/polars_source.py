"""A table scan as a Polars LazyFrame (an IO plugin): Polars pushes its projection, row limit and filter into
the scan, which prunes by the filter as ``where`` does (:mod:`.polars_filters`, :mod:`.engine_scan`); Polars
applies its whole filter to the rows read. ``LazyFrame.explain()`` shows the scan's funnel."""
from __future__ import annotations

from typing import cast

import pyarrow as pa

from fileindex.scan.engine_scan import Scan, engine_batches, funnel_line
from fileindex.scan.polars_filters import polars_pushdown


def polars_frame(scan: Scan):
    """The LazyFrame of ``scan`` (planned now, for ``explain``); pure, as a scan reads one snapshot."""
    import polars
    from polars.io.plugins import register_io_source

    schema = cast(polars.DataFrame, polars.from_arrow(scan.schema.empty_table())).schema

    def source(with_columns, predicate, n_rows, batch_size):
        # n_rows counts the scan's rows before Polars' filter (the frame is the rows, then the filter)
        pushed = polars_pushdown(predicate, scan.types).true
        columns = with_columns or scan.columns
        for batch in engine_batches(scan, pushed, columns, n_rows):
            frame = cast(polars.DataFrame, polars.from_arrow(pa.Table.from_batches([batch])))
            yield frame if predicate is None else frame.filter(predicate)

    return register_io_source(source, schema=schema, is_pure=True, explain_name=f"paimon {scan.table.root.name}",
                              explain_detail=funnel_line(scan.explain()))
