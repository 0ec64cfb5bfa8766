"""The pypaimon-rust side of tools/kit_pypaimon_rust_adapter.py, run with the peer's own interpreter (.venv-peer).

    PEER_PYTHON tools/kit_pypaimon_rust_peer.py

Reads one JSON request per stdin line and answers one JSON line each, driving pypaimon-rust 0.4.0 through its
public API only (catalog SQL, write and read builders, table scans); Arrow data travels as base64 IPC streams.
It imports nothing of the package (only pypaimon-rust and pyarrow are installed beside it); it shares
tools/bench_read_peer.py's peer helpers (the script's folder is on its path).

* ``{"op": "write", "warehouse": W, "type": T, "index_type": I, "options": {...}, "arrow": B64}``: creates
  ``default.t (c T)`` with ``file-index.<I>.columns = c`` and each option as ``file-index.<I>.c.<key>``, and
  commits the rows as one data file. Answer ``{"table": ROOT}``.
* ``{"op": "scan", "table": ROOT, "where": P}``: plans the latest snapshot with the predicate (P in the peer's
  dict form) and reads each planned split with it. Answer ``{"splits": [{"files": [NAME, ...], "rows": N}]}``
  (the data file names a split holds, the rows its read returned).
* ``{"op": "rows", "table": ROOT, "where": P}``: every row its read returns. Answer ``{"arrow": B64}``.

A failure is ``{"error": text}``; a Rust panic (pyo3's PanicException, a BaseException) is ``{"panic": text}``.
"""
import base64
import json
import os
import re
import sys

import pyarrow as pa

DATA_FILE = re.compile(rb"data-[0-9a-f-]+-\d+\.(?:parquet|orc|avro)")


def _table_of(root: str):
    """The table at ``root`` from its latest schema file (no catalog: the kit's tables lie outside any warehouse)."""
    from pypaimon_rust.datafusion import Table

    schemas = sorted((int(name.split("-", 1)[1]), name) for name in os.listdir(os.path.join(root, "schema"))
                     if name.startswith("schema-"))
    with open(os.path.join(root, "schema", schemas[-1][1]), encoding="utf-8") as handle:
        return Table.from_resolved_schema(root, handle.read())


def _read_builder(table, where):
    builder = table.new_read_builder()
    return builder if where is None else builder.with_filter(_literals(where))


def _literals(predicate: dict) -> dict:
    """The predicate with each tagged literal (``{"$date": days}``, ...) as the Python value the peer takes."""
    if "children" in predicate:
        return {**predicate, "children": [_literals(child) for child in predicate["children"]]}
    return {**predicate, "literals": [_value(v) for v in predicate["literals"]]}


def _value(raw):
    import datetime
    import decimal

    if not isinstance(raw, dict):
        return raw
    (kind, value), = raw.items()
    if kind == "$float":
        return float(value)
    if kind == "$decimal":
        return decimal.Decimal(value)
    if kind == "$date":
        return datetime.date(1970, 1, 1) + datetime.timedelta(days=value)
    if kind == "$timestamp_us":
        return datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=value)
    if kind == "$bytes":
        return base64.b64decode(value)
    raise ValueError(f"unknown literal {raw!r}")


def write(request: dict) -> dict:
    from bench_read_peer import commit_batches, context as sql_context
    from pypaimon_rust.datafusion import PaimonCatalog

    warehouse, index_type = request["warehouse"], request["index_type"]
    context = sql_context(warehouse)
    context.sql("CREATE DATABASE paimon.`default`")
    options = {f"file-index.{index_type}.columns": "c",
               **{f"file-index.{index_type}.c.{key}": value for key, value in request["options"].items()}}
    with_clause = ", ".join(f"'{key}' = '{value}'" for key, value in options.items())
    context.sql(f"CREATE TABLE paimon.`default`.t (c {request['type']}) WITH ({with_clause})")
    table = PaimonCatalog({"warehouse": warehouse}).get_table("default.t")
    commit_batches(table, _from_ipc(request["arrow"]).to_batches())
    return {"table": table.location()}


def scan(request: dict) -> dict:
    table = _table_of(request["table"])
    builder = _read_builder(table, request["where"])
    splits = []
    for split in builder.new_scan().plan().splits():
        names = sorted({name.decode() for name in DATA_FILE.findall(split.serialize())})
        rows = sum(batch.num_rows for batch in builder.new_read().read([split]))
        splits.append({"files": names, "rows": rows})
    return {"splits": splits}


def rows(request: dict) -> dict:
    table = _table_of(request["table"])
    builder = _read_builder(table, request["where"])
    batches = builder.new_read().read(builder.new_scan().plan().splits())
    return {"arrow": _to_ipc(pa.Table.from_batches(batches) if batches else None)}


def _from_ipc(text: str) -> pa.Table:
    return pa.ipc.open_stream(base64.b64decode(text)).read_all()


def _to_ipc(table) -> str | None:
    if table is None:
        return None
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as stream:
        stream.write_table(table)
    return base64.b64encode(sink.getvalue().to_pybytes()).decode()


CALLS = {"write": write, "scan": scan, "rows": rows}


def main() -> int:
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            answer = CALLS[request["op"]](request)
        except Exception as err:  # every failure of the peer is an answer of this request
            answer = {"error": f"{type(err).__name__}: {err}"}
        except BaseException as err:  # pyo3's PanicException derives from BaseException
            if isinstance(err, (KeyboardInterrupt, SystemExit)):
                raise
            answer = {"panic": f"{type(err).__name__}: {err}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
