"""Spark set up by people who did not read the README, and jobs that fail: one line, fast, saying what
to do; and the jobs' progress on stderr while they run."""
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time

import pytest
from conftest import ROOT
from generated_data import write_dataset

from fileindex.cli import main
from fileindex.spark.failures import first_cause
from fileindex.spark.jobs import READ_ON_DRIVER_FILES

TABLES = ROOT / "tests" / "tables"
TABLE = TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"
BLOCKER = """\
import importlib.abc, sys

class NoSpark(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pyspark", "py4j"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, NoSpark())
"""


def fileindex(*args, env=None, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fileindex.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=timeout)


def our_lines(stderr: str) -> list[str]:
    """stderr without the JVM's own start-up notice (printed by java itself, not a logger)."""
    return [line for line in stderr.splitlines() if line.strip() and not line.startswith("WARNING: Using incubator")]


def without_daemon_notices(lines: list[str]) -> list[str]:
    """Lines less the tracebacks PySpark's worker daemon prints when a cancelled job's worker loses its
    socket (EOFError or BrokenPipeError in pyspark/daemon.py: Spark's, printed past any logger)."""
    kept, block = [], []
    for line in lines:
        if block or line.startswith("Traceback (most recent call last):"):
            block.append(line)
            if not line.startswith(" ") and not line.startswith("Traceback"):  # the exception's own line ends it
                if not any("pyspark/daemon.py" in b for b in block):
                    kept.extend(block)
                block = []
            continue
        kept.append(line)
    return kept + block


@pytest.mark.parametrize("command", [["demo"], ["spark", "verify", "."], ["spark", "scan", ".", "--where", "x = 1"]])
def test_without_the_spark_extra_the_command_says_how_to_install_it(tmp_path, command):
    (tmp_path / "sitecustomize.py").write_text(BLOCKER)
    result = fileindex(*command, env={"PYTHONPATH": str(tmp_path)}, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1
    assert "No module named 'py" in result.stderr and "pip install 'pyspark<5,>=4.2.0'" in result.stderr


def test_an_unreachable_master_fails_before_spark_starts_naming_it():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    table = TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"
    result = fileindex("spark", "verify", str(table), "--master", f"spark://127.0.0.1:{port}", timeout=120,
                       env={"JAVA_HOME": "/nonexistent"})  # (the master is checked before Java, and Spark started)
    assert result.returncode == 2 and f"spark://127.0.0.1:{port}" in result.stderr
    assert len(our_lines(result.stderr)) == 1 and "Connection refused" in result.stderr


@pytest.mark.parametrize("master", ["local[2", "locl[2]", "spark"])
@pytest.mark.parametrize("command", [["demo"], ["spark", "scan", str(TABLE), "--where", "f1 = 10", "--count"]])
def test_a_master_url_spark_cannot_parse_is_one_line_exit_2_before_spark_starts(master, command):
    """demo refuses before it says it is starting Spark; scan --count, which may answer without Spark, all the
    same."""
    result = fileindex(*command, "--master", master, timeout=120, env={"JAVA_HOME": "/nonexistent"})
    label = " ".join(command[:2]) if command[0] == "spark" else "demo"
    assert result.returncode == 2 and result.stdout == "" and our_lines(result.stderr) == [
        f"fileindex {label}: --master {master}: not a master URL Spark takes: write local[*], local[N], "
        "spark://HOST:PORT, yarn or k8s://HOST:PORT"], result.stderr


def test_scan_count_checks_its_conf_and_master_where_every_file_is_answered_without_spark():
    count = ["spark", "scan", str(TABLE), "--where", "f1 = 10", "--count"]
    assert fileindex(*count).stdout.strip() == "5"  # answered from the index: no session needed
    result = fileindex(*count, "--conf", "x")
    assert result.returncode == 2 and result.stdout == "" and "--conf 'x': write KEY=VALUE" in result.stderr


# A small pruned read (up to READ_ON_DRIVER_FILES files) is read in the driver, a larger one by Spark tasks:
# both name the file.
@pytest.mark.parametrize("files, failure", [(3, "not a readable parquet file"),
                                            (READ_ON_DRIVER_FILES + 2, "a Spark job failed")])
def test_a_corrupt_parquet_file_is_one_line_naming_it_exit_3(tmp_path, files, failure):
    paths = write_dataset(tmp_path / "data", files=files)
    data = bytearray(paths[1].read_bytes())
    data[4:-200] = b"x" * (len(data) - 204)  # the footer survives; every page is garbage
    paths[1].write_bytes(bytes(data))
    result = fileindex("spark", "scan", str(tmp_path / "data"), "--where", "category = 'a'", "--master", "local[2]")
    assert result.returncode == 3, result.stderr[-3000:]
    lines = [line for line in our_lines(result.stderr) if failure in line]
    assert len(lines) == 1 and "part-1.parquet" in lines[0] and "Traceback" not in lines[0]
    # nothing of Spark's task-failure reports (100-220 lines before); at most a progress line besides
    rest = [line for line in without_daemon_notices(our_lines(result.stderr))
            if line not in lines and not line.startswith("fileindex spark")]
    assert len(rest) <= 4, result.stderr[-3000:]
    assert "at org.apache" not in result.stderr and "ERROR" not in result.stderr


def test_a_missing_data_file_of_a_table_is_one_line_naming_it(spark, tmp_path, capsys):
    table = tmp_path / "t"
    shutil.copytree(TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap", table)
    live = table / "bucket-0" / "data-54b396b6-df2d-4c6a-a0ae-b6a5afb612d7-0.parquet"
    live.unlink()
    assert main(["spark", "scan", str(table), "--where", "f0 = 'Alice'"]) == 3
    err = [line for line in capsys.readouterr().err.splitlines() if str(live) in line]
    assert len(err) == 1 and err[0].startswith("fileindex spark scan: ") and "No such file or directory" in err[0]


def test_first_cause_keeps_the_raised_line_without_our_module_path():
    report = ("org.apache.spark.SparkException: Job aborted\nTraceback (most recent call last):\n  File \"x.py\"\n"
              "fileindex.arrow.data_files.DataFileError: /d/p.parquet: not a readable parquet file: bad\n\n"
              " SQLSTATE: 38000")
    assert first_cause(Exception(report)) == "/d/p.parquet: not a readable parquet file: bad"
    missing = "Traceback\nFileNotFoundError: [Errno 2] No such file or directory: '/d/q.parquet'\n"
    assert first_cause(Exception(missing)) == "/d/q.parquet: No such file or directory"
    assert first_cause(Exception("java.io.IOException: disk gone")) == "IOException: disk gone"


def test_a_failure_of_spark_s_own_reader_is_told_by_its_deepest_java_cause():
    """A Java exception in a task (Spark's ORC reader on a timestamp it cannot read) reaches Python as the
    call that failed, its Java causes below: the line was the call (found by a new-user trial)."""
    report = ("An error occurred while calling o75.collectToPython.\n"
              ": org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 1.0 failed 1 "
              "times, most recent failure: Lost task 0.0 in stage 1.0 (TID 1) (localhost executor driver): "
              "java.lang.IllegalArgumentException: nanos > 999999999 or < 0\n\tat java.sql.Timestamp.setNanos\n"
              "\nDriver stacktrace:\nCaused by: java.io.IOException: reading stripe 0\n\tat x\n"
              "Caused by: java.lang.IllegalArgumentException: nanos > 999999999 or < 0\n\t... 1 more")
    assert first_cause(Exception(report)) == "IllegalArgumentException: nanos > 999999999 or < 0"
    assert first_cause(Exception("An error occurred while calling o1.count.\n\tat x")) == (
        "An error occurred while calling o1.count.")  # no cause told: the call


def test_progress_goes_to_stderr_and_json_stays_alone_on_stdout(tmp_path):
    write_dataset(tmp_path / "data", files=5, rows=2000)
    result = fileindex("spark", "verify", str(tmp_path / "data"), "--json", "--master", "local[2]")
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout)["files"] == 5  # the whole of stdout is one JSON object
    progress = [line for line in our_lines(result.stderr) if line.startswith("fileindex spark verify: ")
                and "checking every row" not in line]  # the mode verify chose, said once before the job
    assert progress and all(re.fullmatch(r"fileindex spark verify: \d/5 files, [\d,]+ rows, [\d,]+ rows/s, \d+ s",
                                         line) for line in progress), result.stderr
    assert progress[-1].startswith("fileindex spark verify: 5/5 files, 10,000 rows")
    assert "\r" not in result.stderr  # a pipe gets lines, not a redrawn one


def test_workers_running_another_python_are_named_with_what_to_set(tmp_path):
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True, timeout=120)
    other = bare / "bin" / "python"
    check = subprocess.run([str(other), "-c", "import pyarrow"], capture_output=True)
    assert check.returncode != 0  # a Python without the package's dependencies
    write_dataset(tmp_path / "data", files=2)
    script = tmp_path / "own_session.py"
    script.write_text(
        "import sys\nfrom pyspark.sql import SparkSession\nfrom fileindex.spark import SparkSetupError, build_indexes\n"
        f"spark = SparkSession.builder.master('local[1]').config('spark.pyspark.python', {str(other)!r})"
        ".getOrCreate()\n"
        "try:\n"
        f"    build_indexes(spark, {str(tmp_path / 'data')!r}, {{'file-index.bitmap.columns': 'category'}}).collect()\n"
        "except SparkSetupError as err:\n    print('SETUP', err)\n")
    env = {key: value for key, value in os.environ.items() if key != "PYSPARK_PYTHON"}  # set by spark_session()
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600,
                            env={**env, "SPARK_LOCAL_IP": "127.0.0.1"})
    assert result.returncode == 0, result.stderr[-3000:]
    line = [text for text in result.stdout.splitlines() if text.startswith("SETUP")]
    assert line and f"run {other}" in line[0] and re.search(r"cannot import [\w, ]*pyarrow", line[0])
    assert "set PYSPARK_PYTHON (or spark.pyspark.python)" in line[0] and sys.executable in line[0]


def test_a_driver_script_without_a_main_guard_runs_once_on_an_orc_table(tmp_path):
    table = tmp_path / "table"
    shutil.copytree(TABLES / "orc" / "append_with_bitmap.db" / "append_with_bitmap", table)
    log = tmp_path / "runs.log"
    script = tmp_path / "driver.py"
    script.write_text(
        "import os\nfrom fileindex import PaimonTable\nfrom fileindex.spark import spark_session\n"
        f"open({str(log)!r}, 'a').write('top level ran\\n')\n"
        "spark = spark_session('local[1]')\n"
        f"plan = [sorted(v.result.bitmap) for v in PaimonTable({str(table)!r}).plan('f1 = 20')]\n"
        f"count = spark.read.format('paimon-fileindex').load({str(table)!r}).where('f1 = 20').count()\n"
        "print('ANSWER', plan, count)\n")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert log.read_text().splitlines() == ["top level ran"]
    assert "ANSWER [[4, 6, 7]] 3" in result.stdout


def test_a_missing_pandas_or_py4j_names_the_extra():
    from fileindex.spark.session import missing_spark

    pandas = ImportError("[PACKAGE_NOT_INSTALLED] Pandas >= 2.2.0 must be installed; however, it was not found.")
    assert "No module named 'pandas'" in str(missing_spark(pandas))
    assert "the [spark] extra (No module named 'py4j'): pip install 'pyspark<5,>=4.2.0'" in \
        str(missing_spark(ModuleNotFoundError("x", name="py4j.protocol")))
    assert missing_spark(ModuleNotFoundError("x", name="yaml")) is None


class _Counter:
    def __init__(self):
        self.value = 0


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_terminal_gets_one_line_redrawn(monkeypatch):
    from fileindex.spark import progress

    files, rows = _Counter(), _Counter()
    monkeypatch.setattr(progress, "_counters", {"app": (files, rows)})
    monkeypatch.setattr(progress, "TICK", 0.05)
    stream = _Terminal()
    with progress.reporting("spark build", stream):
        progress.planned(4)
        for _ in range(4):
            time.sleep(0.2)
            files.value += 1
            rows.value += 1000
        time.sleep(0.3)  # the watcher shows the end before the block does
    text = stream.getvalue()
    assert text.count("\r") >= 4 and text.endswith("\n") and text.count("\n") == 1
    assert "\rfileindex spark build: 4/4 files, 4,000 rows" in text and "rows/s" in text
    assert text.count("4/4 files") == 1


def test_a_pipe_gets_a_line_as_files_finish(monkeypatch):
    from fileindex.spark import progress

    files, rows = _Counter(), _Counter()
    monkeypatch.setattr(progress, "_counters", {"app": (files, rows)})
    monkeypatch.setattr(progress, "TICK", 0.05)
    monkeypatch.setattr(progress, "PIPE_GAP", 0.1)
    stream = io.StringIO()
    with progress.reporting("spark build", stream):
        progress.planned(4)
        for _ in range(4):
            time.sleep(0.4)  # well under the 5 s between lines while nothing finishes
            files.value += 1
            rows.value += 1000
        time.sleep(0.3)
    shown = [re.match(r"fileindex spark build: (\d)/4 files", line).group(1) for line in stream.getvalue().splitlines()]
    assert shown == ["0", "1", "2", "3", "4"], stream.getvalue()
