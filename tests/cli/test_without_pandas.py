"""A process's own ``fileindex read`` (and table, query, inspect) runs without importing pandas, which pyarrow
would import on its first numpy conversion (a third of a cold read's CPU time, issue #54); the rows are the
same as in a process where pandas is imported, and a program calling ``main([...])`` is left as it was."""
import json
import subprocess
import sys

from conftest import ROOT

from fileindex.cli import main
from fileindex.cli.without_pandas import _Unavailable

TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"
COMMAND_LINE = """
import atexit, json, runpy, sys
{before}
atexit.register(lambda: print(json.dumps("pandas" in sys.modules), file=sys.stderr))
sys.argv = ["fileindex", "read", {table!r}, "--where", "f1 >= 20", "--json"]
runpy.run_module("fileindex", run_name="__main__")
"""


def command_line(before: str) -> tuple[list[dict], bool]:
    done = subprocess.run([sys.executable, "-c", COMMAND_LINE.format(before=before, table=str(TABLE))],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    return [json.loads(line) for line in done.stdout.splitlines()], json.loads(done.stderr.splitlines()[-1])


def test_the_command_line_reads_without_pandas_the_same_rows():
    rows, imported = command_line("")
    assert rows and not imported
    with_pandas, imported = command_line("import pandas")
    assert imported and rows == with_pandas


def test_a_program_calling_main_keeps_its_imports(capsys):
    assert main(["read", str(TABLE), "--where", "f1 >= 20", "--json"]) == 0
    assert capsys.readouterr().out and not any(isinstance(f, _Unavailable) for f in sys.meta_path)
