"""How a scan is timed: until every result row is held, the pruned and the plain side in the same way.

A pruned result read in the driver is a local relation: Spark holds its rows already, so it is collected
(no job) rather than persisted (a job copying them), and the plain scan beside it is collected too."""
import pyarrow as pa
from generated_data import write_dataset

from fileindex.spark import pruned_scan
from fileindex.spark.compare import (
    COLLECT_UP_TO_ROWS,
    compare_scans,
    compared_scan,
    holding,
    materialize,
    timed_scan,
)

GROUP = "fileindex-test-timing"


def jobs_while(spark, action):
    """What ``action`` returns, and the Spark jobs it ran."""
    context = spark.sparkContext
    context.setJobGroup(GROUP, "timing test")
    try:
        before = set(context.statusTracker().getJobIdsForGroup(GROUP))
        result = action()
        return result, set(context.statusTracker().getJobIdsForGroup(GROUP)) - before
    finally:
        for key in ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel"):
            context.setLocalProperty(key, None)  # None removes it


def test_a_driver_read_result_is_collected_without_a_job_and_counts_every_row(spark, tmp_path):
    write_dataset(tmp_path, files=3)
    where = "category = 'c'"
    report, jobs = jobs_while(spark, lambda: timed_scan(spark, str(tmp_path), where))
    frame = report["_frame"]
    assert report["held_by"] == "collect" and jobs == set()  # planned, read, filtered and held in the driver
    assert not frame.is_cached  # not persisted: Spark holds a local relation's rows already
    compared = compare_scans(spark, str(tmp_path), where, frame, hold=report["held_by"])
    assert compared["identical"] and compared["plain_rows"] == report["result_rows"] > 0


def test_the_plain_side_is_held_as_the_pruned_side_was(spark, tmp_path):
    write_dataset(tmp_path, files=2)
    report = compared_scan(spark, str(tmp_path), "category = 'c' AND amount > 0", warm=False)
    assert report["held_by"] == "collect" and report["identical"]
    assert report["plain_rows"] == report["result_rows"] > 0 and report["speedup"] > 0
    read_by_a_job = pruned_scan(spark, str(tmp_path), "category = 'c'", read="spark")
    assert read_by_a_job.local_rows is None and holding(read_by_a_job.local_rows) == "persist"
    frame, rows = materialize(read_by_a_job.frame, "persist")
    compared = compare_scans(spark, str(tmp_path), "category = 'c'", frame)
    assert frame.is_cached and compared["identical"] and rows == compared["plain_rows"] > report["result_rows"]
    frame.unpersist()


def test_a_large_local_relation_is_held_as_arrow_every_row_and_column(spark):
    rows = COLLECT_UP_TO_ROWS + 1
    table = pa.table({"x": pa.array(range(rows), pa.int64()), "m": pa.array([[("k", i)] for i in range(rows)],
                                                                            pa.map_(pa.string(), pa.int64()))})
    frame = spark.createDataFrame(table).where("x % 2 = 0")
    assert holding(rows) == "arrow" and holding(COLLECT_UP_TO_ROWS) == "collect"
    held, count = materialize(frame, holding(rows))
    assert count == (rows + 1) // 2 and held is frame and not frame.is_cached


def test_a_driver_read_reads_its_files_on_several_threads_and_keeps_their_order(spark, tmp_path, monkeypatch):
    """pyarrow decodes without the GIL, so the files of a driver-side read are read side by side; the
    rows still come in file order, as read one after another."""
    import threading
    import time

    import fileindex.parallel as parallel
    import fileindex.spark.jobs as jobs

    write_dataset(tmp_path, files=4)
    where = "category = 'c'"
    monkeypatch.setattr(parallel, "threads", lambda: 1)
    one_by_one = [repr(row) for row in pruned_scan(spark, str(tmp_path), where).frame.collect()]  # NaN == NaN
    monkeypatch.setattr(parallel, "threads", lambda: 2)  # as on the 2-core CI machine, on any machine
    readers, read_one = set(), jobs._read_one

    def slow_read_one(read, **options):
        readers.add(threading.get_ident())
        time.sleep(0.05)  # long enough for the other thread to take the next file
        yield from read_one(read, **options)

    monkeypatch.setattr(jobs, "_read_one", slow_read_one)
    scan = pruned_scan(spark, str(tmp_path), where)
    assert scan.local_rows is not None and scan.stats.files_read > 1
    assert [repr(row) for row in scan.frame.collect()] == one_by_one and len(readers) == 2
