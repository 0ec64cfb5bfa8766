"""``tools/bench_read.py --store s3``: the benchmark's table on an S3 server (moto, from tests/store_servers.py)
behind the counting proxy of the tests with ``--latency`` (20 ms) added to every request, in one run: per query,
the requests, the bytes sent back and the wall time of

* ``PaimonTable(uri, options=...).scan(where).to_arrow()``, cold: a new table, the process's manifest and
  sidecar memos emptied first, so every metadata file is fetched again;
* pypaimon-rust 0.4.0's SQL on the same endpoint (Paimon's ``s3.*`` keys), a new ``SQLContext`` per run, timed
  inside its own interpreter (.venv-peer) from registering the catalog to holding the rows;
* ``pyarrow.dataset`` over the live data files on pyarrow's ``S3FileSystem`` (the same endpoint), the filter
  pushed down (statistics and row groups, no index).

Requests and bytes are per run (a tool's total over ``--repeat`` runs divided by them); wall times medians, and for
ours and pyarrow.dataset (in this process) the median CPU seconds of the process, all threads. To compare two
commits, run it in each checkout in turn (``tools/checkout.py``: each imports its own package).
Row counts must agree. A query whose index rules out every file (an id no file holds) shows the data files
each fetched (``data GETs``): ours must be 0.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

ACCESS_KEY, SECRET = "AKIDBENCH", "bench-secret"


def upload(server, root: Path, prefix: str) -> str:
    """Every file of the table under ``prefix`` of the server's bucket (straight to the server); the table's URI."""
    from fileindex.io.object_store import ObjectStoreFileIO

    uri = f"s3://{server.bucket}/{prefix}"
    file_io = ObjectStoreFileIO.at(uri, options(server.endpoint), environ={})
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        file_io.replace(f"{uri}/{path.relative_to(root).as_posix()}", path.read_bytes())
    return uri


def options(endpoint: str) -> dict[str, str]:
    return {"s3.endpoint": endpoint, "s3.access-key": ACCESS_KEY, "s3.secret-key": SECRET, "s3.region": "us-east-1",
            "s3.path-style-access": "true"}


def counted(proxy, run, repeat: int) -> tuple[float, int, int, int, int, float]:
    """(median wall seconds, rows, requests per run, bytes per run, data-file GETs per run, median CPU seconds of
    this process, all threads) of ``repeat`` runs."""
    proxy.clear()
    times, cpu, rows = [], [], None
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        rows = run()
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    sent = proxy.requests
    data = sum(1 for r in sent if r.key and r.key.endswith(".parquet") and r.method == "GET")
    return (statistics.median(times), rows, len(sent) // repeat, sum(r.sent for r in sent) // repeat,
            data // repeat, statistics.median(cpu))


def ours(uri: str, proxy_url: str, where: str | None) -> int:
    from fileindex import PaimonTable
    from fileindex.container.file import SIDECARS
    from fileindex.table.metadata import MANIFESTS

    MANIFESTS.clear()
    SIDECARS.clear()
    return PaimonTable(uri, options=options(proxy_url)).scan(where).to_arrow().num_rows


def pyarrow_dataset(files: list[str], proxy_url: str, expression) -> int:
    import pyarrow.dataset as ds
    from pyarrow import fs

    s3 = fs.S3FileSystem(access_key=ACCESS_KEY, secret_key=SECRET, region="us-east-1",
                         endpoint_override=proxy_url.removeprefix("http://"), scheme="http")
    return ds.dataset(files, format="parquet", filesystem=s3).to_table(filter=expression).num_rows


def peer(peer_python: Path, warehouse: str, proxy, sql: str, repeat: int) -> tuple[float, int, int, int, int]:
    """pypaimon-rust's SQL through the proxy: timed inside its interpreter; requests counted by the proxy."""
    request = {"options": {"warehouse": warehouse, **options(proxy.url)}, "sql": sql, "repeat": repeat}
    proxy.clear()
    run = subprocess.run([str(peer_python), str(ROOT / "tools" / "peer_object_store_read.py"), json.dumps(request)],
                         capture_output=True, text=True, timeout=3600)
    if run.returncode != 0:
        raise SystemExit(f"pypaimon-rust failed: {run.stderr[-2000:]}")
    answer = json.loads(run.stdout)
    sent = proxy.requests
    data = sum(1 for r in sent if r.key and r.key.endswith(".parquet") and r.method == "GET")
    return (statistics.median(answer["seconds"]), answer["row_count"], len(sent) // repeat,
            sum(r.sent for r in sent) // repeat, data // repeat)


def store_benchmark(root: Path, cases: list[dict], peer_python: Path, repeat: int, latency: float) -> None:
    """The --store s3 mode of bench_read.py (see the module)."""
    import pyarrow.compute as pc

    from counting_proxy import CountingProxy
    from store_servers import start_moto

    from fileindex import PaimonTable

    cases = [*cases, {"name": "absent id (index: no file)", "where": "id = -7", "sql": "id = -7",
                      "arrow": pc.field("id") == -7}]
    with tempfile.TemporaryDirectory() as workdir:
        server = start_moto(Path(workdir))
        try:
            started = time.perf_counter()
            uri = upload(server, root, "warehouse/default.db/orders")
            print(f"uploaded the table to moto in {time.perf_counter() - started:.0f} s", file=sys.stderr)
            proxy = CountingProxy(server.endpoint, kind="s3", latency=latency)
            local = PaimonTable(root)
            folder = f"{server.bucket}/warehouse/default.db/orders"
            files = [f"{folder}/{local.relative(entry)}" for entry, _ in local.live()]
            print(f"\n--store s3: moto behind the counting proxy, {latency * 1000:.0f} ms added per request; per run: "
                  f"requests, bytes fetched, data-file GETs; wall: median of {repeat} cold runs, seconds")
            print(f"{'query':<28} {'rows':>9} | {'ours req':>8} {'bytes':>11} {'data':>4} {'wall':>7} {'cpu':>6} | "
                  f"{'peer req':>8} {'bytes':>11} {'data':>4} {'wall':>7} | {'pa req':>6} {'bytes':>11} {'wall':>7} "
                  f"{'cpu':>6}")
            for case in cases:
                if case["where"] is None or case["name"].startswith("amount"):
                    continue  # (reads of every row: the bytes are the table's, whoever reads them)
                mine = counted(proxy, lambda case=case: ours(uri, proxy.url, case["where"]), repeat)
                theirs = peer(peer_python, f"s3://{server.bucket}/warehouse", proxy,
                              f"SELECT * FROM paimon.default.orders WHERE {case['sql']}", repeat)
                plain = counted(proxy, lambda case=case: pyarrow_dataset(files, proxy.url, case["arrow"]), repeat)
                assert mine[1] == theirs[1] == plain[1], (case["name"], mine[1], theirs[1], plain[1])
                print(f"{case['name']:<28} {mine[1]:>9,} | {mine[2]:>8} {mine[3]:>11,} {mine[4]:>4} {mine[0]:>7.3f} "
                      f"{mine[5]:>6.3f} | {theirs[2]:>8} {theirs[3]:>11,} {theirs[4]:>4} {theirs[0]:>7.3f} | "
                      f"{plain[2]:>6} {plain[3]:>11,} {plain[0]:>7.3f} {plain[5]:>6.3f}")
            proxy.close()
        finally:
            server.stop()
