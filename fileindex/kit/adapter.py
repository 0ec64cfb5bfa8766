"""This project's adapter (``fileindex kit adapter CALL``): the kit's requests answered by this package."""
from __future__ import annotations

from fileindex.indexes.result import FileIndexResult

import json
from pathlib import Path

from fileindex import __version__
from fileindex.container.file import FileIndexContainer
from fileindex.container.head import VERSIONS
from fileindex.container.writer import write_entries
from fileindex.errors import FileIndexError
from fileindex.indexes.registry import INDEX_TYPES
from fileindex.indexes.result import Rows
from fileindex.kit.corpus import head_entries
from fileindex.kit.protocol import missing_fields
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.reference.predicate_json import predicate_from_json
from fileindex.reference.vector_format import value_from_json
from fileindex.types import parse_type
from fileindex.io.atomic import write_atomically
from fileindex.io.reach import reaching


def layouts() -> list[str]:
    names = {index.layout_of(None, {"version": str(v)}).replace(" ", "-") for index in INDEX_TYPES.values()
             for v in (1, 2)}
    return sorted(names | {"multi-column", "table"})


def capabilities() -> dict:
    return {"implementation": "paimon-fileindex", "version": __version__, "batch": True, "rows": True,
            "read": {"containers": sorted(VERSIONS), "layouts": layouts()},
            "write": {"containers": sorted(VERSIONS), "layouts": sorted(set(layouts()) - {"multi-column", "table"})}}


def head(request: dict) -> dict:
    with FileIndexContainer.open(request["file"]) as container:
        container.validate_layout()
        return {"head": head_entries(container)}


def read(request: dict) -> dict:
    schema = {name: parse_type(text) for name, text in request["schema"].items()}
    predicate = predicate_from_json(request["where"], schema, "where")
    with FileIndexContainer.open(request["file"]) as container:
        return _answer(FileIndexEvaluator(schema).evaluate(container, predicate))


def scan(request: dict) -> dict:
    from fileindex.scan.table import PaimonTable

    with reaching(request.get("storage_options")):  # (a table on a store: Tier 2 run with --tables-at)
        table = PaimonTable(request["table"])
        predicate = predicate_from_json(request["where"], table.schema.types(), "where")
        return {"files": {verdict.file: _answer(verdict.result) for verdict in table.plan(predicate)}}


def rows(request: dict) -> dict:
    from fileindex.kit.rows import matching_rows
    from fileindex.scan.table import PaimonTable

    with reaching(request.get("storage_options")):
        table = PaimonTable(request["table"])
        return {"rows": matching_rows(request["table"], predicate_from_json(request["where"], table.schema.types(),
                                                                              "where"))}


def _answer(result: FileIndexResult) -> dict:
    if isinstance(result, Rows):
        return {"result": "ROWS", "ranges": [list(r) for r in result.ranges()]}
    return {"result": result.kind}


def write(request: dict) -> dict:
    data_type = parse_type(request["type"])
    index = INDEX_TYPES.get(request["index_type"])
    if index is None:
        return {"unsupported": f"index type {request['index_type']!r}"}
    dataset = json.loads(Path(request["dataset"]).read_text(encoding="utf-8"))
    values = [value_from_json(v, data_type) for v in dataset["values"]]
    payload = index.build(values, data_type, request.get("options") or {})
    data = write_entries([(request.get("column", "c"), request["index_type"], payload)],
                         version=int(request.get("container_version", 1)))
    write_atomically(request["out"], data)
    return {"written": request["out"]}


CALLS = {"capabilities": lambda request: capabilities(), "head": head, "read": read, "scan": scan, "rows": rows,
         "write": write}


def handle(request: dict) -> dict:
    """One request's answer; an error this package raises on purpose is an ``error`` answer, and so is a
    request that is not laid out as docs/kit.md says (OSError, KeyError, TypeError, ValueError)."""
    return dispatch(CALLS, request, (FileIndexError, OSError, KeyError, TypeError, ValueError))


def dispatch(calls: dict, request: dict, failures: tuple[type[Exception], ...]) -> dict:
    """The answer of the call ``request["op"]`` names; a request without a field its op holds, and an exception
    of ``failures``, is an ``error`` answer (an adapter answers every request)."""
    call = calls.get(str(request.get("op")))
    if call is None:
        return {"error": f"unknown op {request.get('op')!r} (one of {', '.join(calls)})"}
    missing = missing_fields(request)
    if missing:
        return {"error": missing}
    try:
        return call(request)
    except failures as err:
        return {"error": f"{type(err).__name__}: {err}"}
