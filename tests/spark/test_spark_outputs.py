"""With --overwrite, an existing output is replaced whole by a complete new one (the refusals, which
need no Spark, are in tests/cli/test_outputs_refused.py)."""
import json
import shutil

import pytest
from conftest import ROOT
from generated_data import write_dataset

from fileindex.cli import main
from fileindex.errors import UsageError
from fileindex.spark import build_indexes
from fileindex.writing.outputs import OUTPUT_MARK, mark_written

PK_TABLE = ROOT / "tests" / "tables" / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"


def earlier_output(folder, writer: str):
    folder.mkdir()
    (folder / "earlier.txt").write_text("an earlier run's file")
    mark_written(folder, writer)  # as every run marks what it writes
    return folder


def test_scan_output_and_verify_report_replace_an_existing_folder_when_asked(spark, tmp_path, capsys):
    data = tmp_path / "data"
    write_dataset(data, files=3)
    inputs = {p: p.read_bytes() for p in data.iterdir()}
    out = earlier_output(tmp_path / "out", "spark scan --output")
    report = earlier_output(tmp_path / "report", "spark verify --report")

    assert main(["spark", "scan", str(data), "--where", "category = 'c'", "--output", str(out), "--overwrite",
                 "--json"]) == 0
    result_rows = json.loads(capsys.readouterr().out)["result_rows"]
    assert not (out / "earlier.txt").exists() and spark.read.parquet(str(out)).count() == result_rows > 0

    assert main(["spark", "verify", str(data), "--report", str(report), "--overwrite"]) == 0
    assert sorted(p.name for p in report.iterdir()) == [OUTPUT_MARK, "report.html", "report.json"]
    assert (report / OUTPUT_MARK).read_text().startswith("written by fileindex spark verify --report; ")
    assert (out / OUTPUT_MARK).read_text().startswith("written by fileindex spark scan --output; ")
    assert json.loads((report / "report.json").read_text())["files"] == 3

    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "out", "report"]  # no temporary left
    assert {p: p.read_bytes() for p in data.iterdir()} == inputs


def test_build_indexes_refuses_to_replace_a_table_index_but_writes_beside_it(spark, tmp_path):
    table = tmp_path / "table"
    shutil.copytree(PK_TABLE, table)
    before = {p: p.read_bytes() for p in table.rglob("*.index")}
    with pytest.raises(UsageError, match="snapshot/snapshot-1 of its table names"):
        build_indexes(spark, str(table), {}, overwrite=True)
    rows = [r.asDict() for r in build_indexes(spark, str(table), {}, output_dir=str(tmp_path / "idx"),
                                              overwrite=True).collect()]
    assert [r["status"] for r in rows] == ["written"]
    assert {p: p.read_bytes() for p in table.rglob("*.index")} == before


def test_the_demo_fills_its_workdir_when_it_completes(spark, tmp_path, capsys):
    work = earlier_output(tmp_path / "work", "demo --workdir")
    assert main(["demo", "--files", "3", "--rows", "1000", "--workdir", str(work), "--overwrite", "--json"]) == 0
    names = sorted(p.name for p in work.iterdir())
    assert "earlier.txt" not in names and names.count("orders-0000.parquet.index") == 1
    assert len([n for n in names if n.endswith(".parquet")]) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["work"]
    assert (work / OUTPUT_MARK).read_text().startswith("written by fileindex demo --workdir; ")
