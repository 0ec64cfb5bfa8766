"""A Java-written Paimon table uploaded to each server and read back through the object-store file access: the
snapshot, manifest list and manifests in one GET each, the live data files' footers and rows through pyarrow
(each data file one ranged GET: these are smaller than the tail read at open), nothing listed, no other file
touched. And pypaimon-rust (the peer, in .venv-peer) reading the same table through the same S3 endpoint:
the baseline the object-store benchmarks compare requests and bytes with."""
import io
import json
import subprocess
import sys

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import ROOT

TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"
IN_WAREHOUSE = "warehouse/append_with_bitmap.db/append_with_bitmap"


def upload_table(store) -> str:
    """The table's files under the test's prefix, as a warehouse holds it; the table's URI."""
    for path in sorted(p for p in TABLE.rglob("*") if p.is_file()):
        store.put(f"{IN_WAREHOUSE}/{path.relative_to(TABLE).as_posix()}", path.read_bytes())
    return store.uri(IN_WAREHOUSE)


def avro_rows(data: bytes) -> list[dict]:
    return list(fastavro.reader(io.BytesIO(data)))


def read_table(file_io, table: str) -> tuple[pa.Table, list[str], list[str]]:
    """The table's rows, followed from its LATEST snapshot through its manifests; the data files and the
    metadata files read (names under the table)."""
    limit = 1 << 20
    metadata = ["snapshot/LATEST"]
    latest = int(file_io.read_bytes(file_io.join(table, metadata[-1]), limit=limit))
    metadata.append(f"snapshot/snapshot-{latest}")
    snapshot = json.loads(file_io.read_bytes(file_io.join(table, metadata[-1]), limit=limit))
    live: dict[tuple[int, str], bool] = {}
    for list_name in (snapshot["baseManifestList"], snapshot["deltaManifestList"]):
        metadata.append(f"manifest/{list_name}")
        for meta in avro_rows(file_io.read_bytes(file_io.join(table, metadata[-1]), limit=limit)):
            metadata.append(f"manifest/{meta['_FILE_NAME']}")
            manifest = file_io.read_bytes(file_io.join(table, metadata[-1]), limit=limit)
            for entry in avro_rows(manifest):
                key = (entry["_BUCKET"], entry["_FILE"]["_FILE_NAME"])
                live[key] = entry["_KIND"] == 0
    files = sorted(f"bucket-{bucket}/{name}" for (bucket, name), added in live.items() if added)
    tables = []
    for name in files:
        with file_io.open_input(file_io.join(table, name), within=[table], what="data file") as opened:
            tables.append(pq.ParquetFile(opened.native()).read())
    return pa.concat_tables(tables), files, metadata


def test_a_java_written_table_reads_the_same_from_every_store(object_store):
    table = upload_table(object_store)
    object_store.proxy.clear()
    rows, files, metadata = read_table(object_store.file_io(), table)

    local = pa.concat_tables(pq.read_table(TABLE / name) for name in files)
    assert rows.equals(local) and rows.num_rows == 8
    assert rows.column("f0").to_pylist() == ["Alice", "Bob", "Emily", "Tony", "Lucy", "Bob", "Tony", "Alice"]

    requests = object_store.proxy.requests
    assert all(r.key for r in requests), "nothing is listed"
    fetched = sorted({r.key.removeprefix(f"{object_store.prefix}/{IN_WAREHOUSE}/") for r in requests})
    assert fetched == sorted(files + metadata)  # the unreferenced data file and manifests beside them: never
    assert len(requests) == len(metadata) + len(files) * (2 if object_store.kind == "azure" else 1)
    per_data_file = {name: [r for r in requests if r.key.endswith(name)] for name in files}
    for name, sent in per_data_file.items():
        size = (TABLE / name).stat().st_size
        if object_store.kind == "azure":  # a HEAD, then one GET of the whole (small) file
            assert [r.method for r in sent] == ["HEAD", "GET"], name
        else:  # the tail GET at open holds the whole file
            assert [(r.method, r.sent) for r in sent] == [("GET", size)], name


@pytest.mark.peer
def test_pypaimon_rust_reads_the_same_table_through_the_same_s3_endpoint(s3_store):
    """The peer baseline: pypaimon-rust's SQL over the table on moto, through the counting proxy."""
    sys.path.insert(0, str(ROOT / "tools"))
    from kit_pypaimon_rust_adapter import peer_python
    from store_fixtures import S3_ACCESS_KEY, S3_SECRET

    upload_table(s3_store)
    ours, _, _ = read_table(s3_store.file_io(), s3_store.uri(IN_WAREHOUSE))
    ours_requests, ours_bytes = len(s3_store.proxy.requests), sum(r.sent for r in s3_store.proxy.requests)
    s3_store.proxy.clear()
    options = {"warehouse": s3_store.uri("warehouse"), "s3.endpoint": s3_store.proxy.url,
               "s3.access-key": S3_ACCESS_KEY, "s3.secret-key": S3_SECRET, "s3.region": "us-east-1",
               "s3.path-style-access": "true"}
    request = {"options": options, "sql": "SELECT * FROM paimon.append_with_bitmap.append_with_bitmap"}
    run = subprocess.run([peer_python(), str(ROOT / "tools" / "peer_object_store_read.py"), json.dumps(request)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    answer = json.loads(run.stdout)
    peer_rows = sorted(tuple(row) for row in answer["rows"])
    assert peer_rows == sorted(tuple(record[c] for c in answer["columns"]) for record in ours.to_pylist())
    peer = s3_store.proxy.requests
    methods = ", ".join(f"{sum(r.method == m for r in peer)} {m}" for m in sorted({r.method for r in peer}))
    print(f"\nappend_with_bitmap on moto: this file access {ours_requests} requests, {ours_bytes} bytes; "
          f"pypaimon-rust {len(peer)} requests ({methods}), {sum(r.sent for r in peer)} bytes")
    assert any(r.key and r.key.endswith(".parquet") for r in peer)
