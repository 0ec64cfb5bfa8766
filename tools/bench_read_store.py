"""``tools/bench_read.py --store s3``: the benchmark's table on an S3 server (moto, from tests/store_servers.py)
behind the counting proxy of the tests with ``--latency`` (20 ms) added to every request, in one run: per query,
the requests, the connections opened (each costs ``2 x --latency``: a real store's TCP and TLS handshakes, paid
again after an answer ended part way, whose connection cannot be kept), the bytes the client received and the wall
time of

* ``PaimonTable(uri, options=...).scan(where).to_arrow()``, cold: a new table, the process's manifest and
  sidecar memos emptied first, so every metadata file is fetched again; run in a long-lived process of its own
  (``ours``), and so is each ``--checkout NAME=PATH`` (another checkout of this project, main's say: its own
  package imported), round by round beside it, so that a branch is measured against main in one run;
* pypaimon-rust 0.4.0's SQL on the same endpoint (Paimon's ``s3.*`` keys), a new ``SQLContext`` per run, timed
  inside its own interpreter (.venv-peer) from registering the catalog to holding the rows;
* ``pyarrow.dataset`` over the live data files on pyarrow's ``S3FileSystem`` (the same endpoint), the filter
  pushed down (statistics and row groups, no index).

Requests and bytes are per run (a tool's total over ``--repeat`` runs divided by them). Bytes are those the client
received (the proxy's ``delivered``: an answer it read as a stream and ended part way counts what was written to
it before it closed the connection, its socket's buffer included), not the sizes the server answered with. Wall
times are medians, and for ours, each checkout and pyarrow.dataset the median CPU seconds of the process that ran
it (all threads; for pyarrow.dataset this process, the proxy's threads included).
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


def tally(proxy) -> tuple[int, int, int, int]:
    """(requests, bytes the client received, data-file GETs, connections opened) since the proxy was cleared (every
    answer written)."""
    proxy.settle()
    sent = proxy.requests
    data = sum(1 for r in sent if r.key and r.key.endswith(".parquet") and r.method == "GET")
    return len(sent), sum(r.delivered or 0 for r in sent), data, proxy.connections


def counted(proxy, run, repeat: int) -> tuple[float, int, int, int, int, float, int]:
    """(median wall seconds, rows, requests per run, bytes per run, data-file GETs per run, median CPU seconds of
    this process, all threads, connections per run) of ``repeat`` runs."""
    proxy.clear()
    times, cpu, rows = [], [], None
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        rows = run()
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    requests, received, data, connections = tally(proxy)
    return (statistics.median(times), rows, requests // repeat, received // repeat, data // repeat,
            statistics.median(cpu), connections // repeat)


# a checkout's cold store query, one a line of its standard input: [uri, proxy URL, where] in, [wall, cpu, rows] out
STORE_SERVER = """
import json, sys, time
sys.path.insert(0, sys.argv[1] + "/tools")
from checkout import use_checkout
use_checkout()
from fileindex import PaimonTable
from fileindex.container.file import SIDECARS
from fileindex.table.metadata import MANIFESTS
for line in sys.stdin:
    uri, options, where = json.loads(line)
    MANIFESTS.clear()
    SIDECARS.clear()
    started, cpu = time.perf_counter(), time.process_time()
    rows = PaimonTable(uri, options=options).scan(where).to_arrow().num_rows
    print(json.dumps([time.perf_counter() - started, time.process_time() - cpu, rows]), flush=True)
"""


class StoreServer:
    """A checkout of this project (this one: ``ours``) in a long-lived process of its own, a cold query a call."""

    def __init__(self, checkout: Path):
        self.process = subprocess.Popen([sys.executable, "-c", STORE_SERVER, str(checkout.resolve())],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=checkout)

    def run(self, uri: str, proxy_url: str, where: str | None) -> tuple[float, float, int]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps([uri, options(proxy_url), where]) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise SystemExit(f"{self.process.args[-1]}: its store query failed (see above)")
        wall, cpu, rows = json.loads(answer)
        return wall, cpu, rows

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def checkouts_counted(servers: dict[str, StoreServer], proxy, uri: str, where: str | None,
                      repeat: int) -> dict[str, tuple[float, int, int, int, int, float, int]]:
    """As :func:`counted`, for each checkout's server, one run each round after round (a change of load meets
    every checkout alike), after an untimed round (each process's imports)."""
    runs: dict[str, list[tuple[float, float, int, tuple[int, int, int, int]]]] = {name: [] for name in servers}
    for round_ in range(repeat + 1):
        for name, server in servers.items():
            proxy.clear()
            wall, cpu, rows = server.run(uri, proxy.url, where)
            if round_:
                runs[name].append((wall, cpu, rows, tally(proxy)))
    answers = {}
    for name, each in runs.items():
        requests, received, data, connections = (sum(run[3][i] for run in each) // repeat for i in range(4))
        answers[name] = (statistics.median(run[0] for run in each), each[-1][2], requests, received, data,
                         statistics.median(run[1] for run in each), connections)
    return answers


def pyarrow_dataset(files: list[str], proxy_url: str, expression) -> int:
    import pyarrow.dataset as ds
    from pyarrow import fs

    s3 = fs.S3FileSystem(access_key=ACCESS_KEY, secret_key=SECRET, region="us-east-1",
                         endpoint_override=proxy_url.removeprefix("http://"), scheme="http")
    return ds.dataset(files, format="parquet", filesystem=s3).to_table(filter=expression).num_rows


def peer(peer_python: Path, warehouse: str, proxy, sql: str, repeat: int) -> tuple[float, int, int, int, int, int]:
    """pypaimon-rust's SQL through the proxy: timed inside its interpreter; requests counted by the proxy."""
    request = {"options": {"warehouse": warehouse, **options(proxy.url)}, "sql": sql, "repeat": repeat}
    proxy.clear()
    run = subprocess.run([str(peer_python), str(ROOT / "tools" / "peer_object_store_read.py"), json.dumps(request)],
                         capture_output=True, text=True, timeout=3600)
    if run.returncode != 0:
        raise SystemExit(f"pypaimon-rust failed: {run.stderr[-2000:]}")
    answer = json.loads(run.stdout)
    requests, received, data, connections = tally(proxy)
    return (statistics.median(answer["seconds"]), answer["row_count"], requests // repeat, received // repeat,
            data // repeat, connections // repeat)


def store_benchmark(root: Path, cases: list[dict], peer_python: Path, repeat: int, latency: float,
                    checkouts: dict[str, str] | None = None) -> None:
    """The --store s3 mode of bench_read.py (see the module); ``checkouts``: NAME -> PATH of other checkouts."""
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
            proxy = CountingProxy(server.endpoint, kind="s3", latency=latency, handshake=2 * latency)
            local = PaimonTable(root)
            folder = f"{server.bucket}/warehouse/default.db/orders"
            files = [f"{folder}/{local.relative(entry)}" for entry, _ in local.live()]
            servers = {name: StoreServer(Path(path)) for name, path in {"ours": ROOT, **(checkouts or {})}.items()}
            print(f"\n--store s3: moto behind the counting proxy, {latency * 1000:.0f} ms added per request and "
                  f"{2 * latency * 1000:.0f} ms per new connection (TCP and TLS handshakes); per run: "
                  f"requests, connections opened, bytes received, data-file GETs; wall and CPU: medians of {repeat} "
                  "cold runs, seconds")
            print(f"{'query':<28} {'':<6} {'rows':>9} | {'req':>5} {'conn':>5} {'bytes':>11} {'data':>4} {'wall':>7} "
                  f"{'cpu':>6}")
            try:
                for case in cases:
                    if case["where"] is None or case["name"].startswith("amount"):
                        continue  # (reads of every row: the bytes are the table's, whoever reads them)
                    rows = checkouts_counted(servers, proxy, uri, case["where"], repeat)
                    theirs = peer(peer_python, f"s3://{server.bucket}/warehouse", proxy,
                                  f"SELECT * FROM paimon.default.orders WHERE {case['sql']}", repeat)
                    plain = counted(proxy, lambda case=case: pyarrow_dataset(files, proxy.url, case["arrow"]), repeat)
                    rows["peer"] = (*theirs[:5], float("nan"), theirs[5])
                    rows["pa.ds"] = plain
                    counts = {answer[1] for answer in rows.values()}
                    assert len(counts) == 1, (case["name"], rows)
                    for name, (wall, count, req, received, data, cpu, conn) in rows.items():
                        print(f"{case['name']:<28} {name:<6} {count:>9,} | {req:>5} {conn:>5} {received:>11,} "
                              f"{data:>4} {wall:>7.3f} {cpu:>6.3f}")
            finally:
                for each in servers.values():
                    each.close()
            proxy.close()
        finally:
            server.stop()
