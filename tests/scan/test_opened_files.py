"""What a ``PaimonTable`` keeps below its plans (``scan/opened.py``): its live files and each file's opened index,
so that a new predicate on the same table only evaluates. A warm table answers every drawn predicate as the plain
read filtered by it; a second predicate opens no index file, looks no file up and lists no manifest again; the
memo is bounded, pickled empty, off under ``FILEINDEX_MEMOS=off``, and a new table starts empty (never stale)."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys

import pytest
from drawn_predicates import SHARED_TABLES, TABLES, Subject, plain_rows, predicates, row_key
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from table_edits import copy_table

from fileindex import PaimonTable
from fileindex.container import file as container_file
from fileindex.predicate.parser import parse_predicate
from fileindex.scan.truth import matches
from fileindex.table.store import TableStore

READABLE = [p for p in SHARED_TABLES if "data_evolution" not in str(p)]
SETTINGS = settings(max_examples=6, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
SIDECARS = TABLES / "parquet" / "append_with_bsi_bitmap_bloomfilter.db" / "append_with_bsi_bitmap_bloomfilter"
WARM: dict[str, PaimonTable] = {}  # one table per path, kept warm across every drawn example


@pytest.fixture(scope="module")
def subjects() -> dict[str, Subject]:
    return {str(path): Subject(str(path), *plain_rows(path)) for path in READABLE}


def truth(subject: Subject, where: str) -> list[str]:
    rows = subject.rows.filter(matches(subject.rows, parse_predicate(where, subject.types), subject.types))
    return sorted(row_key(r) for r in rows.to_pylist())


@pytest.mark.parametrize("path", READABLE, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
@SETTINGS
@given(data=st.data())
def test_a_warm_table_counts_and_reads_each_new_predicate_as_the_plain_read(subjects, path, data):
    subject = subjects[str(path)]
    table = WARM.setdefault(str(path), PaimonTable(path))
    for _ in range(3):
        where = data.draw(predicates(subject))
        expected = truth(subject, where)
        assert table.scan(where).count() == len(expected), where
        assert sorted(row_key(r) for r in table.scan(where).to_arrow().to_pylist()) == expected, where
    assert len(table.opened) > 0 or not table.live()


@pytest.fixture
def store_calls(monkeypatch) -> list[str]:
    """The store's opens of index files and lookups of files (``TableStore.open_beside``, its ``io.info``)."""
    calls: list[str] = []
    open_beside, info = TableStore.open_beside, TableStore.data_file_exists

    def opening(self, entry, schema, name):
        calls.append(f"open {name}")
        return open_beside(self, entry, schema, name)

    def looking_up(self, entry, schema):
        calls.append(f"exists {entry.file_name}")
        return info(self, entry, schema)

    monkeypatch.setattr(TableStore, "open_beside", opening)
    monkeypatch.setattr(TableStore, "data_file_exists", looking_up)
    return calls


def forget_shared_indexes() -> None:
    """The process's shared containers dropped: what a table keeps is all that is left."""
    for memo in (container_file.SIDECARS, container_file.MAPPED_SIDECARS, container_file.EMBEDDED):
        memo.clear()


def test_a_second_predicate_opens_no_index_file_again(store_calls, monkeypatch):
    from fileindex.table import metadata

    table = PaimonTable(SIDECARS)
    forget_shared_indexes()
    assert table.scan("f1 = 100").count() == 2  # (f1: 100, 200, 300, 50, 500, 100, null, 20)
    first = list(store_calls)
    assert any(call.startswith("open ") for call in first) and any(call.startswith("exists ") for call in first)
    forget_shared_indexes()
    store_calls.clear()
    listed = []
    monkeypatch.setattr(metadata, "live_files", lambda *args, **kwargs: listed.append(args) or [])
    assert [table.scan(where).count() for where in ("f1 = -12345", "f0 = 'Bob'", "f1 > 100")] == [0, 2, 3]
    assert store_calls == [] and listed == []  # (no index opened, no file looked up, no manifest listed)
    fresh = PaimonTable(SIDECARS)  # (a new table opens its own)
    assert fresh.scan("f1 > 100").count() == 3 and any(call.startswith("open ") for call in store_calls)


def test_a_new_table_is_never_answered_from_an_older_ones_files(tmp_path):
    """A table keeps its snapshot's files; the same folder rewritten in place (a file of the same name and size
    with other bytes) is read anew by a new table."""
    root = copy_table("parquet", SIDECARS.name, tmp_path)
    old = PaimonTable(root)
    assert old.scan("f1 = 100").count() == 2 and len(old.opened) > 0
    data = next(root.glob("bucket-0/*.parquet"))
    sidecar = next(root.glob("bucket-0/*.index"))
    sidecar.write_bytes(b"\0" * sidecar.stat().st_size)  # (same name, same size, not an index)
    new = PaimonTable(root)
    assert len(new.opened) == 0
    assert new.scan("f1 = 100").count() == 2  # (a corrupt index is read around: the data says 1)
    (explained,) = [f for f in new.scan("f1 = 100").explain().files if f.file.endswith(data.name)]
    assert "corrupt index" in explained.reason and len(new.opened) == 0  # (a file that failed is not kept)


def test_opened_files_are_bounded_pickled_empty_and_shared_by_threads(monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    from fileindex.scan import opened

    table = PaimonTable(SIDECARS)
    with ThreadPoolExecutor(4) as pool:
        counts = list(pool.map(lambda n: table.scan(f"f1 > {n % 5}").count(), range(40)))
    assert counts == [PaimonTable(SIDECARS).scan(f"f1 > {n % 5}").count() for n in range(40)]
    assert len(table.opened) == len(table.live())
    shipped = pickle.loads(pickle.dumps(table))
    assert len(shipped.opened) == 0 and shipped.scan("f1 > 100").count() == 3
    three_files = TABLES / "parquet" / "drop_column_rewritten.db" / "drop_column_rewritten"
    column = PaimonTable(three_files).schema.fields[0].name
    for budget, kept in ((opened.BYTES, 3), (1, 1)):  # (over the bound: the last file opened alone is kept)
        monkeypatch.setattr(opened, "BYTES", budget)
        bounded = PaimonTable(three_files)
        assert len(list(bounded.plan(f"{column} IS NULL"))) == 3 and len(bounded.opened) == kept


def test_fileindex_memos_off_keeps_no_opened_file():
    script = f"""
from fileindex import PaimonTable
table = PaimonTable({str(SIDECARS)!r})
print(table.scan("f1 > 100").count(), table.scan("f1 = 100").count(), len(table.opened), table.opened._tasks is None)
"""
    for setting, kept in (("off", False), ("on", True)):
        out = subprocess.run([sys.executable, "-c", script], env={**os.environ, "FILEINDEX_MEMOS": setting},
                             capture_output=True, text=True, check=True).stdout.split()
        assert out[:2] == ["3", "2"] and (int(out[2]) > 0) == kept and (out[3] == "True") == (not kept)

