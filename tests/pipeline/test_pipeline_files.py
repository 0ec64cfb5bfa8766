"""Reading candidate rows out of row groups and stripes, and writes that are all or nothing."""
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fileindex.arrow.data_files import DataFileError, DataFileReader
from fileindex.io.atomic import write_atomically

ROWS = 1000


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("files")
    table = pa.table({"x": np.arange(ROWS, dtype=np.int64), "s": [f"v{i}" for i in range(ROWS)]})
    pq.write_table(table, folder / "t.parquet", row_group_size=97)
    orc.write_table(table, folder / "t.orc", stripe_size=4096)
    return table, [folder / "t.parquet", folder / "t.orc"]


@settings(max_examples=50)
@given(rows=st.lists(st.integers(0, ROWS - 1), unique=True, max_size=60), which=st.integers(0, 1))
def test_candidate_rows_equal_a_take_of_the_whole_file(files, rows, which):
    table, paths = files
    reader = DataFileReader(paths[which])
    wanted = np.array(sorted(rows), dtype=np.int64)
    got = reader.read_rows(wanted, ["x", "s"])
    assert got.to_pylist() == table.take(pa.array(wanted, type=pa.int64())).to_pylist()
    backwards = reader.read_rows(wanted, ["s", "x"])  # columns come back by name (ORC gives them in file order)
    assert backwards.to_pydict() == got.to_pydict() and backwards.schema.field("s").type == pa.string()


def test_parquet_reads_only_the_groups_holding_candidates(files, monkeypatch):
    reader = DataFileReader(files[1][0])
    asked = []
    original = reader._read_groups
    monkeypatch.setattr(reader, "_read_groups",
                        lambda groups, columns: asked.append(groups) or original(groups, columns))
    reader.read_rows(np.array([5, 500], dtype=np.int64), ["x"])
    assert asked == [[0, 5]]  # 97 rows a group


@pytest.fixture(scope="module")
def strings_file(tmp_path_factory):
    """String, binary, map, list and struct columns, dictionary-encoded or not (``plain`` without a dictionary)."""
    path = tmp_path_factory.mktemp("strings") / "s.parquet"
    words = ["red", "green", None, "blue", "é"]
    table = pa.table({
        "s": pa.array([words[i % 5] for i in range(ROWS)], pa.string()),
        "big": pa.array([words[i % 3] for i in range(ROWS)], pa.large_string()),
        "b": pa.array([None if i % 7 == 0 else bytes([i % 4]) for i in range(ROWS)], pa.binary()),
        "m": pa.array([None if i % 11 == 0 else [("k", words[i % 5]), ("z", "v")] for i in range(ROWS)],
                      pa.map_(pa.string(), pa.string())),
        "plain": pa.array([f"unique-{i}" for i in range(ROWS)], pa.string()),
        "l": pa.array([None if i % 5 == 0 else [words[i % 5], None] for i in range(ROWS)], pa.list_(pa.string())),
        "st": pa.array([{"x": words[i % 4], "y": i} for i in range(ROWS)],
                       pa.struct([("x", pa.string()), ("y", pa.int64())])),
    })
    pq.write_table(table, path, row_group_size=100, use_dictionary=["s", "big", "b", "m.key_value.key",
                                                                     "m.key_value.value", "l.list.element", "st.x"])
    return table, path


@settings(max_examples=40)
@given(rows=st.lists(st.integers(0, ROWS - 1), unique=True, max_size=150))
def test_sparse_reads_of_strings_equal_a_take_in_the_files_types(strings_file, rows):
    table, path = strings_file
    wanted = np.array(sorted(rows), dtype=np.int64)
    got = DataFileReader(path).read_rows(wanted, table.column_names)
    assert got.schema == table.schema
    assert got.to_pylist() == table.take(pa.array(wanted, type=pa.int64())).to_pylist()


def test_group_reads_decode_only_dictionary_encoded_strings_as_dictionaries(strings_file, monkeypatch):
    table, path = strings_file
    reader = DataFileReader(path)
    opened = []  # read_dictionary of every open that reads dictionaries
    original = reader._open
    monkeypatch.setattr(reader, "_open", lambda metadata, read_dictionary=None:
                        (read_dictionary and opened.append(read_dictionary)) or original(metadata, read_dictionary))
    reader.read_rows(np.array([3, 250, 777], dtype=np.int64), ["s", "plain", "m", "b"])  # 3 rows of 300
    assert opened == [["s", "b"]]  # file order (top-level strings only: no map or list leaf)
    reader.read_rows(np.arange(0, 100, 2, dtype=np.int64), ["s"])  # half the rows of the group: read whole too
    reader.read_rows(np.arange(0, 100, 2, dtype=np.int64), ["s", "plain", "m", "b"])  # (its reader kept)
    assert opened == [["s", "b"], ["s"]]
    reader.read_rows(np.arange(0, 100, 2, dtype=np.int64), ["plain"])  # no page of it is dictionary-encoded
    assert len(opened) == 2


def test_unreadable_data_files_are_typed_errors(tmp_path):
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(DataFileError, match="bad.parquet"):
        DataFileReader(tmp_path / "bad.parquet")
    with pytest.raises(FileNotFoundError, match="missing.parquet"):
        DataFileReader(tmp_path / "missing.parquet")
    (tmp_path / "x.csv").write_text("a,b\n1,2\n")
    with pytest.raises(DataFileError, match="not a Parquet or ORC"):
        DataFileReader(tmp_path / "x.csv")


def test_a_writer_failing_before_the_rename_leaves_nothing(tmp_path):
    target = tmp_path / "d.parquet.index"

    def fail(path):
        assert path.exists() and not target.exists() or target.read_bytes() == b"old"
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError):
        write_atomically(target, b"complete", before_rename=fail)
    assert list(tmp_path.iterdir()) == []
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError):
        write_atomically(target, b"new", before_rename=fail)
    assert target.read_bytes() == b"old" and len(list(tmp_path.iterdir())) == 1


def test_existing_files_are_kept_unless_overwritten(tmp_path):
    target = tmp_path / "f"
    assert write_atomically(target, b"one", overwrite=False)
    assert not write_atomically(target, b"two", overwrite=False)
    assert target.read_bytes() == b"one"
    assert write_atomically(target, b"three")
    assert target.read_bytes() == b"three" and [p.name for p in tmp_path.iterdir()] == ["f"]


def test_a_killed_writer_never_leaves_a_partial_file(tmp_path):
    """SIGKILL with the bytes written but not yet renamed: the final name does not exist."""
    target = tmp_path / "big.index"
    script = (f"from fileindex.io.atomic import write_atomically; import time\n"
              f"write_atomically({str(target)!r}, b'x' * (64 << 20), before_rename=lambda p: time.sleep(60))")
    process = subprocess.Popen([sys.executable, "-c", script])
    for _ in range(600):
        if any(p.name.endswith(".tmp") and p.stat().st_size == 64 << 20 for p in tmp_path.iterdir()):
            break
        process.poll()
        assert process.returncode is None
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert not target.exists()
