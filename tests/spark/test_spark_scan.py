"""Index-pruned scans on local Spark: always the rows of a plain scan, never reading a skipped file."""
import json
import re
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import ROOT
from generated_data import write_dataset

from fileindex.cli import main
from fileindex.errors import UsageError
from fileindex.indexes.result import SKIP
from fileindex.pipeline.inputs import resolve_inputs
from fileindex.scan.reader import evaluate_file
from fileindex.predicate.parser import parse_predicate
from fileindex.spark import plain_scan, pruned_scan
from fileindex.spark.compare import compare_scans, timed_scan
from fileindex.spark.datasource import FORMAT, read_table
from fileindex.spark.jobs import READ_ON_DRIVER_FILES

TABLES = ROOT / "tests" / "tables"
BITMAP_PREDICATES = ["f0 = 'Alice'", "f0 <> 'Alice'", "f1 = 20", "f2 IS NULL", "f2 IS NOT NULL",
                     "f0 IN ('Alice', 'Bob', 'Lucy')", "f0 NOT IN ('Alice', 'Bob', 'Lucy')", "f0 = 'Alice' AND f1 = 20",
                     "f0 = 'Alice' OR f1 = 20", "f1 = 30", "f1 > 10", "f3 = 14.1", "f1 BETWEEN 5 AND 15"]
TABLE_CASES = {
    "append_with_bitmap": BITMAP_PREDICATES,
    "append_with_bitmap_v1": BITMAP_PREDICATES,
    "append_with_bitmap_no_embedding": BITMAP_PREDICATES,
    "pk_with_bitmap_dv": BITMAP_PREDICATES,
    "append_with_bsi": ["f1 = 100", "f2 <> -2", "f1 > 100", "f1 <= 50 OR f2 IS NULL", "f4 IS NULL",
                        "f1 NOT BETWEEN 50 AND 300"],
    "append_with_bloomfilter": ["f0 = 'Tony'", "f0 = 'Nobody'", "f1 IN (7, 8)", "f3 = 13.1", "f4 IS NULL"],
    "append_with_bitmap_alter_table": ["f4 = 'Alice'", "f1 = 20", "f5 IS NULL", "f5 = 100", "f1 > 15"],
    "append_with_bsi_bitmap_bloomfilter": ["f0 = 'Bob'", "f1 > 100 AND f2 < 0", "f4 IS NULL", "f2 IN (1, 2)"],
}
CASES = [(fmt, name, where) for fmt in ("parquet", "orc") for name, wheres in TABLE_CASES.items() for where in wheres]
CASES += [("orc", "timestamp_index", where) for where in  # its index blob is missing: every file is read
          ("ts_milli IS NULL", "ts_micro > TIMESTAMP '1970-01-01 00:00:00'", "ts_nano IS NOT NULL",
           "ts_tz_micro < TIMESTAMP '2030-01-01 00:00:00'", "ts_nano IS NULL",
           "ts_nano = TIMESTAMP '2025-04-25 01:00:02.001001001'", "ts_nano = TIMESTAMP '1969-12-31 23:30:54.999001'",
           "ts_nano > TIMESTAMP '2000-01-01 00:00:00'", "ts_tz_nano < TIMESTAMP '1970-01-01 00:00:00'")]
CASES += [("", "append_with_bitmap_multi_stripes", where) for where in ("f0 = 'Alice'", "f1 = 20 OR f2 IS NULL")]
# rows a Java batch read returns (tables/README.md and the table spec), for an independent check
EXPECTED = {("pk_with_bitmap_dv", "f1 = 20"): 2, ("append_with_bitmap", "f0 = 'Alice'"): 2,
            ("append_with_bitmap_alter_table", "f4 = 'Alice'"): 3, ("append_with_bsi", "f1 > 100"): 3}


def root(fmt, name):
    return str(TABLES / fmt / f"{name}.db" / name)  # fmt "" for the tables at the top of tests/tables


def sorted_rows(frame):
    return sorted(json.dumps(r.asDict(), default=str, sort_keys=True) for r in frame.collect())


@pytest.mark.parametrize("fmt,name,where", CASES)
def test_pruned_scans_of_java_written_tables_equal_plain_scans(spark, fmt, name, where):
    scan = pruned_scan(spark, root(fmt, name), where)
    got = sorted_rows(scan.frame)
    assert got == sorted_rows(plain_scan(spark, root(fmt, name), where))
    if (name, where) in EXPECTED:
        assert len(got) == EXPECTED[(name, where)]
    assert scan.stats.rows_read <= scan.stats.rows_total
    through_source = spark.read.format(FORMAT).load(root(fmt, name)).where(to_sql(where))
    assert sorted_rows(through_source) == got
    # the relation alone filters exactly as Spark would (timestamps finer than microseconds included)
    assert sorted_rows(spark.read.format(FORMAT).option("where", where).load(root(fmt, name))) == got
    assert sorted_rows(read_table(spark, root(fmt, name), where)) == got


def to_sql(where: str) -> str:
    return where  # the predicate syntax is Spark SQL for these predicates


@pytest.mark.parametrize("plan", ["driver", "spark"])
def test_the_index_prunes_files_and_rows(spark, tmp_path, plan):
    write_dataset(tmp_path, files=4)
    scan = pruned_scan(spark, str(tmp_path), "category = 'é'", plan=plan)
    assert scan.stats.files_read == 4 and scan.stats.rows_read < scan.stats.rows_total / 3
    assert sorted_rows(scan.frame) == sorted_rows(plain_scan(spark, str(tmp_path), "category = 'é'"))
    first_id = spark.read.parquet(str(tmp_path / "part-2.parquet")).first().id
    scan = pruned_scan(spark, str(tmp_path), f"id = {first_id}", plan=plan)
    assert scan.stats.files_read < 4 and scan.frame.count() == 1
    assert [f.read for f in scan.files].count("none") == 4 - scan.stats.files_read


GENERATED_PREDICATES = [
    "category = 'a'", "category <> 'b'", "category IS NULL", "category IS NOT NULL", "category IN ('a', 'é', 'zz')",
    "category NOT IN ('a', 'c')", "amount < -50", "amount <= 0.0", "amount >= 0.0", "amount <= -0.0",
    "amount = NaN", "amount > 1E300", "amount BETWEEN -0.0 AND 10", "amount NOT BETWEEN -100 AND 100",
    "m['k'] = 3", "m['k'] IS NULL", "day = DATE '2022-01-10'", "day > DATE '2022-01-25' AND category = 'd'",
    "id < 50 OR m['k'] IN (0, 5)", "NOT (category = 'a' OR amount > 0)",
]


@pytest.mark.parametrize("where", GENERATED_PREDICATES)
def test_pruned_scans_of_generated_files_equal_spark_plain_scans(spark, tmp_path_factory, where):
    folder = generated(tmp_path_factory)
    report = timed_scan(spark, str(folder), where)
    compared = compare_scans(spark, str(folder), where, report["_frame"])
    report["_frame"].unpersist()
    assert compared["identical"] and compared["plain_rows"] == report["result_rows"], (where, report, compared)


def test_nan_and_signed_zeros_follow_spark_sql_not_parquet_pushdown(spark, tmp_path_factory):
    """Spark SQL says -0.0 = 0.0 and NaN = NaN (above everything), but a plain Parquet scan with filter
    pushdown drops row groups SQL would keep. The pruned scan returns what SQL says: the rows of a
    plain scan with Parquet pushdown off, and never fewer than the default plain scan."""
    folder = str(generated(tmp_path_factory))
    for where, count in (("amount = 0.0", 8), ("amount = -0.0", 8), ("amount IN (0.0, 1.5)", 8),
                         ("amount = NaN", 4), ("amount > 1E300", 8)):
        pruned = sorted_rows(pruned_scan(spark, folder, where).frame)
        default_plain = sorted_rows(plain_scan(spark, folder, where))
        spark.conf.set("spark.sql.parquet.filterPushdown", "false")
        try:
            sql_plain = sorted_rows(plain_scan(spark, folder, where))
        finally:
            spark.conf.set("spark.sql.parquet.filterPushdown", "true")
        assert pruned == sql_plain and set(default_plain) <= set(pruned) and len(pruned) == count, where


_GENERATED = {}


def generated(factory):
    if "folder" not in _GENERATED:
        _GENERATED["folder"] = factory.mktemp("generated")
        write_dataset(_GENERATED["folder"], files=4)
    return _GENERATED["folder"]


def test_a_file_the_index_skips_is_never_read(spark, tmp_path):
    """Break the data file every index skips: the pruned scan and the data source still answer."""
    source = TABLES / "parquet" / "append_with_bitmap_alter_table.db" / "append_with_bitmap_alter_table"
    copy = tmp_path / "t"
    shutil.copytree(source, copy)
    where = "f1 = 30"  # only the newer file has it
    inputs = resolve_inputs([str(copy)])
    predicate = parse_predicate(where, inputs.table.schema.types())
    skipped = [t for t in inputs.tasks if evaluate_file(t, predicate).result is SKIP]
    assert len(skipped) == 1
    with open(skipped[0].path, "wb") as broken:
        broken.write(b"not a parquet file at all")
    expected = [("Alice", 30), ("David", 30)]
    for frame in (pruned_scan(spark, str(copy), where).frame, read_table(spark, str(copy), where)):
        assert sorted((r.f4, r.f1) for r in frame.collect()) == sorted(expected)


def test_the_data_source_prunes_by_its_where_option_whatever_the_pushdown_flag(spark):
    table = root("parquet", "append_with_bitmap_alter_table")
    answers = []
    for flag in ("true", "false", "true"):
        spark.conf.set("spark.sql.python.filterPushdown.enabled", flag)
        answers.append((sorted_rows(read_table(spark, table, "f4 = 'Alice'")),
                        spark.read.format(FORMAT).option("where", "f4 = 'Alice'").load(table).count(),
                        spark.read.format(FORMAT).load(table).count()))
    assert answers[0] == answers[1] == answers[2] and len(answers[0][0]) == 3 and answers[0][1:] == (3, 12)
    assert spark.read.format(FORMAT).option("snapshot", "1").load(table).count() == 8


def test_read_table_of_a_folder_that_is_no_table_says_so(spark, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"id": [1, 2]}), tmp_path / "data.parquet")  # data files, but no table
    with pytest.raises(UsageError, match="not a Paimon table"):
        read_table(spark, str(tmp_path), "id = 1")


def test_scan_refuses_a_primary_key_table_whose_merge_is_not_implemented(spark, tmp_path, capsys):
    source = TABLES / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"
    shutil.copytree(source, tmp_path / "t")
    schema = tmp_path / "t" / "schema" / "schema-0"
    schema.write_text(schema.read_text().replace('"deletion-vectors.enabled" : "true"', '"merge-engine" : "x"'))
    assert main(["spark", "scan", str(tmp_path / "t"), "--where", "f1 = 20"]) == 2
    assert "merge-engine=x: not a merge engine" in capsys.readouterr().err
    with pytest.raises(Exception, match="merge-engine=x"):
        spark.read.format(FORMAT).load(str(tmp_path / "t")).collect()
    assert main(["spark", "verify", str(tmp_path / "t")]) == 0


def test_scan_command_json_and_output(spark, tmp_path, capsys):
    folder = tmp_path / "d"
    write_dataset(folder, files=3)
    code = main(["spark", "scan", str(folder), "--where", "category = 'c' AND amount > 0", "--compare", "--json",
                 "--output", str(tmp_path / "out")])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["identical"] is True
    assert {"files_total", "files_read", "rows_total", "rows_read", "result_rows", "plain_seconds",
            "pruned_seconds"} <= set(report)
    assert spark.read.parquet(str(tmp_path / "out")).count() == report["result_rows"] > 0
    code = main(["spark", "scan", root("parquet", "append_with_bitmap"), "--where", "f0 = 'Alice'",
                 "--source", "datasource", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["result_rows"] == 2 and report["rows_read"] == 2


def test_scan_command_names_the_files_whose_index_it_could_not_use(spark, tmp_path, capsys):
    """Stale sidecars are read whole: the text names a few of them and why, --json lists every one."""
    import os

    paths = write_dataset(tmp_path / "d", files=5)
    for path in paths:
        older = os.stat(path).st_mtime_ns - 10**9
        os.utime(f"{path}.index", ns=(older, older))
    command = ["spark", "scan", str(tmp_path / "d"), "--where", "category = 'c'"]
    assert main(command) == 0
    out = capsys.readouterr().out
    assert "5 with an index problem" in out and "and 2 more (--json lists every one)" in out, out
    named = [line for line in out.splitlines() if "is older than its data file" in line]
    assert len(named) == 3 and all(line.lstrip().startswith(str(tmp_path / "d" / "part-")) for line in named), out
    assert main([*command, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["index_problem_files"]
    assert sorted(p["file"] for p in listed) == sorted(map(str, paths))
    assert all("older than its data file" in p["note"] for p in listed)


def test_the_main_job_runs_on_a_small_dataset(spark, capsys):
    assert main(["demo", "--files", "4", "--rows", "3000"]) == 0
    captured = capsys.readouterr()
    assert captured.out.count("identical") == 4 and "0 violations" in captured.out
    assert "-> 1 row in " in captured.out  # the one id
    # the demo narrates its steps; job progress summed over its build, verify and scans would overstate them
    assert "fileindex demo:" not in captured.err


@pytest.mark.parametrize("files, rows", [(32, 100_000), (3, 7), (1, 5)])
def test_the_demo_ids_are_one_permutation_and_every_file_spans_it(files, rows):
    from fileindex.spark.demo import DatasetSpec

    spec = DatasetSpec(files=files, rows_per_file=rows)
    per_file = [spec.ids(number) for number in range(files)]
    assert sorted(int(i) for ids in per_file for i in ids) == list(range(spec.rows))
    if rows > 1000:
        assert all(ids.min() < spec.rows // 100 and ids.max() > spec.rows - spec.rows // 100 for ids in per_file)


def test_a_data_file_spark_cannot_read_is_one_line_not_a_traceback(spark, tmp_path, capsys):
    # more files than a scan reads in the driver, so a Spark job reads them
    write_dataset(tmp_path, files=READ_ON_DRIVER_FILES)
    # no index, so it must be read; it sorts last, so only a task on an executor opens it
    (tmp_path / "zz-broken.parquet").write_bytes(b"PAR1 not parquet PAR1")
    assert main(["spark", "scan", str(tmp_path), "--where", "category = 'a'"]) == 3
    err = "".join(line for line in capsys.readouterr().err.splitlines(keepends=True)
                  if not re.match(r"fileindex spark scan: \d+/\d+ files", line))  # progress lines
    assert "a Spark job failed" in err and "zz-broken.parquet" in err and err.count("\n") == 1


def test_a_small_read_keeps_the_rows_after_a_file_that_yields_none(spark, tmp_path):
    """PySpark 4.3 drops what follows an empty chunk of an Arrow table it is given (found by the usage suite)."""
    for number, values in enumerate(([0.0, 1.0, -0.0], [None], [0.0])):
        pq.write_table(pa.table({"d": pa.array(values, pa.float64())}), tmp_path / f"part-{number}.parquet")
    frame = pruned_scan(spark, str(tmp_path), "d = 0.0", read="driver").frame
    assert sorted(r.d for r in frame.collect()) == [-0.0, 0.0, 0.0] and frame.count() == 3


def test_a_small_read_is_done_in_the_driver_and_a_bad_file_is_one_line_there_too(spark, tmp_path, capsys):
    write_dataset(tmp_path, files=1)
    where = "category = 'a'"
    local, job = (pruned_scan(spark, str(tmp_path), where, read=read).frame for read in ("auto", "spark"))
    assert sorted_rows(local) == sorted_rows(job) == sorted_rows(plain_scan(spark, str(tmp_path), where))
    assert "LocalTableScan" in local._jdf.queryExecution().executedPlan().toString()
    assert "LocalTableScan" not in job._jdf.queryExecution().executedPlan().toString()
    (tmp_path / "zz-broken.parquet").write_bytes(b"PAR1 not parquet PAR1")
    assert main(["spark", "scan", str(tmp_path), "--where", where]) == 3
    err = capsys.readouterr().err
    assert "zz-broken.parquet: not a readable parquet file" in err and err.count("\n") == 1


@pytest.mark.parametrize("where, select", [("category = 'a' AND amount > 0", ["id", "day"]),
                                           ("m['k'] = 3", ["m", "category"]), ("id < 50", ["id"])])
def test_a_selection_equals_the_plain_scans_select(spark, tmp_path_factory, where, select):
    folder = str(generated(tmp_path_factory))
    for read in ("driver", "spark"):
        frame = pruned_scan(spark, folder, where, columns=select, read=read).frame
        assert frame.columns == select
        assert sorted_rows(frame) == sorted_rows(plain_scan(spark, folder, where, columns=select)), (where, read)
        assert sorted_rows(frame) == sorted_rows(plain_scan(spark, folder, where).select(*select))
    table = root("parquet", "append_with_bitmap_alter_table")
    frame = pruned_scan(spark, table, "f4 = 'Alice'", columns=["f1"]).frame
    assert frame.columns == ["f1"] and sorted_rows(frame) == sorted_rows(plain_scan(spark, table, "f4 = 'Alice'",
                                                                                   columns=["f1"]))


def test_scan_command_select(spark, tmp_path, capsys):
    folder = tmp_path / "d"
    write_dataset(folder, files=3)
    code = main(["spark", "scan", str(folder), "--where", "category = 'c'", "--select", "id, `amount`", "--compare",
                 "--json", "--output", str(tmp_path / "out")])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["identical"] is True and report["result_rows"] > 0
    assert spark.read.parquet(str(tmp_path / "out")).columns == ["id", "amount"]
    assert main(["spark", "scan", str(folder), "--where", "category = 'c'", "--select", "id,categry"]) == 2
    assert "cannot select unknown column 'categry'" in capsys.readouterr().err
    code = main(["spark", "scan", root("parquet", "append_with_bitmap"), "--where", "f0 = 'Alice'",
                 "--source", "datasource", "--select", "f1", "--compare", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["identical"] is True and report["result_rows"] == 2


@pytest.mark.parametrize("where", ["m['k'] = 100", "id = 3"])
def test_a_driver_read_that_filters_every_row_out_is_an_empty_frame(spark, tmp_path, where):
    """Filtering a table to no row leaves its columns without a chunk, which PySpark cannot convert (found by
    test_spark_usage's hypothesis run: a map column whose only row is null)."""
    pq.write_table(pa.table({"id": pa.array([1], pa.int64()),
                             "m": pa.array([None], pa.map_(pa.string(), pa.int32()))}), tmp_path / "f.parquet")
    scan = pruned_scan(spark, str(tmp_path / "f.parquet"), where, read="driver")
    assert scan.frame.count() == 0 and scan.frame.columns == ["id", "m"]


@pytest.mark.parametrize("mode", [[], ["--count"], ["--explain"]], ids=str)
def test_spark_scan_notes_a_comparison_with_null_as_read_does(spark, capsys, mode):
    table, where = str(TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"), "f0 IN ('Bob', NULL)"
    assert main(["read", table, "--where", where, "--count"]) == 0
    noted = capsys.readouterr().err.replace("fileindex read:", "fileindex spark scan:")
    assert noted.startswith("fileindex spark scan: f0 IN ('Bob', NULL): comparing f0 with NULL matches no row")
    assert main(["spark", "scan", table, "--where", where, *mode]) == 0
    err = capsys.readouterr().err
    assert noted in err and err.count("with NULL matches no row") == 1
