"""The session builder: a clear message for a missing or old Java, and spark-submit's session kept."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from generated_data import write_dataset

from fileindex.spark.session import SparkSetupError, check_java, java_options


def fake_java(folder: Path, version_line: str) -> Path:
    home = folder / "jdk"
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text(f"#!/bin/sh\necho '{version_line}' >&2\n")
    java.chmod(0o755)
    return home


@pytest.mark.parametrize("line,found", [('openjdk version "11.0.2" 2019-01-15', "Java 11"),
                                        ('java version "1.8.0_202"', "Java 8")])
def test_an_old_java_is_named_with_what_to_install(tmp_path, monkeypatch, line, found):
    monkeypatch.setenv("JAVA_HOME", str(fake_java(tmp_path, line)))
    with pytest.raises(SparkSetupError, match=f"Java 17 or newer.*{found}.*openjdk-17"):
        check_java()


def test_a_missing_java_is_named_with_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "nowhere"))
    with pytest.raises(SparkSetupError, match="found no java on JAVA_HOME=.*install a JDK"):
        check_java()
    monkeypatch.delenv("JAVA_HOME")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SparkSetupError, match="found no java on PATH"):
        check_java()


def test_the_command_line_says_so_in_one_line(tmp_path):
    env = {**os.environ, "JAVA_HOME": str(fake_java(tmp_path, 'openjdk version "11.0.2"'))}
    write_dataset(tmp_path / "data", files=1, rows=10)  # (inputs are checked before Java)
    result = subprocess.run([sys.executable, "-m", "fileindex.cli", "spark", "verify", str(tmp_path / "data")],
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().count("\n") == 0 and "Java 17" in result.stderr


def test_under_spark_submit_the_submitted_session_is_used(tmp_path):
    import pyspark

    write_dataset(tmp_path / "d", files=2)
    script = tmp_path / "job.py"
    script.write_text(
        "import sys\nfrom fileindex.cli import main\nfrom pyspark.sql import SparkSession\n"
        f"code = main(['spark', 'verify', {str(tmp_path / 'd')!r}, '--json'])\n"
        "print('MASTER', SparkSession.getActiveSession().sparkContext.master)\nsys.exit(code)\n")
    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    env = {**os.environ, "SPARK_HOME": str(Path(pyspark.__file__).parent), "PYSPARK_PYTHON": sys.executable,
           "SPARK_LOCAL_IP": "127.0.0.1"}
    result = subprocess.run([str(submit), "--master", "local[1]", str(script)], capture_output=True, text=True,
                            env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "MASTER local[1]" in result.stdout and '"violations": 0' in result.stdout


def test_a_jvm_out_of_heap_exits_instead_of_hanging_the_command():
    """A driver out of memory kept the command hanging (its event loop dead); the JVMs exit on it instead."""
    assert "-XX:+ExitOnOutOfMemoryError" in java_options().split()
    assert "-Dlog4j2.configurationFile=" in java_options()


def test_the_warning_of_a_killed_sibling_task_is_not_printed(spark, capsys):
    """When a task fails, Spark kills the others, each with "Incomplete task interrupted" at WARN, which the job's
    one-line error follows (a CI run saw it as a second line of ``spark scan``'s error): the log4j config drops it,
    and other warnings still reach stderr."""
    logger = spark._jvm.org.apache.logging.log4j.LogManager.getLogger(
        "org.apache.spark.sql.execution.python.MapInBatchEvaluatorFactory")
    logger.warn("Incomplete task interrupted: Attempting to kill Python Worker")
    logger.warn("a warning that is news")
    err = ""
    for _ in range(600):  # (a guard only: the JVM's stderr reaches ours through a copying thread)
        err += capsys.readouterr().err
        if "a warning that is news" in err:
            break
        time.sleep(0.1)
    assert "a warning that is news" in err and "Incomplete task interrupted" not in err
