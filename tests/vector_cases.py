"""The single-column Java vectors as test cases: dataset values, options, payload and recorded answers."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache

from conftest import JAVA_VECTORS, VECTORS

from fileindex.container.file import FileIndexContainer
from fileindex.reference.vector_format import recorded_query, value_from_json
from fileindex.types import DataType, parse_type


@dataclass(frozen=True)
class VectorCase:
    record: dict

    @property
    def name(self) -> str:
        return self.record["name"]

    @property
    def data_type(self) -> DataType:
        return parse_type(self.record["type"])

    @property
    def options(self) -> dict:
        return self.record["options"]

    @property
    def ok(self) -> bool:
        return self.record["status"] == "ok"

    def values(self) -> list:
        return dataset_values(self.record["dataset"])

    def payload(self) -> bytes:
        container = FileIndexContainer.open(JAVA_VECTORS / self.record["file"])
        return bytes(container.body(container.entry("c", self.record["index_type"])))

    def queries(self):
        """(visitor method name, arguments, expected) for every recorded query."""
        for query in self.record["queries"]:
            operator, literals = recorded_query(query["op"], self.data_type)
            yield operator.visitor, operator.arguments(literals), query["result"], query["op"]


@cache
def _dataset(name: str) -> dict:
    return json.loads((JAVA_VECTORS / "datasets" / f"{name}.json").read_text())


def dataset_values(name: str) -> list:
    raw = _dataset(name)
    data_type = parse_type(raw["type"])
    return [value_from_json(v, data_type) for v in raw["values"]]


@cache
def all_cases() -> tuple[VectorCase, ...]:
    records = json.loads((JAVA_VECTORS / "vectors.json").read_text())["vectors"]
    return tuple(VectorCase(r) for r in records)


def cases_for(index_type: str, *, ok: bool | None = None) -> list[VectorCase]:
    return [c for c in all_cases() if c.record["index_type"] == index_type and (ok is None or c.ok == ok)]


def current_java_answer(case: VectorCase, op: dict, recorded):
    """See fileindex.reference.vector_format.current_java_answer."""
    from fileindex.reference.vector_format import current_java_answer as answer

    return answer(case.record["index_type"], case.data_type, op, recorded)


def parquet_file(folder, name: str, columns: dict):
    """Write {column: (values, DataType)} to folder/name.parquet."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from fileindex.reference.vector_format import to_arrow

    table = pa.table({column: to_arrow(values, data_type) for column, (values, data_type) in columns.items()})
    path = folder / f"{name}.parquet"
    pq.write_table(table, path)
    return path


def table_options(column: str, index_type: str, options: dict) -> list[str]:
    """--option arguments declaring one index with its per-column options."""
    return [f"file-index.{index_type}.columns={column}"] + [
        f"file-index.{index_type}.{column}.{key}={value}" for key, value in options.items()]


def multi_table(tmp_path):
    """The multi-column dataset as a Parquet file, and the --option arguments of its index configuration."""
    raw = json.loads((JAVA_VECTORS / "datasets" / "multi.json").read_text())
    from fileindex.reference.vector_format import value_from_json

    columns = {}
    for column in raw["columns"]:
        data_type = parse_type(column["type"])
        if data_type.root == "MAP":
            values = column["values"]
        else:
            values = [value_from_json(v, data_type) for v in column["values"]]
        columns[column["name"]] = (values, data_type)
    options = []
    for entry in raw["index_config"]:
        options += table_options(entry["column"], entry["index_type"], entry["options"])
    return parquet_file(tmp_path, "multi", columns), options


FRAMES = json.loads((VECTORS / "java-v2" / "frames.json").read_text())["frames"]


def java_v2(name: str) -> bytes:
    """The V2 file Java's proposal wrote for ``name``: its V1 twin's payloads, framed as recorded."""
    frame = FRAMES[name]
    v1 = FileIndexContainer.from_bytes((JAVA_VECTORS / f"{name}.index").read_bytes())
    payloads = b"".join(bytes(v1.body(e)) for e in v1 if not e.is_empty)
    data = bytes.fromhex(frame["preamble"]) + payloads + bytes.fromhex(frame["tail"])
    assert len(data) == frame["size"] and hashlib.sha256(data).hexdigest() == frame["sha256"], name
    return data
