"""``fileindex spark rewrite``: the same commit as the local rewrite (entries modulo names), and a failed task
attempt leaves no referenced partial file."""
import shutil

from conftest import manifest_rows, ROOT

from fileindex.cli import main
from fileindex.spark.faults import failing_first_attempts
from fileindex.spark.rewrite import spark_rewrite
from fileindex.table.metadata import live_entries, load_snapshot
from fileindex.table.options_alter import alter_table_options
from fileindex.table.orphans import orphan_files
from fileindex.table.rewrite import rewrite_file_index
from fileindex import PaimonTable
from fileindex.table.store import TableStore

SOURCE = ROOT / "tests" / "tables" / "parquet" / "append_with_bsi_bitmap_bloomfilter.db" / \
    "append_with_bsi_bitmap_bloomfilter"


def twins(tmp_path):
    roots = []
    for name in ("local", "spark"):
        root = tmp_path / name
        shutil.copytree(SOURCE, root)
        alter_table_options(root, set={"file-index.bloom-filter.columns": "f0", "file-index.bitmap.columns": "f1",
                                       "file-index.in-manifest-threshold": "200 B"},
                            reset=["file-index.bsi.columns"])
        roots.append(root)
    return roots


def committed_entries(root):
    snapshot = load_snapshot(TableStore(root))
    (meta,) = manifest_rows(root / "manifest" / snapshot.delta_manifest_list)
    rows = manifest_rows(root / "manifest" / meta["_FILE_NAME"])
    for row in rows:
        row["_FILE"].pop("_CREATION_TIME")
    return [(r["_KIND"], r["_FILE"]) for r in rows]


def test_spark_rewrite_commits_what_the_local_rewrite_commits(spark, tmp_path, capsys):
    local, on_spark = twins(tmp_path)
    assert rewrite_file_index(local).snapshot_id == 2
    assert main(["spark", "rewrite", str(on_spark), "--master", "local[2,2]"]) == 0
    assert "committed snapshot 2 (COMPACT" in capsys.readouterr().out
    assert committed_entries(local) == committed_entries(on_spark)
    for root in (local, on_spark):
        assert [str(v.result) for v in PaimonTable(root).plan("f1 = 20")] == \
            [str(v.result) for v in PaimonTable(local).plan("f1 = 20")]


def test_a_failed_task_attempt_leaves_no_referenced_partial_file(spark, tmp_path):
    _, root = twins(tmp_path)
    with failing_first_attempts(spark):
        result = spark_rewrite(spark, root)
    assert result.snapshot_id == 2 and result.changed
    live = live_entries(TableStore(root), load_snapshot(TableStore(root)))
    for entry in live:
        folder = PaimonTable(root).data_path(entry).parent
        for name in entry.extra_files:
            assert (folder / name).is_file()
    assert not [p for p in orphan_files(root) if p.name.endswith(".tmp")]  # the attempt removed its temporary
    assert {c.location for c in result.changed} == {"sidecar"}  # every task wrote, so every first attempt failed


def test_a_file_that_cannot_be_rewritten_fails_the_run_and_removes_every_sidecar_it_wrote(spark, tmp_path):
    import pytest

    from fileindex.table.metadata import TableError

    _, root = twins(tmp_path)
    victim, *_ = live_entries(TableStore(root), load_snapshot(TableStore(root)))
    PaimonTable(root).data_path(victim).write_bytes(b"not a parquet file")
    before = sorted(p for p in root.rglob("*") if p.is_file())
    with pytest.raises(TableError, match="nothing was committed"):
        spark_rewrite(spark, root)
    assert sorted(p for p in root.rglob("*") if p.is_file()) == before


def test_spark_rewrite_refuses_before_starting_spark(tmp_path, capsys, monkeypatch):
    """Runs where pyspark is installed: without it every Spark command first says to install the extra."""
    import fileindex.cli.spark.rewrite as spark_cli

    def no_session(args):
        raise AssertionError("a Spark session was started for a table the rewrite refuses")

    monkeypatch.setattr(spark_cli, "session", no_session)
    root = tmp_path / "pk"
    shutil.copytree(ROOT / "tests" / "tables" / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv", root)
    assert main(["spark", "rewrite", str(root)]) == 2
    assert "primary-key table" in capsys.readouterr().err
