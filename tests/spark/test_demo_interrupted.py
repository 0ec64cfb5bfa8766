"""``fileindex demo`` run as a user runs it (the README's first command): it says what it does from its first
second, and Ctrl-C while Spark's workers write its dataset ends it in one line, exit 130, its scratch folder gone."""
import os
import signal
import subprocess
import sys


def test_ctrl_c_while_the_demo_generates_its_data_is_one_line_and_leaves_no_folder(tmp_path):
    demo = subprocess.Popen([sys.executable, "-m", "fileindex", "demo", "--files", "8", "--rows", "300000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(tmp_path)})
    assert demo.stdout is not None
    said = [demo.stdout.readline()]
    assert said[0] == "starting Spark (local[*]) ...\n"  # before the JVM's silent start
    while not said[-1].startswith("generating") and said[-1]:
        said.append(demo.stdout.readline())
    assert said[-1].startswith("generating 8 Parquet files"), said
    demo.send_signal(signal.SIGINT)  # the workers are writing the files now
    out, err = demo.communicate(timeout=300)
    assert demo.returncode == 130 and err == "fileindex: interrupted\n", err[-3000:]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("fileindex-demo-")] == []
