#!/usr/bin/env python3
"""The conformance kit's pypaimon-rust 0.4.0 adapter (apache/paimon-rust's core through its Python binding).

    fileindex kit run KIT_DIR --impl "python tools/kit_pypaimon_rust_adapter.py"

This process speaks the kit's protocol (fileindex.kit.protocol's ``serve`` and one-call command lines); the
peer runs in its own virtual environment (.venv-peer, made from the package registry on first use by
tools/bench_read.py's ``peer_python``, or ``$PYPAIMON_RUST_PYTHON``) as tools/kit_pypaimon_rust_peer.py,
driven through its public API only. A request the peer fails on is an ``error`` answer; a panic, or the peer's
process dying, is an ``error`` answer of that request (the next request starts a new peer).

* ``write``: a one-file table (``CREATE TABLE`` with the index options, the dataset's rows through the batch
  write builder); the container is the data file's index as the table holds it (the manifest's embedded
  index or the sidecar), read with this project's table reader.
* ``scan``: the peer plans the table with the predicate and reads each planned split with it (it applies file
  indexes when it reads a file, not when it plans): a file is kept when its read returns a row, skipped when
  its plan drops it or its read returns none (``"scan": "files"``). A split of several data files that returns
  rows cannot say which kept them: unsupported. The answer also lists the files the plan alone keeps
  (``planned``, beside ``files``; the runner ignores it): its plan keeps files Java's drops.
* ``rows``: every row the peer's read returns, spelled as the datasets spell values.
* ``head`` and ``read`` of a lone container: unsupported (the peer's public API reads a file index only while it
  reads the table data file it belongs to).
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
CHECKOUT_PYTHON = ROOT / ".venv" / "bin" / "python"


def in_checkout_python() -> None:
    """Run again by the checkout's .venv interpreter where this one lacks the package's dependencies: the command
    the docs give, ``python tools/kit_pypaimon_rust_adapter.py``, runs as written without the venv activated."""
    try:
        import fileindex.kit.adapter  # noqa: F401  (what the answers need: pyroaring and the rest)
    except ImportError:
        if not CHECKOUT_PYTHON.exists() or Path(sys.executable) == CHECKOUT_PYTHON:
            raise
        os.execv(CHECKOUT_PYTHON, [str(CHECKOUT_PYTHON), __file__, *sys.argv[1:]])


in_checkout_python()

from fileindex.kit.protocol import add_request_arguments, from_argv, serve  # noqa: E402

VERSION = "0.4.0"
WORKER = ROOT / "tools" / "kit_pypaimon_rust_peer.py"
LAYOUTS = ["bloom-filter", "bitmap-v1", "bitmap-v2", "bsi", "range-bitmap"]
WRITES = ["bloom-filter", "bitmap-v2", "bsi", "range-bitmap"]  # its bitmap writer refuses version 1
LONE_CONTAINER = ("pypaimon-rust's public API reads a file index only while it reads the table data file it "
                  "belongs to, not a lone container")
METHODS = {"Equal": "equal", "NotEqual": "notEqual", "LessThan": "lessThan", "LessOrEqual": "lessOrEqual",
           "GreaterThan": "greaterThan", "GreaterOrEqual": "greaterOrEqual", "IsNull": "isNull",
           "IsNotNull": "isNotNull", "In": "in", "NotIn": "notIn"}


def capabilities() -> dict:
    return {"implementation": "pypaimon-rust", "version": VERSION, "batch": True, "rows": True, "scan": "files",
            "read": {"containers": [1], "layouts": [*LAYOUTS, "table"]},
            "write": {"containers": [1], "layouts": WRITES}}


def peer_python() -> str:
    """The interpreter with pypaimon-rust installed ($PYPAIMON_RUST_PYTHON, else .venv-peer, made on first use)."""
    given = os.environ.get("PYPAIMON_RUST_PYTHON")
    if given:
        return given
    from bench_read import peer_python as made

    return str(made())


class Peer:
    """The peer's process (tools/kit_pypaimon_rust_peer.py), started on first use and again after it dies."""

    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None

    def ask(self, request: dict) -> dict:
        if self.process is None or self.process.poll() is not None:
            self._drop()
            self.process = subprocess.Popen([peer_python(), str(WORKER)], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
        except BrokenPipeError:
            line = ""
        if not line:
            status = self.process.wait()
            stderr = self.process.stderr.read() if self.process.stderr else ""
            self._drop()
            return {"panic": f"the peer's process ended (exit status {status}): {stderr.strip()[-300:]}"}
        return json.loads(line)

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            self.process.wait(timeout=30)
        self._drop()

    def _drop(self) -> None:
        """Forget the process, closing its pipes."""
        if self.process is not None:
            for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
                if pipe is not None:
                    pipe.close()
        self.process = None


PEER = Peer()


def _failure(answer: dict) -> dict | None:
    if "panic" in answer:
        return {"error": f"pypaimon-rust panicked: {answer['panic']}"}
    if "error" in answer:
        return {"error": f"pypaimon-rust: {answer['error']}"}
    return None


def peer_predicate(form: dict) -> dict:
    """The kit's structured predicate in pypaimon-rust's dict form (literals tagged by kind for the peer)."""
    function = form["function"]
    if function in ("And", "Or"):
        return {"method": function.lower(), "children": [peer_predicate(child) for child in form["children"]]}
    leaf = {"field": form["column"], "literals": [_literal(v, form["type"]) for v in form.get("literals", [])]}
    if function in ("Between", "NotBetween"):
        low, high = leaf["literals"]
        inside = function == "Between"
        return {"method": "and" if inside else "or", "children": [
            {"method": "greaterOrEqual" if inside else "lessThan", "field": leaf["field"], "literals": [low]},
            {"method": "lessOrEqual" if inside else "greaterThan", "field": leaf["field"], "literals": [high]}]}
    return {"method": METHODS[function], **leaf}


def _literal(raw, type_text: str):
    """A literal in the datasets' spelling as JSON the peer's side turns into the Python value it takes."""
    from fileindex.types import parse_type

    data_type = parse_type(type_text)
    if raw is None or data_type.root in ("TINYINT", "SMALLINT", "INT", "BIGINT", "BOOLEAN", "CHAR", "VARCHAR"):
        return raw
    if data_type.root in ("FLOAT", "DOUBLE"):
        return {"$float": str(raw)}
    if data_type.root == "DECIMAL":
        return {"$decimal": raw["decimal"]}
    if data_type.root == "DATE":
        return {"$date": raw}
    if data_type.is_timestamp:
        return {"$timestamp_us": raw["millis"] * 1000 + raw["nanos_of_milli"] // 1000}
    if data_type.is_binary:
        return {"$bytes": base64.b64encode(bytes(raw)).decode()}
    return raw


def _ddl_type(type_text: str) -> str:
    """A Paimon type as the peer's SQL (DataFusion's parser) spells it: its ``TIMESTAMP(p) WITH TIME ZONE``
    makes the column Paimon's ``TIMESTAMP(p) WITH LOCAL TIME ZONE``."""
    return type_text.replace(" WITH LOCAL TIME ZONE", " WITH TIME ZONE")


def write(request: dict) -> dict:
    import pyarrow as pa

    from fileindex.reference.vector_format import to_arrow, value_from_json
    from fileindex import PaimonTable
    from fileindex.types import parse_type
    from fileindex.io.atomic import write_atomically

    data_type = parse_type(request["type"])
    dataset = json.loads(Path(request["dataset"]).read_text(encoding="utf-8"))
    column = to_arrow([value_from_json(v, data_type) for v in dataset["values"]], data_type)
    sink = pa.BufferOutputStream()
    rows = pa.table({"c": column})
    with pa.ipc.new_stream(sink, rows.schema) as stream:
        stream.write_table(rows)
    with tempfile.TemporaryDirectory(prefix="kit-pypaimon-rust-") as warehouse:
        answer = PEER.ask({"op": "write", "warehouse": warehouse, "type": _ddl_type(request["type"]),
                           "index_type": request["index_type"], "options": request.get("options") or {},
                           "arrow": base64.b64encode(sink.getvalue().to_pybytes()).decode()})
        failed = _failure(answer)
        if failed:
            return failed
        table = PaimonTable(answer["table"].removeprefix("file://"))
        live = list(table.live())
        if len(live) != 1:
            return {"error": f"pypaimon-rust wrote {len(live)} data files where one was asked"}
        _, found, note = table.index_location(live[0][0])
        if found is None:
            return {"error": f"pypaimon-rust wrote the data file without a file index {note}".strip()}
        data = found if isinstance(found, bytes) else Path(found).read_bytes()
    write_atomically(request["out"], data)
    return {"written": request["out"]}


def scan(request: dict) -> dict:
    from fileindex import PaimonTable

    table = PaimonTable(request["table"])
    by_name = {Path(table.relative(entry)).name: table.relative(entry) for entry, _ in table.live()}
    answer = PEER.ask({"op": "scan", "table": str(Path(request["table"]).resolve()),
                       "where": peer_predicate(request["where"])})
    failed = _failure(answer)
    if failed:
        return failed
    verdicts = dict.fromkeys(by_name.values(), {"result": "SKIP"})  # planned by no split: dropped by statistics
    planned = sorted(by_name[name] for split in answer["splits"] for name in split["files"] if name in by_name)
    for split in answer["splits"]:
        unknown = [name for name in split["files"] if name not in by_name]
        if unknown:
            return {"error": f"pypaimon-rust planned {unknown[0]}, which is not a live data file of the table"}
        if split["rows"] and len(split["files"]) > 1:
            return {"unsupported": f"a split of {len(split['files'])} data files returned rows: which file kept "
                                   "them cannot be told through pypaimon-rust's public API"}
        for name in split["files"]:
            verdicts[by_name[name]] = {"result": "REMAIN" if split["rows"] else "SKIP"}
    return {"files": verdicts, "planned": planned}  # "planned": the files its plan keeps (the kit ignores it)


def rows(request: dict) -> dict:
    import pyarrow as pa

    from fileindex.kit.rows import canonical_rows
    from fileindex import PaimonTable

    table = PaimonTable(request["table"])
    answer = PEER.ask({"op": "rows", "table": str(Path(request["table"]).resolve()),
                       "where": peer_predicate(request["where"])})
    failed = _failure(answer)
    if failed:
        return failed
    if answer["arrow"] is None:
        return {"rows": []}
    read = pa.ipc.open_stream(base64.b64decode(answer["arrow"])).read_all()
    return {"rows": canonical_rows(read, table)}


def lone_container(request: dict) -> dict:
    return {"unsupported": LONE_CONTAINER}


CALLS = {"capabilities": lambda request: capabilities(), "write": write, "scan": scan, "rows": rows,
         "head": lone_container, "read": lone_container}


def handle(request: dict) -> dict:
    from fileindex.kit.adapter import dispatch

    return dispatch(CALLS, request, (Exception,))  # whatever failed, this request is answered


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_request_arguments(parser)
    args = parser.parse_args(argv)
    try:
        if args.call == "batch":
            return serve(handle)
        print(json.dumps(handle(from_argv(args)), ensure_ascii=False))
        return 0
    finally:
        PEER.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
