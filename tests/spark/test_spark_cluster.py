"""The same jobs on a real standalone Spark cluster (a master and a worker in their own JVMs, on
127.0.0.1, started from the installed pyspark) give exactly the results of local mode."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import ROOT
from generated_data import data_table, write_dataset

TABLE = ROOT / "tests" / "tables" / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"
APPEND_TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bsi_bitmap_bloomfilter.db" / \
    "append_with_bsi_bitmap_bloomfilter"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_master(logs: Path) -> tuple[list[subprocess.Popen], str, int, dict, str]:
    """A standalone master on 127.0.0.1, started: (its process, its URL, its web UI's port, the environment and
    spark-class to start a worker with)."""
    import pyspark

    home = Path(pyspark.__file__).parent
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(logs),
           "PYSPARK_PYTHON": sys.executable}
    port, ui = free_port(), free_port()
    spark_class = str(home / "bin" / "spark-class")
    processes = [subprocess.Popen([spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                   "--port", str(port), "--webui-port", str(ui)], env=env,
                                  stdout=open(logs / "master.log", "w"), stderr=subprocess.STDOUT,
                                  start_new_session=True)]
    try:
        wait_for(lambda: master_state(ui) is not None, "the master to start", logs / "master.log")
    except BaseException:
        stop(processes)
        raise
    return processes, f"spark://127.0.0.1:{port}", ui, env, spark_class


def stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        os.killpg(process.pid, signal.SIGTERM)
    for process in processes:
        process.wait(timeout=60)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    logs = tmp_path_factory.mktemp("cluster")
    processes, url, ui, env, spark_class = start_master(logs)
    worker_ui = free_port()
    try:
        processes.append(subprocess.Popen([spark_class, "org.apache.spark.deploy.worker.Worker", url, "--host",
                                           "127.0.0.1", "--cores", "2", "--memory", "2g", "--webui-port",
                                           str(worker_ui)], env=env, stdout=open(logs / "worker.log", "w"),
                                          stderr=subprocess.STDOUT, start_new_session=True))
        wait_for(lambda: (master_state(ui) or {}).get("aliveworkers", 0) >= 1, "a worker to register",
                 logs / "worker.log")
        yield url
    finally:
        stop(processes)


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


def fileindex(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fileindex.cli", *args], capture_output=True, text=True,
                          timeout=600, cwd=cwd)


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


def test_relative_paths_reach_executors_that_run_in_another_folder(cluster, tmp_path):
    """A standalone worker starts its executors in its own work folder: the paths given relative to the
    command's folder are made absolute before a task sees them."""
    write_dataset(tmp_path / "data", files=2, with_indexes=False)
    shutil.copytree(APPEND_TABLE, tmp_path / "t5")
    master = ("--master", cluster)
    build = fileindex("spark", "build", "data/", "--option", "file-index.bloom-filter.columns=id", "--output-dir",
                      "indexes/", *master, "--json", cwd=tmp_path)
    assert build.returncode == 0, build.stdout + build.stderr[-3000:]
    assert sorted(p.name for p in (tmp_path / "indexes").iterdir()) == [
        "part-0.parquet.index", "part-0.parquet.index.source.json", "part-1.parquet.index",
        "part-1.parquet.index.source.json"]  # (each sidecar and the record of the file it was built from)
    verify = fileindex("spark", "verify", "data/", "--index-dir", "indexes/", *master, "--json", cwd=tmp_path)
    assert verify.returncode == 0, verify.stdout + verify.stderr[-3000:]
    assert json.loads(verify.stdout)["by_status"] == {"ok": 2}
    wanted = data_table(0).column("id")[0].as_py()
    scan = fileindex("spark", "scan", "data/", "--index-dir", "indexes", "--where", f"id = {wanted}", "--plan",
                     "spark", *master, "--json", cwd=tmp_path)
    assert scan.returncode == 0, scan.stdout + scan.stderr[-3000:]
    assert json.loads(scan.stdout)["result_rows"] == 1
    rewrite = fileindex("spark", "rewrite", "t5", *master, cwd=tmp_path)
    assert rewrite.returncode == 0, rewrite.stdout + rewrite.stderr[-3000:]
    table_scan = fileindex("spark", "scan", "t5", "--where", "f0 = 'a'", "--source", "datasource", *master, "--json",
                           cwd=tmp_path)
    assert table_scan.returncode == 0, table_scan.stdout + table_scan.stderr[-3000:]


def test_a_master_without_a_worker_is_said_and_ctrl_c_ends_the_wait(tmp_path):
    """Spark waits for ever for an executor no worker gives: one line says so, and Ctrl-C still ends the job."""
    processes, url, _, _, _ = start_master(tmp_path)
    try:
        write_dataset(tmp_path / "data", files=1, with_indexes=False)
        job = subprocess.Popen([sys.executable, "-m", "fileindex.cli", "spark", "build", str(tmp_path / "data"),
                                "--option", "file-index.bloom-filter.columns=id", "--master", url],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        guard = threading.Timer(300, job.kill)  # (the line never said: the job would wait for ever)
        guard.start()
        try:
            said = next((line for line in iter(job.stderr.readline, "") if "no executor" in line), "")
            assert f"is a worker with free cores and memory running for {url}?" in said
            job.send_signal(signal.SIGINT)
            assert job.wait(timeout=120) == 130
        finally:
            guard.cancel()
            job.kill()
            job.wait()
    finally:
        stop(processes)
