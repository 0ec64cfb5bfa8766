"""tools/bench_java.py times Java Paimon 0.9.0 in the same run as the Python benchmark."""
import sys

from conftest import ROOT
from jdk import require_jdk


def test_java_is_timed_in_the_same_run():
    require_jdk()
    sys.path.insert(0, str(ROOT / "tools"))
    import bench_java

    figures = bench_java.run(repeat=1, only="container")
    seconds = figures["FileIndexFormat head read, 12-column container (x100k)"]
    assert 1e-8 < seconds < 1e-3
    factor = bench_java.machine_factor(figures, {"FileIndexFormat head read, 12-column container (x100k)": 8.6e-6})
    assert factor == seconds / 8.6e-6
