"""A live Java Paimon 0.9.0 (tests/java/PaimonOracle.java over the jar tools/fetch_java_oracle.py fetches)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from conftest import ROOT, in_ci
from fileindex.values import Timestamp
from jdk import JavaProgram, require_jdk

JAR = ROOT / ".cache" / "paimon-python-java-bridge-0.9.0.jar"


def require_jar() -> None:
    require_jdk()
    if JAR.is_file():
        return
    if in_ci():
        pytest.fail(f"{JAR.name} missing: tools/setup.sh --test fetches it (tools/fetch_java_oracle.py)")
    pytest.skip("the Java oracle jar is not fetched here; run tools/fetch_java_oracle.py (CI does)")


def to_json(value):
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, Timestamp):
        return {"millis": value.millis, "nanos": value.nanos_of_milli}
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    raise TypeError(value)


class JavaOracle:
    def __init__(self, workdir: Path):
        require_jar()
        self.program = JavaProgram("PaimonOracle", workdir, [JAR])
        self.requests = 0

    def ask(self, request: dict) -> dict:
        self.requests += 1
        return json.loads(self.program.ask(json.dumps(request)))

    def build(self, type_name: str, index: str, options: dict, values: list):
        answer = self.ask({"op": "build", "type": type_name, "index": index, "options": options,
                           "values": [to_json(v) for v in values]})
        return bytes.fromhex(answer["payload"]) if "payload" in answer else answer["error"]

    def query(self, type_name: str, index: str, payload: bytes, queries: list[dict]) -> list:
        answer = self.ask({"op": "query", "type": type_name, "index": index, "payload": payload.hex(),
                           "queries": queries})
        return answer["results"]

    def container(self, columns: list[tuple[str, str, bytes | None]]) -> bytes:
        answer = self.ask({"op": "container", "columns": [[c, t, None if p is None else p.hex()]
                                                          for c, t, p in columns]})
        return bytes.fromhex(answer["payload"])

    def close(self) -> None:
        self.program.close()
