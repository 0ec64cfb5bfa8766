"""Check this implementation against a directory of expected results (the layout of tests/vectors/java).

The directory holds ``vectors.json`` (one record per file: type, index type, options, the queries and
the answers expected), ``datasets/<name>.json`` (the input values) and the ``.index`` containers.
For every record: the container must decode with both parsers to the same structure; every query
must give the expected answer; the writer must reproduce the file byte for byte from the dataset
and options; a combination the record says was refused must be refused. Multi-column records
(``multi_column``) are checked for their bytes, HEAD, rebuilt bytes and whole-file predicates. Results are tallied by
layout (index type, bitmap version) and check (decode, write, refuse, or the query's operator).

A folder never passes with less than it holds: a missing or unreadable dataset, file or record is
a failure that names it (and the checks it would have fed count as failed, so the numbers per
layout do not shrink), and ``vectors.json``'s ``manifest`` declares how many records, queries,
predicates and datasets the folder holds; a folder that holds other counts fails (``corpus``).
"""
from __future__ import annotations

import decimal
import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from fileindex.confined import MAX_JSON_BYTES, read_inside
from fileindex.container.file import FileIndexContainer
from fileindex.container.head import MAGIC, VERSION
from fileindex.container.writer import FORMAT_VERSION_OPTION
from fileindex.errors import DecodeError, FileIndexError, UsageError
from fileindex.indexes.registry import INDEX_TYPES
from fileindex.indexes.result import SKIP, Rows
from fileindex.java import utf as java_utf
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.java import parse_java_predicate
from fileindex.reference.construct_parser import parse_with_construct
from fileindex.reference.predicate_json import predicate_from_json
from fileindex.reference.vector_format import (
    current_java_answer,
    recorded_query,
    result_matches,
    to_arrow,
    value_from_json,
)
from fileindex.types import parse_type

CORPUS = "corpus"  # the folder's own checks: every record, dataset and file read, the manifest's counts
MULTI = "multi-column"


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

    def per_layout(self) -> dict[str, tuple[int, int]]:
        """Checks passed and failed per layout."""
        totals: dict[str, list[int]] = {}
        for counter, column in ((self.passed, 0), (self.failed, 1)):
            for (layout, _), count in counter.items():
                totals.setdefault(layout, [0, 0])[column] += count
        return {layout: (p, f) for layout, (p, f) in sorted(totals.items())}

    def table(self) -> str:
        keys = sorted(set(self.passed) | set(self.failed))
        lines = [f"{'layout':<16} {'check':<12} {'pass':>6} {'fail':>6}"]
        lines += [f"{layout:<16} {check:<12} {self.passed[(layout, check)]:>6} {self.failed[(layout, check)]:>6}"
                  for layout, check in keys]
        lines.append(f"{'total':<16} {'':<12} {sum(self.passed.values()):>6} {sum(self.failed.values()):>6}")
        lines.append("")
        lines.append(f"{'checks per layout':<29} {'pass':>6} {'fail':>6}")
        lines += [f"{layout:<29} {p:>6} {f:>6}" for layout, (p, f) in self.per_layout().items()]
        return "\n".join(lines)


def _layout(index_type: str, payload: bytes | None, options: dict | None = None) -> str:
    """The layout a record is counted under: its index type's (bitmap's by the version it says)."""
    index = INDEX_TYPES.get(index_type)
    return index_type if index is None else index.layout_of(payload, options)


class _Datasets:
    """``datasets/<name>.json``, read once each; a missing or unreadable one is one failure naming it."""

    def __init__(self, folder: Path, report: Report):
        self.folder, self.report = folder, report
        self.raw: dict[str, dict | None] = {}
        self.problems: dict[str, str] = {}

    def get(self, name) -> dict | None:
        if not isinstance(name, str):
            raise KeyError("dataset")
        if name not in self.raw:
            try:
                raw = json.loads(read_inside(self.folder, f"datasets/{name}.json", what="dataset",
                                             limit=MAX_JSON_BYTES).decode("utf-8"))
                if not isinstance(raw, dict):
                    raise ValueError("not a JSON object")
                self.raw[name] = raw
            except FileNotFoundError:
                self.raw[name], self.problems[name] = None, f"datasets/{name}.json is missing"
            except (OSError, ValueError) as err:
                self.raw[name], self.problems[name] = None, f"datasets/{name}.json is unreadable: {err}"
            self.report.record(CORPUS, "dataset", name not in self.problems, self.problems.get(name, ""))
        return self.raw[name]

    def values(self, name, data_type) -> list | None:
        raw = self.get(name)
        if raw is None:
            return None
        try:
            return [value_from_json(v, data_type) for v in raw["values"]]
        except (KeyError, TypeError, ValueError, decimal.InvalidOperation) as err:
            self.problems[name] = f"datasets/{name}.json: its values do not read as {data_type} ({err!r})"
            self.report.record(CORPUS, "dataset", False, self.problems[name])
            self.raw[name] = None
            return None


@dataclass
class _Tally:
    """What the folder was found to hold, for the manifest's counts."""
    vectors: dict = field(default_factory=dict)  # index type -> {"records", "queries"}
    multi_records: int = 0
    multi_predicates: int = 0

    def add(self, index_type: str, queries: int) -> None:
        counts = self.vectors.setdefault(index_type, {"records": 0, "queries": 0})
        counts["records"] += 1
        counts["queries"] += queries

    def manifest(self, datasets: int) -> dict:
        return {"datasets": datasets, "vectors": dict(sorted(self.vectors.items())),
                "multi_column": {"records": self.multi_records, "predicates": self.multi_predicates}}


UNREADABLE = (KeyError, TypeError, ValueError, AttributeError, IndexError)


def load_vectors(folder: Path) -> dict:
    """``vectors.json``: an object with a ``vectors`` list (a UsageError otherwise; OSError if unreadable). A
    folder without one whose subfolder holds a corpus (``tests/vectors`` for ``tests/vectors/java``) is a
    UsageError naming that subfolder."""
    try:
        return _read_vectors(folder)
    except FileNotFoundError:
        corpora = _corpora_under(folder)
        if not corpora:
            raise
        raise UsageError(f"{folder} holds no vectors.json; its subfolder {corpora[0]} holds a corpus "
                         f"(vectors.json with a manifest): fileindex conformance {corpora[0]}") from None


def _corpora_under(folder: Path) -> list[Path]:
    """The subfolders of ``folder`` whose vectors.json declares a corpus manifest."""
    if not folder.is_dir():
        return []
    corpora = []
    for sub in sorted(path for path in folder.iterdir() if path.is_dir()):
        try:
            if "manifest" in _read_vectors(sub):
                corpora.append(sub)
        except (OSError, FileIndexError):  # not a corpus
            continue
    return corpora


def _read_vectors(folder: Path) -> dict:
    try:
        document = json.loads(read_inside(folder, "vectors.json", what="vectors.json", limit=MAX_JSON_BYTES))
    except ValueError as err:
        raise UsageError(f"{folder / 'vectors.json'} is not JSON: {err}") from None
    if not isinstance(document, dict) or not isinstance(document.get("vectors"), list):
        raise UsageError(f"{folder / 'vectors.json'} is not laid out like tests/vectors/java (no \"vectors\" list)")
    return document


def check_directory(folder: str | Path, *, require_manifest: bool = True) -> Report:
    """Every record of the folder checked; anything missing or unreadable is a failure that names
    it, and the counts found must be those the folder's manifest declares."""
    folder = Path(folder)
    document = load_vectors(folder)
    report, found = _check_records(folder, document)
    check_manifest(document.get("manifest"), found, report, require_manifest)
    return report


def corpus_manifest(folder: str | Path) -> dict:
    """The manifest of a folder as it is (what tools/derive_vector_fields.py writes into vectors.json)."""
    report, found = _check_records(Path(folder), load_vectors(Path(folder)))
    if not report.ok:
        raise UsageError("the folder does not pass; fix it before declaring its counts:\n" + "\n".join(report.failures))
    return found


def _check_records(folder: Path, document: dict) -> tuple[Report, dict]:
    """Every record of ``vectors.json`` checked (one that cannot be read is a failure naming it), and the
    manifest of what the folder holds."""
    report, tally = Report(), _Tally()
    datasets = _Datasets(folder, report)
    checks = {"vectors": lambda record: check_record(folder, record, datasets, report, tally),
              "multi_column": lambda record: check_multi_column(folder, record, report, datasets, tally)}
    for kind, check in checks.items():
        for position, record in enumerate(document.get(kind) or ()):
            try:
                check(record)
            except UNREADABLE as err:
                name = record.get("name") if isinstance(record, dict) else None
                label = f"{kind}[{position}]" + (f" ({name})" if name else "")
                report.record(CORPUS, "record", False, f"{label}: not a readable record ({err!r})")
    return report, tally.manifest(len(datasets.raw))


def check_manifest(declared, found: dict, report: Report, required: bool) -> None:
    if declared is None:
        report.record(CORPUS, "manifest", not required,
                      "vectors.json declares no manifest, so a shrunken folder would pass: "
                      "tools/derive_vector_fields.py writes one (--no-manifest checks a folder without one)")
        return
    if not isinstance(declared, dict):
        report.record(CORPUS, "manifest", False, f"the manifest is not an object: {declared!r}")
        return
    entries = {"datasets": (declared.get("datasets"), found["datasets"]),
               MULTI: (declared.get("multi_column"), found["multi_column"])}
    vectors = declared.get("vectors")
    declared_vectors = vectors if isinstance(vectors, dict) else {}
    for index_type in sorted(set(declared_vectors) | set(found["vectors"])):
        entries[index_type] = (declared_vectors.get(index_type), found["vectors"].get(index_type))
    for what, (expected, actual) in entries.items():
        report.record(CORPUS, "manifest", expected == actual,
                      f"{what}: the folder holds {_counts(actual)}; the manifest declares {_counts(expected)}")


def _counts(counts) -> str:
    if isinstance(counts, dict):
        return ", ".join(f"{value} {key}" for key, value in counts.items())
    return "nothing" if counts is None else str(counts)


def _record_file(folder: Path, record: dict, name: str, report: Report) -> bytes | None:
    """The bytes of a record's file; whether it could be read is recorded (a failure names it)."""
    try:
        data = read_inside(folder, record["file"], what=f"{name}: file")
    except OSError as err:
        report.record(CORPUS, "file", False, f"{name}: cannot read {record['file']}: {err.strerror or err}")
        return None
    report.record(CORPUS, "file", True)
    return data


def check_record(folder: Path, record: dict, datasets: _Datasets, report: Report, tally: _Tally) -> None:
    name, index_type = record["name"], record["index_type"]
    data_type = parse_type(record["type"])
    queries = record.get("queries", [])
    if not isinstance(queries, list):
        raise TypeError(f"queries is {type(queries).__name__}, not a list")
    index = INDEX_TYPES.get(index_type)
    values = datasets.values(record["dataset"], data_type)
    missing = f"{name}: {datasets.problems.get(record['dataset'], '')}"
    report.record(CORPUS, "record", True)
    tally.add(index_type, len(queries))
    layout = _layout(index_type, None, record.get("options"))
    if record["status"] != "ok":
        if index is not None:
            if values is None:
                report.record(layout, "refuse", False, missing)
                return
            try:
                index.build(values, data_type, record["options"])
                report.record(layout, "refuse", False, f"{name}: Java refused, we built it")
            except FileIndexError:
                report.record(layout, "refuse", True)
        return
    data = _record_file(folder, record, name, report)
    if data is None:
        _record_unchecked(report, layout, index is not None, queries,
                          f"{name}: its file {record['file']} is unreadable")
        return
    try:
        container = FileIndexContainer.from_bytes(data)
        container.validate_layout()
        parse_with_construct(data)
        entry = container.entry("c", index_type) or next(iter(container))
        body = container.body(entry)
        if body is None:
            raise DecodeError(f"the {entry.index_type} index of column {entry.column!r} is empty", offset=entry.start,
                              field=entry.index_type)
        payload = bytes(body)
    except (FileIndexError, StopIteration) as err:
        report.record(layout, "decode", False, f"{name}: {err}")
        _record_unchecked(report, layout, index is not None, queries, f"{name}: it does not decode", decode=False)
        return
    layout = _layout(index_type, payload)
    report.record(layout, "decode", True)
    if index is None:
        return
    if values is None:
        report.record(layout, "write", False, missing)
    else:
        try:
            built = index.build(values, data_type, record["options"])
            report.record(layout, "write", built == payload, f"{name}: bytes differ")
        except FileIndexError as err:
            report.record(layout, "write", False, f"{name}: {err}")
    reader = index.reader(payload, data_type, base_offset=entry.start)
    for query in queries:
        op = query["op"]
        expected = current_java_answer(index_type, data_type, op, query["result"])
        try:
            operator, literals = recorded_query(op, data_type)
            result = operator.visit(reader, literals)
            ok = result_matches(result, expected)
            detail = f"{name} {op}: got {result!r}, expected {expected}"
        except FileIndexError as err:
            ok, detail = False, f"{name} {op}: {err}"
        report.record(layout, op["name"], ok, detail)


def _record_unchecked(report: Report, layout: str, known: bool, queries: list, why: str, decode: bool = True) -> None:
    """The checks a record could not run, as failures: the counts per layout never shrink."""
    if decode:
        report.record(layout, "decode", False, why)
    if known:
        report.record(layout, "write", False, why)
        for query in queries:
            report.record(layout, query["op"]["name"], False, why)


def check_multi_column(folder: Path, record: dict, report: Report, datasets: _Datasets | None = None,
                       tally: _Tally | None = None) -> None:
    """A container of several columns: its bytes, its HEAD as recorded (both parsers), the writer's
    bytes from the dataset's columns and index configuration, and every whole-file predicate (its
    structured form when the record has one, else Java's ``toString`` read against the schema)."""
    name = record["name"]
    cases = record.get("predicates", [])
    if not isinstance(cases, list):
        raise TypeError(f"predicates is {type(cases).__name__}, not a list")
    datasets = datasets or _Datasets(folder, report)
    report.record(CORPUS, "record", True)
    if tally is not None:
        tally.multi_records += 1
        tally.multi_predicates += len(cases)
    raw = datasets.get(record["dataset"]) if "dataset" in record else None
    unchecked = f"{name}: {datasets.problems.get(record.get('dataset') or '', '')}"
    data = _record_file(folder, record, name, report)
    if data is not None and "sha256" in record:
        report.record(MULTI, "bytes", hashlib.sha256(data).hexdigest() == record["sha256"],
                      f"{name}: the file's SHA-256 is not the recorded one")
    try:
        if data is None:
            raise FileIndexError(f"its file {record['file']} is unreadable")
        container = FileIndexContainer.from_bytes(data)
        container.validate_layout()
        parsed = parse_with_construct(data)
    except FileIndexError as err:
        report.record(MULTI, "decode", False, f"{name}: {err}")
        for _ in cases:
            report.record(MULTI, "predicate", False, f"{name}: the container does not decode")
        return
    head = head_json(container)
    expected = record["head"]
    table = parsed.head if container.head.version == VERSION else parsed.footer
    by_construct = [{"column": java_utf.decode(c.name),
                     "indexes": [{"index_type": java_utf.decode(i.index_type), "start": i.ofs_body,
                                  "length": i.len_body} for i in c.indexes]} for c in table.columns]
    same = {k: head.get(k) for k in expected} == expected and head["columns"] == by_construct
    report.record(MULTI, "head", same, f"{name}: HEAD {head} is not the recorded {expected}")
    if "dataset" not in record:
        return
    if raw is None:
        report.record(MULTI, "write", False, unchecked)
        for _ in cases:
            report.record(MULTI, "predicate", False, f"{unchecked} (it holds the schema)")
        return
    schema = {column["name"]: parse_type(column["type"]) for column in raw["columns"]}
    if "index_config" in raw:
        try:
            built = _build_multi(raw, schema, container.head.version)
            report.record(MULTI, "write", built == data, f"{name}: bytes differ")
        except FileIndexError as err:
            report.record(MULTI, "write", False, f"{name}: {err}")
    evaluator = FileIndexEvaluator(schema)
    for position, case in enumerate(cases):
        shown = case.get("java_toString", f"predicates[{position}]") if isinstance(case, dict) else repr(case)
        try:
            predicate = (predicate_from_json(case["java_predicate"], schema, f"predicates[{position}].java_predicate")
                         if "java_predicate" in case else parse_java_predicate(case["java_toString"], schema))
            result = evaluator.evaluate(container, predicate)
            ok = whole_file_matches(result, case["result"])
            detail = f"{name} {shown}: got {result!r}, expected {case['result']}"
        except FileIndexError as err:
            ok, detail = False, f"{name} {shown}: {err}"
        except UNREADABLE as err:
            ok, detail = False, f"{name} predicates[{position}]: not a readable case ({err!r})"
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
    empty = expected == SKIP.kind or (isinstance(expected, dict) and expected.get("cardinality") == 0)
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
    built = build_table_index(pa.table(columns), schema, parse_options(options, schema))
    assert built.data is not None  # held in memory: no output to stream it to was given
    return built.data
