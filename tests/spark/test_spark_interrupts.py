"""Ctrl-C of a Spark command: one line, exit 130, no py4j tracebacks (about 107 lines before); and no JVM
warning about incubator modules on any Spark command."""
import signal
import subprocess
import sys

from conftest import ROOT

TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"


def test_ctrl_c_of_a_spark_job_is_one_line():
    command = subprocess.Popen([sys.executable, "-m", "fileindex", "spark", "verify", str(TABLE), "--master",
                                "local[1]"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    before = []
    for line in command.stderr:  # the job's first progress line: the session is up and the job running
        before.append(line)
        if " files, " in line:
            break
    command.send_signal(signal.SIGINT)
    after = command.stderr.read().splitlines()
    command.wait(timeout=120)
    assert command.returncode == 130, before + after
    assert after == ["fileindex: interrupted"], after
    assert not any("incubator" in line for line in before), before
