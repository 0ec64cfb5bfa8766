"""Ctrl-C (or SIGTERM) of a Spark command: one line, exit 130 (143), no py4j tracebacks (about 107 lines
before); and no JVM warning about incubator modules on any Spark command."""
import signal
import subprocess
import sys

import pytest
from conftest import ROOT

TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_of_a_spark_job_is_one_line(signum, code):
    command = subprocess.Popen([sys.executable, "-m", "fileindex", "spark", "verify", str(TABLE), "--master",
                                "local[1]"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    before = []
    for line in command.stderr:  # the job's first progress line: the session is up and the job running
        before.append(line)
        if " files, " in line:
            break
    command.send_signal(signum)
    after = command.stderr.read().splitlines()
    command.wait(timeout=120)
    assert command.returncode == code, before + after
    assert after == ["fileindex: interrupted"], after
    assert not any("incubator" in line for line in before), before
