"""``file-index.read.enabled=false`` (Paimon's option, honoured by Java's append scan): a read uses no file index,
only statistics, and gives the same rows; ``table --where`` still shows what the indexes say."""
import pytest
from table_edits import copy_table

from fileindex.cli import main
from fileindex.indexes.result import SKIP, Rows
from fileindex.scan.planner import INDEX_NOT_READ
from fileindex.scan.table import PaimonTable
from fileindex.table.options_alter import alter_table

CASES = [("parquet", "append_with_bitmap", "f0 = 'Tony'"), ("orc", "append_with_bsi", "f1 = 100"),
         ("parquet", "data_evolution_with_index", "f2 = 1")]


@pytest.mark.parametrize("kind, name, where", CASES, ids=[f"{k}-{n}" for k, n, _ in CASES])
def test_a_table_that_says_false_is_read_without_its_indexes(tmp_path, kind, name, where):
    root = copy_table(kind, name, tmp_path)
    indexed = PaimonTable(root).scan(where)
    assert any(f.skipped_by == "file_index" or (f.verdict is not None and isinstance(f.verdict.result, Rows))
               for f in indexed.plan())
    alter_table(str(root), set={"file-index.read.enabled": "false"})

    unindexed = PaimonTable(root).scan(where)
    assert unindexed.to_arrow().to_pylist() == indexed.to_arrow().to_pylist()
    kept = [f for f in unindexed.plan() if f.read not in ("merged", "none")]
    assert kept and all(f.reason == f"kept: {INDEX_NOT_READ}" and f.read == "all" for f in kept)
    assert any(v.result is SKIP or isinstance(v.result, Rows) for v in PaimonTable(root).plan(where))  # (table --where)


def test_setting_it_says_no_index_is_rebuilt(tmp_path, capsys):
    root = copy_table("parquet", "append_with_bitmap", tmp_path)
    assert main(["table", str(root), "--set", "file-index.read.enabled=false"]) == 0
    assert "reads (Java's and this project's) follow it, and no index is rebuilt" in capsys.readouterr().out
