"""tools/bench_wall.py (#54) runs from the checkout on a Java-written table and prints where the scan's wall time
went, the consumer's thread among the threads. Not a timing: this keeps the script from breaking unseen."""
import subprocess
import sys

from conftest import ROOT


def test_bench_wall_prints_the_consumers_thread():
    table = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "bench_wall.py"), str(table), "--repeat", "2"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("where None: wall ") and "run queue" in lines[1]
    consumer = next(line.split() for line in lines[2:] if line.split()[0] == "consumer")
    assert len(consumer) == 5 and float(consumer[1]) > 0, consumer
