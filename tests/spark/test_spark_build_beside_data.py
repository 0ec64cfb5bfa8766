"""Sidecars written beside Parquet files break spark.read.parquet of their folder: spark build says so, and
what the note proposes works (--output-dir with --index-dir, or a pathGlobFilter)."""
import json

import pytest
from generated_data import OPTIONS, write_dataset

from fileindex.cli import main
from fileindex.cli.spark.build import BESIDE_DATA_NOTE

NOTE = BESIDE_DATA_NOTE.split(": ")[1]  # "note", not the command's name, which progress lines carry too


def test_sidecars_beside_data_are_announced_and_the_ways_round_them_work(spark, tmp_path, capsys):
    data = tmp_path / "data"
    data.mkdir()
    write_dataset(data, files=2, with_indexes=False)
    options = [f"--option={k}={v}" for k, v in OPTIONS.items()]
    assert main(["spark", "build", str(data), *options, "--json", "--master", "local[2,2]"]) == 0
    err = capsys.readouterr().err
    assert "note: 2 sidecar(s) written beside their data files" in err and "--index-dir" in err
    with pytest.raises(Exception, match=r"reading file \S*\.index"):  # the note's claim: a plain read trips on them
        spark.read.parquet(str(data)).count()
    rows = spark.read.option("pathGlobFilter", "*.parquet").parquet(str(data)).count()

    elsewhere, indexes = tmp_path / "elsewhere", tmp_path / "indexes"
    elsewhere.mkdir()
    write_dataset(elsewhere, files=2, with_indexes=False)
    assert main(["spark", "build", str(elsewhere), *options, "--output-dir", str(indexes),
                 "--master", "local[2,2]"]) == 0
    assert NOTE not in capsys.readouterr().err
    assert spark.read.parquet(str(elsewhere)).count() == rows
    assert main(["spark", "verify", str(elsewhere), "--index-dir", str(indexes), "--json",
                 "--master", "local[2,2]"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["by_status"] == {"ok": 2} and summary["checks"] > 0


def test_the_note_names_spark_s_orc_reader_for_orc_files(spark, tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.orc as orc

    orc.write_table(pa.table({"id": list(range(50))}), tmp_path / "a.orc")
    assert main(["spark", "build", str(tmp_path), "--option", "file-index.bloom-filter.columns=id",
                 "--master", "local[2,2]"]) == 0
    err = capsys.readouterr().err
    assert 'spark.read.orc("folder/")' in err and '"*.orc"' in err and "parquet" not in err
    assert spark.read.option("pathGlobFilter", "*.orc").orc(str(tmp_path)).count() == 50
