"""pypaimon-rust reading a table from an object store, run with the peer's own interpreter (.venv-peer): the
peer baseline of the object-store tests and benchmarks (requests and bytes per query, counted by the proxy
in front of the store).

    PEER_PYTHON tools/peer_object_store_read.py REQUEST_JSON

REQUEST_JSON: {"options": {"warehouse": "s3://bucket/path", "s3.endpoint": ..., ...}, "sql": "SELECT ..."},
Paimon's option keys as pypaimon-rust takes them. Prints {"columns": [...], "rows": [[...], ...]}; with
"repeat": N in the request, runs N times (a new SQLContext each) and prints {"seconds": [...], "row_count": R}
instead (from registering the catalog to holding the rows).
"""
import json
import sys


def timed(request: dict) -> None:
    import time

    from pypaimon_rust.datafusion import SQLContext

    seconds, count = [], 0
    for _ in range(request["repeat"]):
        started = time.perf_counter()
        context = SQLContext()
        context.register_catalog("paimon", request["options"], default_database="")
        count = sum(batch.num_rows for batch in context.sql(request["sql"]))
        seconds.append(time.perf_counter() - started)
    print(json.dumps({"seconds": seconds, "row_count": count}))


def main() -> None:
    from pypaimon_rust.datafusion import SQLContext

    request = json.loads(sys.argv[1])
    if "repeat" in request:
        timed(request)
        return
    context = SQLContext()
    context.register_catalog("paimon", request["options"], default_database="")
    batches = context.sql(request["sql"])
    import pyarrow as pa

    table = pa.Table.from_batches(batches) if batches else pa.table({})
    rows = [list(row.values()) for row in table.to_pylist()]
    print(json.dumps({"columns": table.column_names, "rows": rows}, default=str))


if __name__ == "__main__":
    main()
