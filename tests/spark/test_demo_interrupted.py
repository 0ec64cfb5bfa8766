"""``fileindex demo`` run as a user runs it (the README's first command): it says what it does from its first
second, and Ctrl-C while Spark's workers write its dataset ends it in one line, exit 130, its scratch folder gone,
whatever the JVM the interrupt ends writes on its way out (2 tries in 9 printed 26 lines of a JVM stack trace)."""
import os
import signal
import subprocess
import sys
import time

import pytest

from fileindex.spark.session import java_options

# The JVM's heap summary, written to its stderr as it exits: something it writes after the interrupt every time
EXIT_LOG = "-Xlog:gc+heap+exit=info:stderr"


def files_written(folder, count: int, demo: subprocess.Popen) -> None:
    """Wait until the demo's workers have written ``count`` Parquet files (or the demo has ended)."""
    while len(list(folder.glob("fileindex-demo-*/**/*.parquet"))) < count and demo.poll() is None:
        time.sleep(0.05)  # (a look at the scratch folder every 50 ms)


@pytest.mark.parametrize("written", [0, 1, 4])
def test_ctrl_c_while_the_demo_generates_its_data_is_one_line_and_leaves_no_folder(tmp_path, written):
    demo = subprocess.Popen([sys.executable, "-m", "fileindex", "demo", "--files", "8", "--rows", "300000",
                             "--conf", f"spark.driver.extraJavaOptions={java_options()} {EXIT_LOG}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "TMPDIR": str(tmp_path)})
    assert demo.stdout is not None
    said = [demo.stdout.readline()]
    assert said[0] == "starting Spark (local[*]) ...\n"  # before the JVM's silent start
    while not said[-1].startswith("generating") and said[-1]:
        said.append(demo.stdout.readline())
    assert said[-1].startswith("generating 8 Parquet files"), said
    files_written(tmp_path, written, demo)  # (Ctrl-C at a few moments of the workers' writing)
    os.killpg(demo.pid, signal.SIGINT)  # as a terminal sends it: to the process group
    out, err = demo.communicate(timeout=300)
    assert not any(" at org.apache" in line or "Exception" in line or "[gc,heap,exit]" in line
                   for line in err.splitlines()), err[-3000:]
    assert demo.returncode == 130 and err == "fileindex: interrupted\n", err[-3000:]
    assert "done in" not in out  # interrupted before the demo's end
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("fileindex-demo-")] == []
