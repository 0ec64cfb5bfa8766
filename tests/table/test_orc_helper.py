"""ORC metadata is read in a helper process started as its own program: a reader crash is one
TableError, the next read works, and a user's script without a ``__main__`` guard runs once."""
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

from fileindex.table import orc_helper
from fileindex.table.store import TableStore
from fileindex.table.metadata import TableError, read_rows

TABLE = ROOT / "tests" / "tables" / "orc" / "append_with_bitmap.db" / "append_with_bitmap"
MANIFEST_LIST = TABLE / "manifest" / "manifest-list-c493f44b-b95e-4779-9cfc-48bd9b2e5dbb-0"  # empty (the base list)
DELTA_LIST = MANIFEST_LIST.with_name(MANIFEST_LIST.name[:-1] + "1")  # one manifest
UNGUARDED_SCRIPT = """\
import os
from fileindex import PaimonTable

with open(os.environ["RUNS_LOG"], "a") as log:
    log.write("top level ran\\n")
table = PaimonTable({table!r})
print("ANSWER", [sorted(v.result.bitmap) for v in table.plan("f1 = 20")])
"""


CRASHING_READER = """\
import os, signal
import pyarrow.orc

class CrashingORCFile(pyarrow.orc.ORCFile):  # a reader that dies of a signal on one file, as ORC's C++ reader
    def __init__(self, source, *args, **kwargs):   # does on some corrupt files (which ones depends on pyarrow's
        if source.read_at(8, source.size() - 8) == b"crash-me":  # version: 22 crashed on a bit flip 26 reports)
            os.kill(os.getpid(), signal.SIGSEGV)
        super().__init__(source, *args, **kwargs)

pyarrow.orc.ORCFile = CrashingORCFile
"""


@pytest.fixture
def crashing_helper(tmp_path, monkeypatch):
    """The next helper loads a sitecustomize whose ORC reader crashes on files ending in crash-me."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(CRASHING_READER)
    monkeypatch.setenv("PYTHONPATH", str(site))
    if orc_helper._helper is not None:
        orc_helper._discard()
    yield tmp_path / "manifest" / "crash-me"
    if orc_helper._helper is not None:
        orc_helper._discard()  # later tests start a helper without the crashing reader


def test_a_crash_is_a_table_error_and_the_next_read_works(crashing_helper):
    intact = read_rows(TableStore(TABLE), DELTA_LIST, "manifest list")
    assert len(intact) == 1
    helper = orc_helper._helper.process
    crashing_helper.parent.mkdir()
    crashing_helper.write_bytes(MANIFEST_LIST.read_bytes() + b"crash-me")
    with pytest.raises(TableError, match=r"manifest/crash-me \(manifest list\): not a readable file: the ORC "
                                         r"reader crashed on it"):
        read_rows(TableStore(crashing_helper.parent.parent), crashing_helper, "manifest list")
    assert helper.wait(timeout=10) < 0  # the helper died of a signal; the caller did not
    assert read_rows(TableStore(TABLE), DELTA_LIST, "manifest list") == intact
    assert orc_helper._helper.process.pid != helper.pid


def test_an_error_the_reader_raises_comes_back_with_its_message(tmp_path):
    path = tmp_path / "manifest" / "cut"
    path.parent.mkdir()
    path.write_bytes(MANIFEST_LIST.read_bytes()[:40])
    read_rows(TableStore(TABLE), MANIFEST_LIST, "manifest list")
    helper = orc_helper._helper
    with pytest.raises(TableError, match=r"manifest/cut \(manifest\): cannot read: Invalid ORC postscript"):
        read_rows(TableStore(tmp_path), path, "manifest")
    assert orc_helper._helper is helper  # a raised error does not cost the helper


def test_a_forked_child_starts_its_own_helper():
    read_rows(TableStore(TABLE), DELTA_LIST, "manifest list")
    parent = orc_helper._helper.process.pid
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover (the child's outcome is reported through the pipe)
        try:
            rows = read_rows(TableStore(TABLE), DELTA_LIST, "manifest list")
            os.write(writer, f"{len(rows)} {orc_helper._helper.process.pid}".encode())
        finally:
            os._exit(0)
    os.close(writer)
    answer = os.read(reader, 100).decode().split()
    os.waitpid(child, 0)
    assert int(answer[0]) == 1 and int(answer[1]) != parent
    assert orc_helper._helper.process.pid == parent and read_rows(TableStore(TABLE), DELTA_LIST, "manifest list")


def test_a_helper_that_cannot_start_is_one_line_with_its_reason(tmp_path, monkeypatch):
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\necho 'ModuleNotFoundError: No module named fileindex' >&2\nexit 1\n")
    python.chmod(0o755)
    monkeypatch.setattr(orc_helper, "_helper", None)
    monkeypatch.setattr(sys, "executable", str(python))
    with pytest.raises(TableError, match=r"cannot read: the ORC helper process \(.*/python -m "
                                         r"fileindex.table.orc_helper\) did not start: ModuleNotFoundError"):
        read_rows(TableStore(TABLE), DELTA_LIST, "manifest list")


def run_unguarded(tmp_path, script_text: str, timeout: int = 120) -> tuple[subprocess.CompletedProcess, list]:
    table = tmp_path / "table"
    shutil.copytree(TABLE, table)
    script = tmp_path / "user_script.py"
    script.write_text(script_text.format(table=str(table)))
    log = tmp_path / "runs.log"
    env = {**os.environ, "RUNS_LOG": str(log)}
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                            timeout=timeout, cwd=tmp_path)
    return result, log.read_text().splitlines() if log.exists() else []


def test_a_script_without_a_main_guard_runs_once_and_gets_its_answer(tmp_path):
    result, runs = run_unguarded(tmp_path, UNGUARDED_SCRIPT)
    assert result.returncode == 0, result.stderr[-3000:]
    assert runs == ["top level ran"]
    assert "ANSWER [[4, 6, 7]]" in result.stdout
