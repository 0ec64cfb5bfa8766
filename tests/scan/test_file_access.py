"""Data files are opened once, through the table's store, as regular files that lie inside the table (or a
folder the caller allowed) where they were opened: a named pipe is an error, never a read that waits; a name
swapped for a symlink out of the table after planning is never read through the link; external paths are
read only where allowed (docs/untrusted-tables.md)."""
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hostile import fileindex, refused
from table_edits import copy_table, edit_json, externalize

from fileindex import PaimonTable
from fileindex.errors import ConfinementError, UsageError
from fileindex.io import LOCAL
from fileindex.table.errors import UnsafeNameError

TABLE = "append_with_bitmap_no_embedding"  # one data file with a sidecar index


def only_data_file(root: Path) -> Path:
    (data,) = (root / "bucket-0").glob("*.parquet")
    return data


def api(root: Path, *roots: Path) -> subprocess.CompletedProcess:
    """``PaimonTable(root).scan().to_arrow()`` in a process of its own (a read that waited would time out)."""
    code = (f"from fileindex import PaimonTable\nprint(PaimonTable({str(root)!r}, external_roots="
            f"{[str(r) for r in roots]!r}).scan().to_arrow().num_rows)")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("where", ["inside", "external"])
def test_a_data_file_that_is_a_named_pipe_is_refused_not_waited_on(tmp_path, where):
    root = copy_table("parquet", TABLE, tmp_path)
    data = only_data_file(root) if where == "inside" else externalize(root, tmp_path / "ext" / "bucket-0")
    data.unlink()
    os.mkfifo(data)
    allowed = [] if where == "inside" else ["--allow-external-paths", tmp_path / "ext"]
    refused(fileindex("read", root, "--where", "f0 = 'Alice'", *allowed), "named pipe", data.name)
    done = api(root, *([tmp_path / "ext"] if where == "external" else []))
    assert done.returncode != 0 and "named pipe" in done.stderr and "NotRegularError" in done.stderr, done.stderr


def test_a_data_file_swapped_for_a_symlink_out_of_the_table_after_planning_is_not_read_through_it(tmp_path):
    root = copy_table("parquet", TABLE, tmp_path)
    data = only_data_file(root)
    outside = tmp_path / "outside.parquet"
    rows, written = pq.read_table(data), data.read_bytes()
    pq.write_table(rows.slice(0, 1), outside)  # a Parquet file of the same columns, holding other rows
    scan = PaimonTable(root).scan()
    assert [f.read for f in scan.plan()] == ["all"]  # planned while the data file was the table's own
    data.unlink()
    data.symlink_to(outside)
    with pytest.raises(UnsafeNameError, match="leads outside the table"):
        scan.to_arrow()
    data.unlink()
    inside = root / "bucket-0" / "moved.parquet"
    inside.write_bytes(written)
    data.symlink_to(inside)  # a link that stays inside the table is followed
    assert scan.to_arrow().num_rows == rows.num_rows


def test_an_opened_file_is_read_whatever_its_name_becomes(tmp_path):
    first, second = tmp_path / "a.bin", tmp_path / "b.bin"
    first.write_bytes(b"first")
    second.write_bytes(b"second")
    with LOCAL.open_input(str(first), within=[str(tmp_path)]) as opened:
        first.unlink()
        first.symlink_to(second)  # the name now leads elsewhere; the opened file is still the first
        assert opened.read_range(0, 10) == b"first"
        with opened.native() as native:
            assert native.read() == b"first"


def test_a_symlink_leading_out_of_the_allowed_folders_is_refused_where_it_is_opened(tmp_path):
    (tmp_path / "root").mkdir()
    secret = tmp_path / "secret"
    secret.write_bytes(b"x")
    (tmp_path / "root" / "link").symlink_to(secret)
    with pytest.raises(ConfinementError, match="leads outside"):
        LOCAL.open_input(str(tmp_path / "root" / "link"), within=[str(tmp_path / "root")])
    assert LOCAL.read_bytes(str(tmp_path / "root" / "link"), limit=1) == b"x"  # unconfined: followed


def test_external_paths_are_read_only_from_the_folders_allowed(tmp_path):
    root = copy_table("parquet", TABLE, tmp_path)
    target = externalize(root, tmp_path / "ext" / "bucket-0")
    rows = pq.read_table(target).num_rows
    with pytest.raises(UsageError, match="external path.*allow its folder"):
        PaimonTable(root).scan().to_arrow()
    with pytest.raises(UsageError, match="outside the folders allowed"):
        PaimonTable(root, external_roots=[tmp_path / "elsewhere"]).scan().to_arrow()
    with pytest.raises(UsageError, match="allow its folder"):  # the table names no such folder
        PaimonTable(root, external_roots=["declared"]).scan().to_arrow()
    scan = PaimonTable(root, external_roots=[tmp_path / "ext"]).scan()
    assert scan.to_arrow().num_rows == rows
    assert [f["external"] for f in scan.explain().as_dict()["files"]] == [True]
    verdicts = list(PaimonTable(root).plan("f0 = 'Alice'"))  # planning alone: kept whole, saying why
    assert verdicts[0].result.kind == "REMAIN" and "external path" in verdicts[0].note
    edit_json(root / "schema" / "schema-0", lambda schema: schema["options"].__setitem__(
        "data-file.external-paths", f"file:{tmp_path / 'ext'}"))
    assert PaimonTable(root, external_roots=["declared"]).scan().to_arrow().num_rows == rows
