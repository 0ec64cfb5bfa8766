"""A ready filesystem object (pyarrow's, or fsspec's through PyFileSystem) as a table's file access: the same
rows as the object-store file access, and commits refused without conditional create unless one writer is
promised."""
import pickle

import fsspec
import pyarrow.fs as pafs
import pytest
from test_object_store_tables import TABLE, read_table, upload_table

from fileindex.errors import ConfinementError, UsageError
from fileindex.io.arrow_fs import ArrowFileIO, file_io_for
from fileindex.io.locations import parse_location
from fileindex.io.object_store import ObjectStoreFileIO, arrow_filesystem
from fileindex.io.store_options import store_options


def test_a_pyarrow_filesystem_reads_the_table_on_s3_as_the_object_store_access_does(s3_store):
    table = upload_table(s3_store)
    location = parse_location(table)
    filesystem = arrow_filesystem(location, store_options(location, s3_store.options(), {}))
    given = file_io_for(table, s3_store.options(), filesystem=filesystem)
    assert isinstance(given, ArrowFileIO)
    rows, files, _ = read_table(given, table)
    expected, expected_files, _ = read_table(s3_store.file_io(), table)
    assert rows.equals(expected) and files == expected_files
    assert pickle.loads(pickle.dumps(given)).read_bytes(given.join(table, "snapshot", "LATEST"), limit=10) == b"1"


def test_an_fsspec_filesystem_is_wrapped_for_pyarrow():
    local = file_io_for(TABLE, filesystem=fsspec.filesystem("file"))
    rows, files, _ = read_table(local, str(TABLE))
    assert rows.num_rows == 8 and len(files) == 1
    assert [entry.name for entry in local.list(local.join(str(TABLE), "snapshot"))] != []


def test_commits_need_the_single_writer_promise(tmp_path):
    memory = fsspec.filesystem("memory")
    root = "s3://bucket/t"
    file_io = file_io_for(root, filesystem=memory)
    with pytest.raises(UsageError, match="no conditional create"):
        file_io.create(root + "/snapshot/snapshot-1", b"x")
    single = file_io_for(root, {"fileindex.commit.single-writer": "true"}, filesystem=memory)
    assert single.create(root + "/snapshot/snapshot-1", b"x") is True
    assert single.create(root + "/snapshot/snapshot-1", b"y") is False
    assert single.read_bytes(root + "/snapshot/snapshot-1", limit=10) == b"x"
    with pytest.raises(ConfinementError, match="another bucket"):
        single.read_bytes("s3://other/t/x", limit=10)


def test_file_io_for_picks_by_location(tmp_path):
    assert file_io_for(tmp_path) is None  # the local file access
    assert isinstance(file_io_for("s3://b/t", {"s3.region": "us-east-1"}, environ={}), ObjectStoreFileIO)
    assert isinstance(file_io_for("s3://b/t", filesystem=pafs.LocalFileSystem()), ArrowFileIO)
    with pytest.raises(UsageError, match="not a filesystem"):
        file_io_for("s3://b/t", filesystem=object())


def test_a_store_reached_is_told_to_every_reaching_around_and_a_local_path_to_none():
    """What the command line's warning of unused --storage-option pairs is told (fileindex/cli/app.py)."""
    from fileindex.io.reach import reaching, store_file_io

    with reaching({"s3.endpoint": "http://127.0.0.1:9"}) as outer:
        assert store_file_io("/tmp/a/table", None) is None and not outer.reached  # a local path: the local access
        with reaching({"s3.region": "x"}) as inner:  # (as the kit's adapter reaches its request's store)
            assert store_file_io("s3://bucket/table", {"s3.endpoint": "http://127.0.0.1:9"}) is not None
        assert inner.reached and outer.reached
