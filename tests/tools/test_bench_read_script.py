"""tools/bench_read.py runs end to end on a small table (pypaimon-rust writes it, in .venv-peer): every query's
row counts agree across the three readers (the script asserts it) and each row is printed with its figures.
Not a timing: the figures are whatever a tiny table gives; this keeps the script from breaking unseen."""
import subprocess
import sys

import pytest
from conftest import ROOT

pytestmark = [pytest.mark.peer, pytest.mark.slow]
QUERIES = ("one id", "rare category", "20-minute window", "full scan", "amount > 100 (most rows)")


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
