"""Check this implementation against a directory of expected results (the layout of tests/vectors/java).

The directory holds ``vectors.json`` (one record per file: type, index type, options, the queries and
the answers expected), ``datasets/<name>.json`` (the input values) and the ``.index`` containers.
For every record: the container must decode with both parsers to the same structure; every query
must give the expected answer; the writer must reproduce the file byte for byte from the dataset
and options; a combination the record says was refused must be refused. Multi-column records
(``multi_column``) are checked for their bytes, HEAD, rebuilt bytes and whole-file predicates. Results are tallied by
layout (index type, bitmap version) and check (decode, write, refuse, or the query's operator).
"""
from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from fileindex.container.layout import (
    FORMAT_VERSION_OPTION,
    MAGIC,
    VERSION,
    FileIndexContainer,
    parse_with_construct,
)
from fileindex.errors import FileIndexError
from fileindex.indexes.registry import INDEX_TYPES
from fileindex.indexes.result import Rows
from fileindex.java import utf as java_utf
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.java import parse_java_predicate
from fileindex.reference.vector_format import (
    current_java_answer,
    result_matches,
    to_arrow,
    value_from_json,
)
from fileindex.types import parse_type

VISITORS = {
    "is_null": "visit_is_null", "is_not_null": "visit_is_not_null", "eq": "visit_equal",
    "neq": "visit_not_equal", "lt": "visit_less_than", "lte": "visit_less_or_equal",
    "gt": "visit_greater_than", "gte": "visit_greater_or_equal", "in": "visit_in",
    "not_in": "visit_not_in", "between": "visit_between",
}


@dataclass
class Report:
    passed: Counter = field(default_factory=Counter)  # (layout, check) -> count
    failed: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def record(self, layout: str, check: str, ok: bool, detail: str = "") -> None:
        (self.passed if ok else self.failed)[(layout, check)] += 1
        if not ok:
            self.failures.append(f"{layout} {check}: {detail}")

    @property
    def ok(self) -> bool:
        return not self.failed

    def table(self) -> str:
        keys = sorted(set(self.passed) | set(self.failed))
        lines = [f"{'layout':<16} {'check':<12} {'pass':>6} {'fail':>6}"]
        lines += [f"{layout:<16} {check:<12} {self.passed[(layout, check)]:>6} {self.failed[(layout, check)]:>6}"
                  for layout, check in keys]
        lines.append(f"{'total':<16} {'':<12} {sum(self.passed.values()):>6} {sum(self.failed.values()):>6}")
        return "\n".join(lines)


def _layout(index_type: str, payload: bytes | None) -> str:
    if index_type == "bitmap" and payload:
        return f"bitmap v{payload[0]}"
    return index_type


def _arguments(op: dict, data_type):
    name = op["name"]
    convert = lambda raw: value_from_json(raw, data_type)  # noqa: E731
    if name in ("is_null", "is_not_null"):
        return ()
    if name in ("in", "not_in"):
        return ([convert(v) for v in op["literals"]],)
    if name == "between":
        return tuple(convert(v) for v in op["literals"])
    return (convert(op["literal"]),)


def check_directory(folder: str | Path) -> Report:
    folder = Path(folder)
    records = json.loads((folder / "vectors.json").read_text())["vectors"]
    report = Report()
    datasets: dict[str, list] = {}
    for record in records:
        index_type, data_type = record["index_type"], parse_type(record["type"])
        index = INDEX_TYPES.get(index_type)
        dataset = folder / "datasets" / f"{record['dataset']}.json"
        if record["dataset"] not in datasets and dataset.is_file():
            raw = json.loads(dataset.read_text())
            datasets[record["dataset"]] = [value_from_json(v, data_type) for v in raw["values"]]
        values = datasets.get(record["dataset"])
        if record["status"] != "ok":
            if index is not None and values is not None:
                try:
                    index.build(values, data_type, record["options"])
                    report.record(index_type, "refuse", False, f"{record['name']}: Java refused, we built it")
                except FileIndexError:
                    report.record(index_type, "refuse", True)
            continue
        data = (folder / record["file"]).read_bytes()
        try:
            container = FileIndexContainer.from_bytes(data)
            container.validate_layout()
            parse_with_construct(data)
            entry = container.entry("c", index_type) or next(iter(container))
            payload = bytes(container.body(entry))
        except (FileIndexError, StopIteration) as err:
            report.record(index_type, "decode", False, f"{record['name']}: {err}")
            continue
        layout = _layout(index_type, payload)
        report.record(layout, "decode", True)
        if index is None:
            continue
        if values is not None:
            try:
                built = index.build(values, data_type, record["options"])
                report.record(layout, "write", built == payload, f"{record['name']}: bytes differ")
            except FileIndexError as err:
                report.record(layout, "write", False, f"{record['name']}: {err}")
        reader = index.reader(payload, data_type, base_offset=entry.start)
        for query in record.get("queries", ()):
            op = query["op"]
            expected = current_java_answer(index_type, data_type, op, query["result"])
            try:
                result = getattr(reader, VISITORS[op["name"]])(*_arguments(op, data_type))
                ok = result_matches(result, expected)
                detail = f"{record['name']} {op}: got {result!r}, expected {expected}"
            except FileIndexError as err:
                ok, detail = False, f"{record['name']} {op}: {err}"
            report.record(layout, op["name"], ok, detail)
    for record in json.loads((folder / "vectors.json").read_text()).get("multi_column", ()):
        check_multi_column(folder, record, report)
    return report


MULTI = "multi-column"


def check_multi_column(folder: Path, record: dict, report: Report) -> None:
    """A container of several columns: its bytes, its HEAD as recorded (both parsers), the writer's
    bytes from the dataset's columns and index configuration, and every whole-file predicate."""
    name = record["name"]
    data = (folder / record["file"]).read_bytes()
    if "sha256" in record:
        report.record(MULTI, "bytes", hashlib.sha256(data).hexdigest() == record["sha256"],
                      f"{name}: the file's SHA-256 is not the recorded one")
    try:
        container = FileIndexContainer.from_bytes(data)
        container.validate_layout()
        parsed = parse_with_construct(data)
    except FileIndexError as err:
        report.record(MULTI, "decode", False, f"{name}: {err}")
        return
    head = head_json(container)
    expected = record["head"]
    table = parsed.head if container.head.version == VERSION else parsed.footer
    by_construct = [{"column": java_utf.decode(c.name),
                     "indexes": [{"index_type": java_utf.decode(i.index_type), "start": i.ofs_body,
                                  "length": i.len_body} for i in c.indexes]} for c in table.columns]
    same = {k: head.get(k) for k in expected} == expected and head["columns"] == by_construct
    report.record(MULTI, "head", same, f"{name}: HEAD {head} is not the recorded {expected}")
    dataset = folder / "datasets" / f"{record.get('dataset')}.json"
    if not dataset.is_file():
        return
    raw = json.loads(dataset.read_text())
    schema = {column["name"]: parse_type(column["type"]) for column in raw["columns"]}
    if "index_config" in raw:
        try:
            built = _build_multi(raw, schema, container.head.version)
            report.record(MULTI, "write", built == data, f"{name}: bytes differ")
        except FileIndexError as err:
            report.record(MULTI, "write", False, f"{name}: {err}")
    evaluator = FileIndexEvaluator(schema)
    for case in record.get("predicates", ()):
        try:
            result = evaluator.evaluate(container, parse_java_predicate(case["java_toString"], schema))
            ok = whole_file_matches(result, case["result"])
            detail = f"{name} {case['java_toString']}: got {result!r}, expected {case['result']}"
        except FileIndexError as err:
            ok, detail = False, f"{name} {case['java_toString']}: {err}"
        report.record(MULTI, "predicate", ok, detail)


def head_json(container: FileIndexContainer) -> dict:
    """The entry table in the shape ``vectors.json`` records it (version 2: footer position, no HEAD)."""
    head = container.head
    framing = ({"head_length": head.head_length, "redundant_length": head.redundant_length}
               if head.version == VERSION else {"footer_start": head.footer_start, "footer_length": head.footer_length})
    return {"magic": int.from_bytes(MAGIC, "big"), "version": head.version, **framing,
            "columns": [{"column": r.name, "indexes": [{"index_type": e.index_type, "start": e.start,
                                                         "length": e.length} for e in r.indexes]}
                        for r in head.column_records]}


def whole_file_matches(result, expected) -> bool:
    """Java visits a column's indexes in HashSet (identity) order: where two of them disagree on
    emptiness it may answer SKIP or an empty row set, and both mean "not remain" (spec 9.2)."""
    empty = expected == "SKIP" or (isinstance(expected, dict) and expected.get("cardinality") == 0)
    if empty:
        return not result.remain() or (isinstance(result, Rows) and result.cardinality == 0)
    return result_matches(result, expected)


def _build_multi(raw: dict, schema: dict, version: int) -> bytes:
    import pyarrow as pa

    from fileindex.writing.data_file import build_table_index
    from fileindex.writing.options import parse_options

    columns = {}
    for column in raw["columns"]:
        data_type = schema[column["name"]]
        values = column["values"] if data_type.root == "MAP" else [value_from_json(v, data_type)
                                                                   for v in column["values"]]
        columns[column["name"]] = to_arrow(values, data_type)
    options: dict[str, str] = {FORMAT_VERSION_OPTION: str(version)}
    for entry in raw["index_config"]:
        key = f"file-index.{entry['index_type']}.columns"
        options[key] = f"{options[key]},{entry['column']}" if key in options else entry["column"]
        for option, value in entry["options"].items():
            options[f"file-index.{entry['index_type']}.{entry['column']}.{option}"] = str(value)
    return build_table_index(pa.table(columns), schema, parse_options(options, schema)).data
