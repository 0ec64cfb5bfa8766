"""tools/bench_read.py runs from a plain checkout (the package not installed), and end to end on a small table
(pypaimon-rust writes it, in .venv-peer): every query's row counts agree across the three readers (the script
asserts it) and each row is printed with its figures. Not a timing: the figures are whatever a tiny table
gives; this keeps the script from breaking unseen."""
import subprocess
import sys

import pytest
from conftest import ROOT

QUERIES = ("one id", "rare category", "20-minute window", "full scan", "amount > 100 (most rows)")
# A Python with the dependencies but without this package installed (as a plain checkout is): the editable
# install's import finder removed, then the script loaded (not run) and its reader used on a shared table.
PLAIN_CHECKOUT = """
import runpy, sys
sys.meta_path[:] = [f for f in sys.meta_path if "__editable__" not in getattr(f, "__module__", "")]
bench = runpy.run_path(sys.argv[1], run_name="bench_read")
table = bench["ROOT"] / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"
print(bench["PaimonTable"](table).scan("f1 = 20").to_arrow().num_rows)
"""


def test_bench_read_runs_from_a_plain_checkout():
    done = subprocess.run([sys.executable, "-c", PLAIN_CHECKOUT, str(ROOT / "tools" / "bench_read.py")],
                          capture_output=True, text=True, timeout=300, cwd="/")
    assert done.returncode == 0 and done.stdout.split() == ["3"], done.stderr[-3000:]


@pytest.mark.peer
@pytest.mark.slow
def test_bench_read_prints_every_query_with_agreeing_counts(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "bench_read.py"), "--files", "4", "--rows", "3000",
                           "--repeat", "1", "--data", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = {line[:26].strip(): line[26:].split() for line in done.stdout.splitlines()}
    for query in QUERIES:
        rows, files, ours, peer_sql, _, plain, *_ = lines[query]
        assert int(rows.replace(",", "")) >= 1 and 1 <= int(files) <= 4, lines[query]
        assert min(float(ours), float(peer_sql), float(plain)) > 0, lines[query]
    assert lines["full scan"][:2] == ["12,000", "4"]
    assert int(lines["one id"][0]) == 1
