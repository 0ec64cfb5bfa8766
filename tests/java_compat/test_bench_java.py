"""tools/bench_java.py times Java Paimon 0.9.0 in the same run as the Python benchmark."""
import sys

from conftest import ROOT
from jdk import require_jdk


def test_java_is_timed_in_the_same_run():
    require_jdk()
    sys.path.insert(0, str(ROOT / "tools"))
    import bench_java

    figures = bench_java.run(repeat=1, only="container")
    seconds = figures["FileIndexFormat head read, 12-column container (x100k)"].seconds
    assert 1e-8 < seconds < 1e-3
    factor = bench_java.machine_factor(figures, {"FileIndexFormat head read, 12-column container (x100k)": 8.6e-6})
    assert factor == seconds / 8.6e-6


BITMAP_CHECKS = {"build": "sha256", "eq cold (new reader, meta read + 1 eq)": "eq_card",
                 "eq x100 distinct values (meta warm)": "eq100_card_sum", "IN 10 values (meta warm)": "in10_card",
                 "NOT IN 10 values (meta warm)": "notin10_card", "IS NULL (meta warm)": "isnull_card"}


def test_the_java_bitmap_rows_compute_what_java_recorded():
    """Each timed Java row's result equals the recorded one: the rows time the work they name
    (a lazy result never read, for one, would time nothing)."""
    require_jdk()
    sys.path.insert(0, str(ROOT / "tools"))
    import bench_data
    import bench_java

    recorded = bench_data.perf_datasets()["java_results"]
    figures = bench_java.run(repeat=1, only="bitmap")
    checked = 0
    for dataset in ("string_1m_card1k", "int_1m_card100k"):
        for label, key in BITMAP_CHECKS.items():
            row = figures[f"bitmap v1 {label} {dataset}"]
            assert row.check == str(recorded[f"bitmap_v1.{dataset}.{key}"]), (label, dataset)
            checked += 1
    assert checked == 12 and len(figures) == 12
