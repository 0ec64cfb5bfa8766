"""tools/bench_pk.py end to end on a small primary-key table (Java Paimon 0.9.0 writes it: a load, a full
compaction, two update commits left on level 0, so every bucket holds overlapping sorted runs on two levels;
Java's bitmaps on ``cat``): every query's row counts agree between this project's reader and pypaimon-rust (the
script says where they differ), and the table reads as merged rows, one per key, its indexed value found in
one bucket (the others dropped whole by their indexes). Not a timing."""
import subprocess
import sys

import pytest
from conftest import ROOT
from java_oracle import hadoop_jars, require_jar

from fileindex import PaimonTable


@pytest.mark.peer
@pytest.mark.java
@pytest.mark.slow
def test_bench_pk_prints_every_query_with_agreeing_counts(tmp_path):
    require_jar()
    hadoop_jars()
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "bench_pk.py"), "--rows", "3000", "--repeat", "1",
                           "--readers", "fileindex,pypaimon-rust", "--data", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "DIFFER" not in done.stdout and "failed" not in done.stdout, done.stdout
    rows = {tuple(line.split()[:-4]): int(line.split()[-4].replace(",", "")) for line in done.stdout.splitlines()[2:]}
    assert rows[("every", "row", "fileindex")] == rows[("every", "row", "pypaimon-rust")] == 3000
    assert rows[("indexed", "value", "fileindex")] == rows[("one", "key", "fileindex")] == 1
    table = PaimonTable(tmp_path / (tmp_path / "ROOT").read_text())  # (ROOT names the table relative to --data)
    entries = [entry for entry, _ in table.live()]
    assert {entry.level for entry in entries} == {0, 5} and all(e.index_files or e.embedded_index for e in entries)
    assert all(f.merge is not None for f in table.scan().plan() if f.to_read)
    stages = {s.name: s for s in table.scan("cat = 'rare'").explain().stages}
    assert stages["whole_bucket"].files_after < stages["whole_bucket"].files_before
    merged = table.scan().to_arrow()
    assert merged.num_rows == len(set(merged["id"].to_pylist())) == 3000
    assert set(merged["v"].to_pylist()) == {0, 1, 2}  # the updates won over the first commit
    # tools/bench_pk_lookup.py on the same table: this checkout and pypaimon-rust find the one row of the key
    lookup = subprocess.run([sys.executable, str(ROOT / "tools" / "bench_pk_lookup.py"), "--rows", "3000",
                             "--rounds", "1", "--lookups", "2", "--data", str(tmp_path)],
                            capture_output=True, text=True, timeout=600)
    assert lookup.returncode == 0, lookup.stderr[-3000:]
    (round_line,) = [line for line in lookup.stdout.splitlines() if line.startswith("round 1")]
    assert "this " in round_line and "pypaimon-rust " in round_line and round_line.count("(1 row)") == 2, round_line
