"""The Spark commands and the data source refuse a table whose metadata names a file by a path, as
``fileindex table`` and ``rewrite`` do (tests/table/test_table_paths.py): one line naming the manifest and
the field, nothing read outside the table, nothing written."""
from __future__ import annotations

import shutil

import pytest
from table_edits import copy_table, data_manifests, edit_rows

from fileindex.cli.app import main

FORMAT = "paimon-fileindex"


@pytest.fixture(params=["parquet", "orc"], ids=["avro-manifests", "orc-manifests"])
def hostile(request, tmp_path):
    """(a table whose first data file is named '../../outside/evil.parquet', the manifest, the outside folder)."""
    root = copy_table(request.param, "append_with_bitmap_no_embedding", tmp_path / "t")
    outside = tmp_path / "outside"
    outside.mkdir()
    for path in (root / "bucket-0").iterdir():
        shutil.copy(path, outside / ("evil.parquet" + (".index" if path.name.endswith(".index") else "")))
    manifest = data_manifests(root)[0]
    edit_rows(manifest, lambda rows: rows[0]["_FILE"].__setitem__("_FILE_NAME", "../../outside/evil.parquet"))
    return root, manifest.name, outside


def _state(folder):
    return sorted((p.name, p.stat().st_mtime_ns) for p in folder.iterdir())


@pytest.mark.parametrize("command", [["scan", "--where", "f0 = 'Alice'"], ["verify"],
                                     ["build", "--option", "file-index.bloom-filter.columns=f0"]])
def test_spark_commands_refuse_a_traversal(spark, hostile, capsys, tmp_path, command):
    root, manifest, outside = hostile
    before = _state(outside)
    argv = ["spark", command[0], str(root), *command[1:]]
    if command[0] == "build":
        argv += ["--output-dir", str(tmp_path / "indexes")]
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert manifest in err and "_FILE_NAME '../../outside/evil.parquet' holds a path separator" in err, err
    assert "Traceback" not in err and _state(outside) == before
    assert not (tmp_path / "indexes").exists()


def test_the_data_source_refuses_a_traversal(spark, hostile):
    root, manifest, outside = hostile
    before = _state(outside)
    with pytest.raises(Exception, match=r"_FILE_NAME '\.\./\.\./outside/evil\.parquet' holds a path separator") \
            as raised:
        spark.read.format(FORMAT).load(str(root)).where("f0 = 'Alice'").count()
    assert manifest in str(raised.value)
    assert _state(outside) == before
