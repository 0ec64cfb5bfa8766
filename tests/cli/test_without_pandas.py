"""A process's own ``fileindex read`` (and table, query, inspect) runs without importing pandas, which pyarrow
would import on its first numpy conversion (a third of a cold read's CPU time, issue #54); the rows are the
same as in a process where pandas is imported, and a program calling ``main([...])`` is left as it was."""
import json
import subprocess
import sys

import pytest
from conftest import ROOT

from fileindex.cli import main
from fileindex.cli.without_pandas import _Unavailable

TABLES = ROOT / "tests" / "tables"
TABLE = TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"
# an ORC table (its manifests are ORC, read in a helper process) and one with nanosecond timestamps in its rows:
# both failed without pandas once, where pyarrow would have handed out pandas Timestamps
OTHERS = [TABLES / "orc" / "append_with_bitmap.db" / "append_with_bitmap",
          TABLES / "parquet" / "append_with_bsi.db" / "append_with_bsi"]
COMMAND_LINE = """
import atexit, json, runpy, sys
{before}
atexit.register(lambda: print(json.dumps("pandas" in sys.modules), file=sys.stderr))
sys.argv = ["fileindex", "read", {table!r}, *{where!r}, "--json"]
runpy.run_module("fileindex", run_name="__main__")
"""


def command_line(before: str, table=TABLE, where=("--where", "f1 >= 20")) -> tuple[list[dict], bool]:
    done = subprocess.run([sys.executable, "-c", COMMAND_LINE.format(before=before, table=str(table), where=where)],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    return [json.loads(line) for line in done.stdout.splitlines()], json.loads(done.stderr.splitlines()[-1])


def test_the_command_line_reads_without_pandas_the_same_rows():
    rows, imported = command_line("")
    assert rows and not imported
    with_pandas, imported = command_line("import pandas")
    assert imported and rows == with_pandas


@pytest.mark.parametrize("table", OTHERS, ids=lambda t: t.parent.parent.name)
def test_orc_manifests_and_nanosecond_timestamps_read_without_pandas(table):
    rows, imported = command_line("", table, where=())
    assert rows and not imported
    assert rows == command_line("import pandas", table, where=())[0]


def test_a_program_calling_main_keeps_its_imports(capsys):
    assert main(["read", str(TABLE), "--where", "f1 >= 20", "--json"]) == 0
    assert capsys.readouterr().out and not any(isinstance(f, _Unavailable) for f in sys.meta_path)
