"""A live Java Paimon 0.9.0 (tests/java/PaimonOracle.java over the jar tools/fetch_java_oracle.py fetches)."""
from __future__ import annotations

import contextlib
import decimal
import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path

from conftest import ROOT, unavailable
from jdk import JavaProgram, require_jdk

from fileindex.values import Timestamp

JAR = ROOT / ".cache" / "paimon-python-java-bridge-0.9.0.jar"


def require_jar() -> None:
    require_jdk()
    if JAR.is_file():
        return
    unavailable(f"the Java oracle jar {JAR.name}", "tools/setup.sh --test fetches it (tools/fetch_java_oracle.py)")


@contextlib.contextmanager
def pk_tables_java() -> Iterator[tuple]:
    """``tools/pk_tables.py`` (the module) and a JVM running tools/java/PkTables.java over Java 0.9.0, closed
    after."""
    require_jar()
    hadoop_jars()
    sys.path.insert(0, str(ROOT / "tools"))
    import pk_tables

    java = pk_tables.JavaPk()
    try:
        yield pk_tables, java
    finally:
        java.close()


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
    if isinstance(value, decimal.Decimal):
        return str(value)
    raise TypeError(value)


def hadoop_jars() -> list[Path]:
    """The Hadoop client jars Paimon's table writer needs; the pyspark package ships them."""
    import importlib.util

    spec = importlib.util.find_spec("pyspark")
    jars = sorted(Path(spec.origin).parent.glob("jars/hadoop-client-*.jar")) if spec else []
    if len(jars) >= 2:
        return jars
    unavailable("pyspark (with its Hadoop client jars)", "tools/setup.sh --test installs it")


class JavaOracle:
    def __init__(self, workdir: Path, *, tables: bool = False):
        require_jar()
        extra = hadoop_jars() if tables else []
        jvm_args = ["--add-opens=java.base/java.nio=ALL-UNNAMED"] if tables else []
        self.program = JavaProgram("PaimonOracle", workdir, [JAR, *extra], jvm_args)
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

    def write_table(self, warehouse: Path, name: str, columns: list[tuple[str, str]], options: dict,
                    commits: list[list[list]], partition_keys: list[str] = (), branch: str | None = None) -> Path:
        request = {"op": "write_table", "warehouse": str(warehouse), "table": name,
                   "columns": [list(c) for c in columns], "options": options,
                   "commits": [[[to_json(v) for v in row] for row in rows] for rows in commits],
                   "partition_keys": list(partition_keys)}
        answer = self.ask({**request, "branch": branch} if branch else request)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return Path(answer["path"].removeprefix("file:"))

    def alter_columns(self, warehouse: Path, name: str, changes: list[list[str]]) -> int:
        """Java's ALTER TABLE per change: ["drop", c], ["add", c, TYPE], ["rename", old, new], ["type", c, TYPE]."""
        answer = self.ask({"op": "alter_columns", "warehouse": str(warehouse), "table": name, "changes": changes})
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer["schemas"]

    def close(self) -> None:
        self.program.close()
