"""tools/bench_java.py times Java Paimon 0.9.0 in the same run as the Python benchmark."""
import sys

import pytest
from conftest import ROOT
from jdk import require_jdk

pytestmark = pytest.mark.java  # Java Paimon 0.9.0, the oracle's jar


def test_java_is_timed_in_the_same_run():
    require_jdk()
    sys.path.insert(0, str(ROOT / "tools"))
    import bench_java

    figures = bench_java.run(repeat=1, only="container")
    seconds, _, cpu_seconds = figures["FileIndexFormat head read, 12-column container (x100k)"]
    assert seconds > 0 and cpu_seconds > 0  # (figures, not bounds: benchmarks are read, not asserted)
    recorded = {"FileIndexFormat head read, 12-column container (x100k)": 8.6e-6}
    assert bench_java.machine_factor(figures, recorded) == seconds / 8.6e-6
    assert bench_java.machine_factor(figures, recorded, cpu=True) == cpu_seconds / 8.6e-6  # (the CPU ratios' scale)


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


def test_java_plans_the_tables_it_writes_as_this_package_does(tmp_path, monkeypatch):
    """The table-planning rows (tools/bench_planning.py): Java 0.9's planner keeps the files that
    ``PaimonTable.plan`` and the data source's planning keep, embedded indexes evaluated alike."""
    require_jdk()
    sys.path.insert(0, str(ROOT / "tools"))
    import bench_java
    import bench_planning

    from fileindex.spark import datasource

    figures, roots, key = bench_java.plan_tables(tmp_path, files=40, rows=50, repeat=1)
    assert set(roots) == {"embedded", "sidecar"} and len(figures) == 8
    for kind, root in roots.items():
        for where in (f"k = {key}", "cat = 'recalled'"):
            java = figures[f"table plan {kind} 40 files: {where}"]
            cached = figures[f"table plan {kind} 40 files: {where} (manifest cache)"]  # the same plan, cached
            assert java.seconds > 0 and cached.seconds > 0 and cached.check == java.check
            source_files = bench_planning.source_plan(root, where)
            if kind == "embedded":
                assert int(java.check) == bench_planning.table_plan(root, where) == source_files < 40
            else:  # Java's planner opens no sidecar (its readers evaluate them), nor ours for a table of many;
                # a table of at most SIDECARS_PLANNED sidecars has them evaluated while planning
                assert int(java.check) == 40 > bench_planning.table_plan(root, where) == source_files
                monkeypatch.setattr(datasource, "SIDECARS_PLANNED", 0)
                assert bench_planning.source_plan(root, where) == 40
                monkeypatch.undo()
