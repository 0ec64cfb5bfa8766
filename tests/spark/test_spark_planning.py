"""The data source's planning: embedded indexes, sidecars left to the tasks (evaluated while planning
for a table with few), and a report of what it pruned; ``spark scan`` saying whether the index was
used, and ``--compare`` timing both sides warm."""
import json
import pickle
import shutil

import pytest
from conftest import ROOT

from fileindex.cli import main
from fileindex.container.file import FileIndexContainer
from fileindex.errors import FileIndexError, UsageError
from fileindex.spark.compare import speedup_text
from fileindex.spark import read_table
from fileindex.spark import datasource
from fileindex.spark.datasource import FORMAT, PaimonFileIndexSource

TABLES = ROOT / "tests" / "tables" / "parquet"
EMBEDDED = TABLES / "append_with_bitmap_alter_table.db" / "append_with_bitmap_alter_table"  # two files
SIDECARS = TABLES / "append_with_bitmap_no_embedding.db" / "append_with_bitmap_no_embedding"


def planned(table, where, report=None):
    """Plan the source in this process (as Spark's planning worker does): its partitions."""
    options = {"path": str(table), "where": where, **({"report": str(report)} if report else {})}
    source = PaimonFileIndexSource(options)
    return source.reader(source.schema()).partitions()


def files_in(partitions):
    return sorted(item.file for partition in partitions for item in partition.value)


def test_planning_evaluates_embedded_indexes_and_reports_what_they_pruned(tmp_path):
    report = tmp_path / "report.json"
    partitions = planned(EMBEDDED, "f1 = 30", report)  # only the newer file holds 30 (Alice and David)
    figures = json.loads(report.read_text())
    assert figures["files_total"] == 2 and figures["files_skipped"] == 1 and figures["files_read"] == 1
    assert len(files_in(partitions)) == 1 and figures["tasks"] == len(partitions) == 1
    assert figures["rows_total"] == 12 and figures["rows_read"] == 2 and figures["rows_skipped"] == 10
    assert figures["files_sidecar_in_tasks"] == 0 and figures["where"] == "f1 = 30"
    assert 0 < figures["index_seconds"] <= figures["planning_seconds"]


def test_planning_never_opens_a_sidecar_of_a_table_with_many(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("planning opened a sidecar")

    monkeypatch.setattr(FileIndexContainer, "open", refuse)
    monkeypatch.setattr(datasource, "SIDECARS_PLANNED", 0)  # the table's one sidecar is more than that
    report = tmp_path / "report.json"
    partitions = planned(SIDECARS, "f0 = 'Alice'", report)
    figures = json.loads(report.read_text())
    assert figures["files_sidecar_in_tasks"] == figures["files_total"] == figures["files_read"] == 1
    assert figures["files_skipped"] == 0 and len(files_in(partitions)) == 1
    assert all(item.verdict is None for partition in partitions for item in partition.value)


def test_planning_evaluates_the_sidecars_of_a_table_with_few(tmp_path):
    report = tmp_path / "report.json"
    assert files_in(planned(SIDECARS, "f0 = 'Nobody'", report)) == []
    figures = json.loads(report.read_text())
    assert figures["files_sidecar_in_planning"] == figures["files_skipped"] == figures["files_total"] == 1
    assert figures["files_sidecar_in_tasks"] == figures["files_read"] == 0 and figures["tasks"] == 1
    partitions = planned(SIDECARS, "f0 = 'Alice'", report)
    assert [item.verdict.index for partition in partitions for item in partition.value] == ["sidecar"]
    assert json.loads(report.read_text())["files_sidecar_in_planning"] == 1


def test_the_tasks_evaluate_sidecars_and_skip_what_they_rule_out(spark, tmp_path, monkeypatch):
    """Break the data file the sidecar skips: neither planning nor a task reads it, so the read still
    answers; a task that must read it fails."""
    copy = tmp_path / "t"
    shutil.copytree(SIDECARS, copy)
    assert len(read_table(spark, str(copy), "f0 = 'Alice'").collect()) == 2
    source = PaimonFileIndexSource({"path": str(copy), "where": "f0 = 'Nobody'"})
    reader = source.reader(source.schema())
    (item,) = reader.plan()[0]
    task = item.task
    assert task.table.verdict(task.table_entry(), reader.predicate).result.kind == "SKIP"
    with open(task.path, "wb") as broken:
        broken.write(b"not a parquet file")
    assert read_table(spark, str(copy), "f0 = 'Nobody'", report=str(tmp_path / "r.json")).collect() == []
    assert json.loads((tmp_path / "r.json").read_text())["files_sidecar_in_planning"] == 1
    with pytest.raises(Exception, match="not a readable parquet file"):  # a task that must read it does
        read_table(spark, str(copy), "f0 = 'Alice'").collect()
    monkeypatch.setattr(datasource, "SIDECARS_PLANNED", 0)  # as for a table with many: the task evaluates it
    (partition,) = reader.partitions()
    assert [item.verdict for item in partition.value] == [None]
    assert list(pickle.loads(pickle.dumps(reader)).read(partition)) == []  # as Spark hands it to the task


def test_the_tasks_are_not_sent_the_file_list(tmp_path):
    source = PaimonFileIndexSource({"path": str(EMBEDDED), "where": "f1 = 30"})
    reader = source.reader(source.schema())
    (partition,) = reader.partitions()
    sent = pickle.loads(pickle.dumps(reader))
    assert len(reader.files) == 2 and sent.files == [] and sent.table is None
    assert sorted(sent.read(partition).__next__().column("f1").to_pylist()) == [30, 30]


def test_read_table_gives_spark_the_schema_the_source_states(spark):
    """The schema read_table passes (so that Spark does not ask the source) is the table's current one,
    after its columns were altered."""
    latest, first = ({"path": str(EMBEDDED)} | snapshot for snapshot in ({}, {"snapshot": "1"}))
    stated = {None: PaimonFileIndexSource(latest).schema(), 1: PaimonFileIndexSource(first).schema()}
    assert stated[None] != stated[1]  # columns renamed, dropped, added and widened after snapshot 1
    for snapshot, schema in stated.items():
        frame = read_table(spark, EMBEDDED, snapshot=snapshot)
        assert frame.schema == schema and frame.count() == (12 if snapshot is None else frame.count())
    frame = read_table(spark, EMBEDDED, "f1 = 30")
    assert frame.schema == stated[None] and frame.count() == 2


def test_a_report_that_cannot_be_written_says_what_to_fix(tmp_path):
    with pytest.raises(UsageError, match="option report=.*cannot write"):
        planned(EMBEDDED, "f1 = 30", tmp_path / "no-such-folder" / "report.json")


@pytest.mark.parametrize("case", ["no table", "folder, no table", "no snapshot", "snapshot text", "snapshot float",
                                  "report number", "report folder", "report is a folder", "primary key",
                                  "data evolution"])
def test_read_table_refuses_bad_arguments_in_one_line_before_spark_plans(spark, tmp_path, case):
    """Raised inside Spark, these would reach the user as an AnalysisException around a Python traceback."""
    primary_key = tmp_path / "pk"
    shutil.copytree(TABLES / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv", primary_key)
    schema = primary_key / "schema" / "schema-0"
    schema.write_text(schema.read_text().replace('"deletion-vectors.enabled" : "true"', '"merge-engine" : "nosuch"'))
    table, kwargs, message = {
        "no table": (tmp_path / "nowhere", {}, "nowhere: does not exist"),
        "folder, no table": (tmp_path, {}, "not a Paimon table"),
        "no snapshot": (EMBEDDED, {"snapshot": 99}, "no snapshot 99"),
        "snapshot text": (EMBEDDED, {"snapshot": "abc"}, r"snapshot 'abc': give a snapshot id \(a whole number\)"),
        "snapshot float": (EMBEDDED, {"snapshot": 1.0}, r"snapshot 1.0: give a snapshot id"),
        "report number": (EMBEDDED, {"report": 123}, "report=123: give the path of a file"),
        "report folder": (EMBEDDED, {"report": str(tmp_path / "missing" / "r.json")}, "no folder"),
        "report is a folder": (EMBEDDED, {"report": str(tmp_path)}, "it is a folder"),
        "primary key": (primary_key, {}, "merge-engine=nosuch: not a merge engine this reader implements"),
        "data evolution": (TABLES / "data_evolution_with_index.db" / "data_evolution_with_index", {},
                           "data-evolution table"),
    }[case]
    with pytest.raises(FileIndexError, match=message) as raised:
        read_table(spark, table, "f1 = 30" if table == EMBEDDED else None, **kwargs)  # a Path is a table too
    assert "\n" not in str(raised.value) and "Traceback" not in str(raised.value)


@pytest.mark.parametrize("inside", ["snapshot/LATEST", "snapshot/snapshot-1", "report.json", "."])
def test_a_report_is_never_written_into_the_table(spark, tmp_path, inside):
    table = tmp_path / "t"
    shutil.copytree(EMBEDDED, table)
    before = {p: p.read_bytes() for p in table.rglob("*") if p.is_file()}
    report = str(table / inside)
    with pytest.raises(UsageError, match="option report=.* the table .*whose files it could replace"):
        read_table(spark, table, "f1 = 30", report=report)
    with pytest.raises(UsageError, match="whose files it could replace"):  # the option itself, as Spark plans it
        planned(table, "f1 = 30", report)
    assert {p: p.read_bytes() for p in table.rglob("*") if p.is_file()} == before


def test_the_report_option_through_spark(spark, tmp_path):
    report = tmp_path / "report.json"
    frame = spark.read.format(FORMAT).option("where", "f1 = 30").option("report", str(report)).load(str(EMBEDDED))
    assert frame.count() == 2
    assert json.loads(report.read_text())["files_skipped"] == 1


def test_spark_scan_says_whether_the_index_was_used_and_compares_warm(spark, capsys):
    for source in ("jobs", "datasource"):
        code = main(["spark", "scan", str(EMBEDDED), "--where", "f1 = 30", "--compare", "--source", source])
        out = capsys.readouterr().out
        assert code == 0, out
        assert "index used: pruned 1 of 2 files" in out and "planning took" in out
        assert "(both warm); results identical" in out
        assert ("x faster" in out) != ("x slower" in out)


def test_speedup_text_says_slower_when_the_pruned_scan_is_slower():
    assert speedup_text(4.04) == "4.0x faster"
    assert speedup_text(0.5) == "2.0x slower"


@pytest.mark.parametrize("option, value, message", [
    ("where", "nope = 1", "fileindex.errors.UsageError: unknown column 'nope'"),
    ("snapshot", "99", "fileindex.errors.UsageError: .*: no snapshot 99 \\(it has snapshot"),
])
def test_the_data_sources_refusal_reaches_the_user_as_its_message_without_a_traceback(spark, option, value, message):
    """The sessions spark_session() starts hide a Python worker's traceback (Spark's hideTraceback setting): the
    data source's own refusal is the few lines of Spark's AnalysisException around its message."""
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException, match=message) as raised:
        spark.read.format(FORMAT).option(option, value).load(str(EMBEDDED)).collect()
    assert "Traceback" not in str(raised.value) and len(str(raised.value).splitlines()) <= 4
