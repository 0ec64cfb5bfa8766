"""tools/bench_pk.py end to end on a small primary-key table (pypaimon-rust writes it, in .venv-peer: three
commits, overlapping sorted runs in every bucket, sidecar bitmaps on ``cat``): every query's row counts agree
between this project's reader and pypaimon-rust (the script says where they differ), and the table reads as
merged rows, one per key, its indexed value found in one bucket (the others dropped whole by their sidecars).
Not a timing."""
import subprocess
import sys

import pytest
from conftest import ROOT

from fileindex import PaimonTable


@pytest.mark.peer
@pytest.mark.slow
def test_bench_pk_prints_every_query_with_agreeing_counts(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "bench_pk.py"), "--rows", "3000", "--repeat", "1",
                           "--readers", "fileindex,pypaimon-rust", "--data", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "DIFFER" not in done.stdout and "failed" not in done.stdout, done.stdout
    rows = {tuple(line.split()[:-4]): int(line.split()[-4].replace(",", "")) for line in done.stdout.splitlines()[2:]}
    assert rows[("every", "row", "fileindex")] == rows[("every", "row", "pypaimon-rust")] == 3000
    assert rows[("indexed", "value", "fileindex")] == rows[("one", "key", "fileindex")] == 1
    table = PaimonTable(tmp_path / "warehouse" / "default.db" / "t")
    assert all(f.merge is not None for f in table.scan().plan() if f.to_read)
    stages = {s.name: s for s in table.scan("cat = 'rare'").explain().stages}
    assert stages["whole_bucket"].files_after < stages["whole_bucket"].files_before
    merged = table.scan().to_arrow()
    assert merged.num_rows == len(set(merged["id"].to_pylist())) == 3000
    assert set(merged["v"].to_pylist()) == {0, 1, 2}  # the updates won over the first commit
