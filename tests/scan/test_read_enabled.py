"""``file-index.read.enabled=false`` (Paimon's option, honoured by Java's append scan): a read uses no file index,
only statistics, and gives the same rows; ``table --where`` still shows what the indexes say."""
import re

import pytest
from table_edits import copy_table, edit_json

from fileindex.cli import main
from fileindex.indexes.result import SKIP, Rows
from fileindex.scan.planner import INDEX_NOT_READ
from fileindex.scan.table import PaimonTable
from fileindex.table.errors import TableError
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


@pytest.mark.parametrize("value, reads_index", [("FALSE", False), ("True", True)])
def test_the_option_is_read_as_java_reads_a_boolean(tmp_path, value, reads_index):
    root = copy_table("parquet", "append_with_bitmap", tmp_path)
    alter_table(str(root), set={"file-index.read.enabled": value})
    assert PaimonTable(root).reads_file_index is reads_index


@pytest.mark.parametrize("value", ["nope", " false", ""])
def test_a_value_java_refuses_is_a_table_error_naming_it(tmp_path, capsys, value):
    """Java's Options refuses anything but true or false (in any case) where it reads the option; it used to read
    as true here (and " false" as false)."""
    root = copy_table("parquet", "append_with_bitmap", tmp_path)
    schema = root / "schema" / "schema-0"
    edit_json(schema, lambda document: document["options"].update({"file-index.read.enabled": value}))
    message = f"schema/schema-0 (schema): option file-index.read.enabled={value!r} is not a boolean"
    with pytest.raises(TableError, match=re.escape(message)):
        PaimonTable(root).scan("f0 = 'Tony'").to_arrow()
    assert main(["read", str(root), "--where", "f0 = 'Tony'"]) == 3
    assert message in capsys.readouterr().err
