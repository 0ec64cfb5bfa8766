"""``tools/pk_tables.py`` run again: Java Paimon 0.9.0 writes the primary-key tables anew and reads them as it
read the committed copies (the same rows, errors and number of planned files; file names are new), and this
project's reader (``PaimonTable.scan``) reads the new tables as Java does."""
from __future__ import annotations

import json

import pytest
from conftest import ROOT
from java_oracle import pk_tables_java

from fileindex import PaimonTable
from fileindex.errors import FileIndexError
from fileindex.kit.rows import canonical_rows

COMMITTED = json.loads((ROOT / "tests" / "tables" / "primary-keys" / "java-answers.json").read_text())


def shape(read: dict) -> dict:
    return {**{k: v for k, v in read.items() if k != "files"}, "files": len(read.get("files", []))}


@pytest.mark.java
@pytest.mark.slow
def test_the_recipe_reproduces_java_s_answers(tmp_path):
    with pk_tables_java() as (pk_tables, java):
        answers = pk_tables.record(tmp_path, java, [make() for make in pk_tables.TABLES])
    assert answers["refused_writes"] == COMMITTED["refused_writes"]
    assert answers["tables"].keys() == COMMITTED["tables"].keys()
    for name, table in answers["tables"].items():
        assert [shape(r) for r in table["reads"]] == [shape(r) for r in COMMITTED["tables"][name]["reads"]], name
        root = tmp_path / "db.db" / name
        for read in table["reads"]:
            if read["where"] is not None:
                continue
            table = PaimonTable(root, read["snapshot"])
            if "error" in read:
                with pytest.raises(FileIndexError):
                    table.scan().to_arrow()
            else:
                assert canonical_rows(table.scan().to_arrow(), table) == read["rows"], (name, read["snapshot"])
