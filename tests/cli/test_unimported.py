"""A process's own command line (``fileindex read``, table, query, inspect) runs with pandas unavailable and
pyarrow imported without numpy (issue #54: together about half a cold read's CPU time): a read whose rows Arrow's
kernels filter imports no numpy at all, whichever index (bloom filter, bitmap V1 and V2, bsi) selects them;
every command prints the same bytes as a program calling ``main([...])``,
where pyarrow has numpy (and pandas, imported here first); and such a program is left as it was."""
import json
import subprocess
import sys

import pandas  # noqa: F401  (the in-process runs below: pyarrow with numpy and pandas, as a program has them)
import pytest
from conftest import ROOT

from fileindex.cli import main
from fileindex.cli.unimported import COMMANDS, _Unavailable

TABLES = ROOT / "tests" / "tables"


def table(kind: str, name: str) -> str:
    return str(TABLES / kind / f"{name}.db" / name)


BITMAP = table("parquet", "append_with_bitmap")
BLOOM = table("parquet", "append_with_bloomfilter")
INDEX_FILE = str(ROOT / "fileindex" / "samples" / "str_mixed__bitmap_v2.index")

PROCESS = """
import atexit, json, runpy, sys
atexit.register(lambda: print(json.dumps(sorted({"numpy", "pandas"} & set(sys.modules))), file=sys.stderr))
sys.argv = ["fileindex", *json.loads(sys.argv[1])]
runpy.run_module("fileindex", run_name="__main__")
"""


def own_process(args: list[str]) -> tuple[str, list[str]]:
    """(what ``fileindex ARGS`` prints, which of numpy and pandas it imported), in a process of its own."""
    done = subprocess.run([sys.executable, "-c", PROCESS, json.dumps(args)], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout, json.loads(done.stderr.splitlines()[-1])


def in_process(args: list[str], capsys) -> str:
    assert main(args) == 0
    return capsys.readouterr().out


# reads whose rows Arrow's kernels filter, from whole files (a bloom filter keeps a file, or no index) or pages
WITHOUT_NUMPY = {
    "bloom filter, one value": ["read", BLOOM, "--where", "f1 = 200", "--json"],
    "bloom filter, IN": ["read", BLOOM, "--where", "f0 IN ('Alice', 'Emily')", "--json"],
    "no index": ["read", BITMAP, "--where", "f1 >= 20", "--json"],
    "every row": ["read", BITMAP],
    "count": ["read", BLOOM, "--where", "f2 < 0", "--count"],
}


@pytest.mark.parametrize("args", list(WITHOUT_NUMPY.values()), ids=list(WITHOUT_NUMPY))
def test_a_read_filtered_by_arrow_imports_no_numpy(args, capsys):
    printed, imported = own_process(args)
    assert imported == []
    assert printed and printed == in_process(args, capsys)


# every command of COMMANDS, on each format, index type and table kind: the same output, never pandas, and numpy
# only where the path computes with it (COMPUTES_WITH_NUMPY): an index's rows are read through buffers
EVERY_COMMAND = {
    "bitmap": ["read", BITMAP, "--where", "f0 = 'Alice'", "--json"],
    "bitmap V1, ORC": ["read", table("orc", "append_with_bitmap_v1"), "--where", "f0 = 'Alice' OR f1 > 100"],
    "bitmap, INT keys": ["read", BITMAP, "--where", "f1 = 20", "--json"],
    "timestamps, ORC": ["read", table("orc", "timestamp_index"), "--where", "ts_micro >= TIMESTAMP "
                        "'2025-04-25 01:01:42.001001' AND ts_tz_milli < TIMESTAMP '2025-04-25 02:00:00'", "--json"],
    "bitmap V1, INT keys, ORC": ["read", table("orc", "append_with_bitmap_v1"), "--where", "f1 IN (20, 30)"],
    "bsi, nanosecond timestamps": ["read", table("parquet", "append_with_bsi"), "--where", "f2 > 0", "--json"],
    "three index types, ORC": ["read", table("orc", "append_with_bsi_bitmap_bloomfilter"), "--where",
                               "f1 BETWEEN 100 AND 400 AND f0 <> 'Bob'", "--json"],
    "primary keys, deletion vectors": ["read", table("parquet", "pk_with_bitmap_dv"), "--where", "f1 > 0", "--json"],
    "primary keys, ORC": ["read", table("orc", "pk_with_bitmap_dv"), "--json"],
    "top-N": ["read", table("parquet", "append_with_bsi"), "--order-by", "f1 DESC", "--limit", "2", "--json"],
    "ordered, all rows": ["read", table("parquet", "append_with_bsi"), "--order-by", "f1 DESC", "--json"],
    "ordered, primary keys": ["read", str(TABLES / "primary-keys" / "deduplicate"), "--order-by",
                              "score DESC", "--limit", "3", "--json"],
    "select and limit": ["read", BLOOM, "--select", "f0,f3", "--where", "f3 > 12.0", "--limit", "2"],
    "explain": ["read", table("parquet", "append_with_bsi_bitmap_bloomfilter"), "--where", "f1 = 200", "--explain"],
    "count, ORC": ["read", table("orc", "append_with_bitmap"), "--where", "f0 = 'Alice'", "--count"],
    "table": ["table", BITMAP, "--where", "f0 = 'Alice'"],
    "query": ["query", INDEX_FILE, "--schema", "c STRING", "--where", "c = 'a'"],
    "inspect": ["inspect", INDEX_FILE],
}


# ranked by numpy (top-N); a DOUBLE is compared as Paimon compares (-0.0, NaN) by Arrow's kernels, on its bits
COMPUTES_WITH_NUMPY = {"top-N", "ordered, all rows", "ordered, primary keys"}


def test_the_cases_cover_every_command():
    assert {args[0] for args in [*EVERY_COMMAND.values(), *WITHOUT_NUMPY.values()]} == COMMANDS


@pytest.mark.parametrize("name", list(EVERY_COMMAND))
def test_every_command_prints_the_same_without_pyarrow_numpy(name, capsys):
    args = EVERY_COMMAND[name]
    printed, imported = own_process(args)
    assert imported == (["numpy"] if name in COMPUTES_WITH_NUMPY else [])
    assert printed and printed == in_process(args, capsys)


def test_a_program_calling_main_keeps_its_imports(capsys):
    assert main(["read", BITMAP, "--where", "f1 >= 20", "--json"]) == 0
    assert capsys.readouterr().out and not any(isinstance(f, _Unavailable) for f in sys.meta_path)


@pytest.mark.parametrize("version, without", [((26, 0, 1), True), ((18, 0, 0), True), ((17, 0, 0), False),
                                              ((16, 0, 0), False), (None, False)])
def test_numpy_is_blocked_only_for_a_pyarrow_that_imports_without_it(tmp_path, monkeypatch, version, without):
    """pyarrow 17 and before import numpy in their core (the lowest-versions job's pyarrow 16 failed every
    command line read with numpy blocked): the version file decides, pyarrow itself is not imported."""
    import importlib.util

    from fileindex.cli import unimported

    package = tmp_path / "pyarrow"
    package.mkdir()
    (package / "__init__.py").write_text("")
    if version is not None:
        (package / "_generated_version.py").write_text(f"__version_tuple__ = version_tuple = {version!r}\n")
    found = importlib.util.spec_from_file_location("pyarrow", package / "__init__.py")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: found if name == "pyarrow" else None)
    assert unimported.runs_without_numpy() is without


def test_the_installed_pyarrow_imports_without_numpy():
    """The pyarrow CI installs (constraints/ci.txt) is one the command line imports without numpy."""
    from fileindex.cli.unimported import runs_without_numpy

    assert runs_without_numpy()
