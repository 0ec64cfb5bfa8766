"""spark verify --exhaustive (the default on small data) and spark scan --compare naming the lying index."""
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from generated_data import write_dataset

from fileindex.cli import main
from fileindex.cli.spark.scan import render
from fileindex.spark import verify_indexes
from fileindex.spark.compare import compare_scans, timed_scan, with_speedup
from fileindex.writing.data_file import build_data_file_index

ROWS = 20_000


def zeroed_bloom_files(folder):
    """Two files of distinct ids with bloom filters; the second's body has 8 zero bytes in its middle.
    Returns its path and the first id (= row) its filter no longer holds."""
    folder.mkdir()
    for n in range(2):
        path = folder / f"part-{n}.parquet"
        pq.write_table(pa.table({"id": pa.array(np.arange(n * ROWS, (n + 1) * ROWS, dtype=np.int64))}), path)
        built = build_data_file_index(path, {"file-index.bloom-filter.columns": "id",
                                             "file-index.bloom-filter.id.items": str(ROWS)})
        data = bytearray(built.data)
        if n == 1:
            data[len(data) // 2:len(data) // 2 + 8] = bytes(8)
        path.with_name(path.name + ".index").write_bytes(bytes(data))
    from fileindex.scan.task import DataFileTask
    from fileindex.pipeline.verify import verify_file

    report = verify_file(DataFileTask(str(path), str(path), path.stat().st_size), exhaustive=True)
    (violation,) = report.violations
    return path, violation["witnesses"][0]["row"]


def test_exhaustive_verify_names_the_rows_a_zeroed_bloom_filter_lost(spark, tmp_path, capsys):
    path, first = zeroed_bloom_files(tmp_path / "d")
    rows = {r["file"]: r.asDict() for r in verify_indexes(spark, str(tmp_path / "d"), exhaustive=True).collect()}
    assert rows[str(path)]["status"] == "violations" and rows[str(path.with_name("part-0.parquet"))]["status"] == "ok"
    witness = json.loads(rows[str(path)]["detail"])["violations"][0]["witnesses"][0]
    assert witness["row"] == first and witness["id"] == ROWS + first and "not in the filter" in witness["index says"]
    # the command line checks every row by default on data this small, and says so
    assert main(["spark", "verify", str(tmp_path / "d")]) == 1
    out, err = capsys.readouterr()
    assert "checking every row" in err and f"row {first}: id={ROWS + first}" in out
    assert main(["spark", "verify", str(tmp_path / "d"), "--sampled"]) in (0, 1)
    assert "every row" not in capsys.readouterr().out
    assert main(["spark", "verify", str(tmp_path / "d"), "--exhaustive", "--where", "id = 1"]) == 2


def test_a_compare_that_differs_names_the_file_and_suggests_verify(spark, tmp_path):
    path, first = zeroed_bloom_files(tmp_path / "d")
    where = f"id = {ROWS + first}"
    report = timed_scan(spark, str(tmp_path / "d"), where)
    report.update(compare_scans(spark, str(tmp_path / "d"), where, report["_frame"]))
    assert report["identical"] is False and report["plain_rows"] == 1 and report["result_rows"] == 0
    (disagreeing,) = report["disagreeing"]
    assert disagreeing["file"] == str(path) and f"rows {first}" in disagreeing["detail"]
    text = render(with_speedup(report))
    assert "please report" not in text and str(path) in text
    assert "fileindex verify" in text and "spark verify --exhaustive" in text


def test_a_compare_of_correct_indexes_lists_nothing(spark, tmp_path):
    write_dataset(tmp_path / "g", files=2)
    report = timed_scan(spark, str(tmp_path / "g"), "category = 'c'")
    report.update(compare_scans(spark, str(tmp_path / "g"), "category = 'c'", report["_frame"]))
    assert report["identical"] and "disagreeing" not in report
