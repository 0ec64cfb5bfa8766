"""tools/bench_spark.py --scans-only runs end to end on a tiny dataset, in a Spark of its own: every scan
prints its pruned and plain figures and the breakdown of where a pruned scan's time goes (the part that broke
unseen once, when the verdict types became one). Not a timing."""
import json
import subprocess
import sys

import pytest
from conftest import ROOT

pytestmark = pytest.mark.slow


def test_bench_spark_scans_and_their_breakdown(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "bench_spark.py"), "--files", "3", "--rows", "2000",
                           "--repeat", "1", "--scans-only", "--json", "--master", "local[1]", "--data", str(tmp_path)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout[done.stdout.index("{"):])
    scans = report["scans"]
    assert len(scans) == 5
    for scan in scans:
        assert scan["identical"] and scan["pruned_seconds"] > 0 and scan["plain_seconds"] > 0, scan
        assert 0 <= scan["files_read"] <= scan["files_total"] == 3, scan
    assert len(report["breakdown"]) == 2
    for steps in report["breakdown"].values():
        assert steps and all(seconds >= 0 for seconds in steps.values()), steps
