"""The same jobs on a real standalone Spark cluster (a master and a worker in their own JVMs, on
127.0.0.1, started from the installed pyspark) give exactly the results of local mode."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import ROOT
from generated_data import write_dataset

TABLE = ROOT / "tests" / "tables" / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    import pyspark

    home = Path(pyspark.__file__).parent
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1",
           "SPARK_LOG_DIR": str(tmp_path_factory.mktemp("spark-logs")), "PYSPARK_PYTHON": sys.executable}
    port, ui, worker_ui = free_port(), free_port(), free_port()
    logs = tmp_path_factory.mktemp("cluster")
    spark_class = str(home / "bin" / "spark-class")
    processes = [subprocess.Popen([spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                   "--port", str(port), "--webui-port", str(ui)], env=env,
                                  stdout=open(logs / "master.log", "w"), stderr=subprocess.STDOUT,
                                  start_new_session=True)]
    url = f"spark://127.0.0.1:{port}"
    try:
        wait_for(lambda: master_state(ui) is not None, "the master to start", logs / "master.log")
        processes.append(subprocess.Popen([spark_class, "org.apache.spark.deploy.worker.Worker", url, "--host",
                                           "127.0.0.1", "--cores", "2", "--memory", "2g", "--webui-port",
                                           str(worker_ui)], env=env, stdout=open(logs / "worker.log", "w"),
                                          stderr=subprocess.STDOUT, start_new_session=True))
        wait_for(lambda: (master_state(ui) or {}).get("aliveworkers", 0) >= 1, "a worker to register",
                 logs / "worker.log")
        yield url
    finally:
        for process in processes:
            os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            process.wait(timeout=60)


def master_state(ui_port: int):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/json/", timeout=2) as answer:
            return json.loads(answer.read())
    except OSError:
        return None


def wait_for(condition, what: str, log: Path, seconds: int = 120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}:\n{log.read_text()[-3000:]}")


def fileindex(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fileindex.cli", *args], capture_output=True, text=True,
                          timeout=600)


def test_verify_and_scan_on_a_standalone_cluster_equal_local_mode(cluster, tmp_path):
    folder = tmp_path / "data"
    write_dataset(folder, files=4)
    results = {}
    for master in ("local[2]", cluster):
        verify = fileindex("spark", "verify", str(folder), "--master", master, "--json")
        assert verify.returncode == 0, verify.stderr[-3000:]
        summary = json.loads(verify.stdout)
        scan = fileindex("spark", "scan", str(folder), "--where", "category = 'b' AND amount > 0", "--master", master,
                         "--plan", "spark", "--output", str(tmp_path / f"out-{len(results)}"), "--json")
        assert scan.returncode == 0, scan.stderr[-3000:]
        table_scan = fileindex("spark", "scan", str(TABLE), "--where", "f1 = 20", "--source", "datasource",
                               "--master", master, "--json")
        assert table_scan.returncode == 0, table_scan.stderr[-3000:]
        report = json.loads(scan.stdout)
        results[master] = ({k: summary[k] for k in ("files", "checks", "violations", "tallies")},
                           {k: report[k] for k in ("files_read", "rows_read", "result_rows")},
                           json.loads(table_scan.stdout)["result_rows"])
    local, remote = results["local[2]"], results[cluster]
    assert local == remote
    assert local[0]["violations"] == 0 and local[0]["checks"] > 100 and local[1]["result_rows"] > 0
    assert local[2] == 2
    import pyarrow.parquet as pq

    rows = [sorted(map(str, pq.read_table(tmp_path / f"out-{i}").to_pylist())) for i in range(2)]
    assert rows[0] == rows[1] and len(rows[0]) == local[1]["result_rows"]
