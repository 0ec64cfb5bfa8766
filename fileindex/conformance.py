"""Check this implementation against a directory of expected results (the layout of tests/vectors/java).

The directory holds ``vectors.json`` (one record per file: type, index type, options, the queries and
the answers expected), ``datasets/<name>.json`` (the input values) and the ``.index`` containers.
For every record: the container must decode with both parsers to the same structure; every query
must give the expected answer; the writer must reproduce the file byte for byte from the dataset
and options; a combination the record says was refused must be refused. Results are tallied by
layout (index type, bitmap version) and check (decode, write, refuse, or the query's operator).
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .container import FileIndexContainer, parse_with_construct
from .errors import FileIndexError
from .indexes import INDEX_TYPES
from .types import parse_type
from .vector_format import current_java_answer, result_matches, value_from_json

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
    return report
