"""tools/bench_answers.py runs end to end on a small file: the index's counts agree with pyarrow's and DuckDB's and
its top 10 is a top 10 of the column (the script asserts both), and each query is printed with its figures. Not a
timing: this keeps the script from breaking unseen."""
import subprocess
import sys

from conftest import ROOT

QUERIES = ("COUNT(*) WHERE rare category", "COUNT(*) WHERE IN of two", "COUNT(*) WHERE 1 % range",
           "COUNT(*) WHERE half the rows", "ORDER BY amount DESC LIMIT 10 (range-bitmap)",
           "ORDER BY amount DESC LIMIT 10 (bsi)")


def test_bench_answers_prints_every_query_with_agreeing_answers(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "bench_answers.py"), "--rows", "5000", "--repeat", "1",
                           "--data", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("5,000 rows")
    for query in QUERIES:
        [line] = [line for line in lines if line.startswith(query)]
        assert line.count("/") >= 2 and line.rstrip().endswith("x"), line
