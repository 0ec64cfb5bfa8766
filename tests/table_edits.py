"""Editing a copied table's metadata files in their own format (Avro or ORC), for hostile-table tests."""
from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import fastavro
import pyarrow as pa
import pyarrow.orc

from conftest import ROOT

from fileindex.table.metadata import read_rows
from fileindex.table.store import TableStore

TABLES = ROOT / "tests" / "tables"


def copy_table(kind: str, name: str, into: Path) -> Path:
    """A copy of ``tests/tables/<kind>/<name>.db/<name>`` under ``into``."""
    root = into / name
    shutil.copytree(TABLES / kind / f"{name}.db" / name, root)
    return root


def edit_rows(path: Path, edit: Callable[[list[dict]], None]) -> None:
    """Rewrite the metadata file at ``path`` with ``edit`` applied to its rows, in the file's own format."""
    data = path.read_bytes()
    if data.startswith(b"Obj\x01"):
        with open(path, "rb") as file:
            reader = fastavro.reader(file)
            schema, codec, rows = reader.writer_schema, reader.codec, list(reader)
        edit(rows)
        with open(path, "wb") as file:
            fastavro.writer(file, schema, rows, codec=codec)
    elif data.startswith(b"ORC"):
        table = pyarrow.orc.ORCFile(path).read()
        rows = table.to_pylist()
        edit(rows)
        pyarrow.orc.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)
    else:
        raise ValueError(f"{path}: not Avro or ORC")


def edit_json(path: Path, edit: Callable[[dict], None]) -> None:
    document = json.loads(path.read_text())
    edit(document)
    path.write_text(json.dumps(document, indent=2))


def snapshot_of(root: Path) -> Path:
    return root / "snapshot" / f"snapshot-{(root / 'snapshot' / 'LATEST').read_text().strip()}"


def data_manifests(root: Path) -> list[Path]:
    """The manifests (not lists, not index manifests) of the table's latest snapshot, by name."""
    snapshot = json.loads(snapshot_of(root).read_text())
    return [root / "manifest" / row["_FILE_NAME"] for key in ("baseManifestList", "deltaManifestList")
            for row in read_rows(TableStore(root), root / "manifest" / snapshot[key], "manifest list")]


def externalize(root: Path, into: Path) -> Path:
    """Move the table's one data file and its sidecar to ``into``, named by an external path (a file: URI)."""
    into.mkdir(parents=True)
    (data,) = (root / "bucket-0").glob("*.parquet")
    for path in (data, data.with_name(data.name + ".index")):
        shutil.move(path, into / path.name)
    edit_rows(data_manifests(root)[0], lambda rows: rows[0]["_FILE"].__setitem__("_EXTERNAL_PATH",
                                                                                 f"file:{into / data.name}"))
    return into / data.name
