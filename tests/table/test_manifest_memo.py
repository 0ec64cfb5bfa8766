"""Planning query after query decodes each manifest once and opens each embedded index once per process
(metadata.MANIFESTS, container.file.EMBEDDED): a file rewritten in place is read again, a malformed one
raises every time, and plans are the same with the memos as without them."""
import gc
import os
import pickle
import shutil
import subprocess
import sys
import time

import fastavro
import pytest
from conftest import ROOT

import fileindex.container.file as container_file
import fileindex.table.metadata as metadata
import fileindex.scan.table as scan
from fileindex.arrow.data_files import DataFileReader
from fileindex.container.file import FileIndexContainer, embedded_container, sidecar_container
from fileindex.errors import DecodeError
from fileindex.memo import BoundedMemo, computed_in_batches, memos_enabled
from fileindex.pipeline.inputs import resolve_inputs
from fileindex.predicate.tree import Leaf
from fileindex.table.metadata import TableError, live_files, load_snapshot
from fileindex import PaimonTable
from fileindex.table.manifest_entry import ADD
from fileindex.table.store import TableStore

TABLES = ROOT / "tests" / "tables"
ROOTS = sorted(p for p in TABLES.glob("*/*.db/*") if (p / "snapshot").is_dir())
SOURCE = TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"
SIDECAR_SOURCE = TABLES / "parquet" / "append_with_bitmap_no_embedding.db" / "append_with_bitmap_no_embedding"


@pytest.fixture(autouse=True)
def empty_memos():
    for memo in (metadata.MANIFESTS, container_file.EMBEDDED, container_file.SIDECARS, container_file.MAPPED_SIDECARS):
        memo.clear()
    yield
    for memo in (metadata.MANIFESTS, container_file.EMBEDDED, container_file.SIDECARS, container_file.MAPPED_SIDECARS):
        memo.clear()


@pytest.fixture
def manifest_reads(monkeypatch):
    """The manifest-family files decoded (every read the memo could not serve: each goes through _rows_and_schema)."""
    reads = []
    original = metadata._rows_and_schema
    monkeypatch.setattr(metadata, "_rows_and_schema",
                        lambda store, path, *args: reads.append(os.path.basename(path)) or original(store, path, *args))
    return reads


def manifests(root):
    return sorted(p for p in (root / "manifest").glob("manifest-*") if "list" not in p.name)


def test_manifests_are_decoded_once_and_their_entries_shared(manifest_reads):
    snapshot = load_snapshot(TableStore(SOURCE))
    first = live_files(TableStore(SOURCE), snapshot)
    decoded = len(manifest_reads)
    assert decoded >= 2 and first  # manifest lists and manifests
    second = live_files(TableStore(SOURCE), snapshot)
    assert len(manifest_reads) == decoded
    assert second == first and all(a is b for a, b in zip(first, second, strict=True))


def test_committers_read_entries_from_the_files_every_time(manifest_reads):
    store = TableStore(SOURCE)
    snapshot = load_snapshot(store)
    entries = metadata.live_entries(store, snapshot)
    reads = len(manifest_reads)
    again = metadata.live_entries(store, snapshot)
    assert len(manifest_reads) > reads and again == entries and all(e.kind is ADD for e in again)
    assert again == live_files(store, snapshot)  # (equal entries: only the rows they hold differ)
    assert all(e.row is not None for e in again) and all(e.row is None for e in live_files(store, snapshot))


def rewritten(path, change):
    """The manifest's rows, changed, written back uncompressed with a fixed sync marker."""
    with open(path, "rb") as file:
        reader = fastavro.reader(file)
        schema, rows = reader.writer_schema, list(reader)
    for row in rows:
        change(row)
    with open(path, "wb") as file:
        fastavro.writer(file, schema, rows, sync_marker=b"0123456789abcdef")


def test_a_manifest_rewritten_in_place_with_the_same_size_is_read_again(tmp_path, manifest_reads):
    root = tmp_path / "t"
    shutil.copytree(SOURCE, root)
    store = TableStore(root)
    snapshot = load_snapshot(store)
    manifest = max((path for path, _ in metadata._manifests(store, snapshot)), key=lambda p: p.stat().st_size)
    rewritten(manifest, lambda row: None)
    before = {e.file_name: e.row_count for e in live_files(store, snapshot)}
    other = tmp_path / "other"
    shutil.copy(manifest, other)
    rewritten(other, lambda row: row["_FILE"].update(_ROW_COUNT=row["_FILE"]["_ROW_COUNT"] ^ 1))
    assert other.stat().st_size == manifest.stat().st_size  # small counts: one varint byte either way
    stat = manifest.stat()
    time.sleep(0.02)  # past the kernel's timestamp granularity
    with open(manifest, "r+b") as file:  # same inode, same size
        file.write(other.read_bytes())
    os.utime(manifest, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # only the ctime moved
    after = {e.file_name: e.row_count for e in live_files(TableStore(root), snapshot)}
    changed = [name for name in before if after.get(name) != before[name]]
    assert changed and all(after[name] == before[name] ^ 1 for name in changed)
    assert manifest_reads.count(manifest.name) == 2
    assert {e.file_name: e.row_count for e in live_files(TableStore(root), snapshot)} == after
    assert manifest_reads.count(manifest.name) == 2


def test_a_malformed_manifest_raises_every_time_and_is_not_kept(tmp_path, manifest_reads):
    root = tmp_path / "t"
    shutil.copytree(SOURCE, root)
    snapshot = load_snapshot(TableStore(root))
    good = live_files(TableStore(root), snapshot)
    metadata.MANIFESTS.clear()
    manifest = metadata._manifests(TableStore(root), snapshot)[0][0]
    data = manifest.read_bytes()
    manifest.write_bytes(data[: len(data) // 2])
    manifest_reads.clear()
    for _ in range(2):
        with pytest.raises(TableError, match=manifest.name):
            live_files(TableStore(root), snapshot)
    assert manifest_reads.count(manifest.name) == 2
    manifest.write_bytes(data)
    assert live_files(TableStore(root), snapshot) == good


def test_the_memo_is_bounded_by_items_and_bytes():
    memo = BoundedMemo(items=2, budget=100)
    for name in "abc":
        memo.put(name, name.upper(), 10)
    assert len(memo) == 2 and memo.get("a") is None and memo.get("b") == "B"
    memo.put("d", "D", 10)  # b was used last, so c goes
    assert memo.get("c") is None and memo.get("b") == "B" and memo.weight == 20
    memo.put("e", "E", 95)  # over the bytes: the oldest go until it fits (or only it is left)
    assert len(memo) == 1 and memo.get("e") == "E" and memo.weight == 95
    memo.put("e", "E2", 5)  # replaced: its old weight is given back
    assert memo.get("e") == "E2" and memo.weight == 5


def test_an_embedded_container_is_shared_with_its_readers_and_a_bad_head_raises_each_time():
    entry = next(e for e in live_files(TableStore(SOURCE), load_snapshot(TableStore(SOURCE))) if e.embedded_index)
    container = embedded_container(entry.embedded_index)
    assert embedded_container(bytes(entry.embedded_index)) is container and container.readers == {}
    container.close()  # others hold it: closing is a no-op
    assert container.columns and container.size == len(entry.embedded_index)
    bad = b"\x00" * 16
    for _ in range(2):
        with pytest.raises(DecodeError):
            embedded_container(bad)
    assert len(container_file.EMBEDDED) == 1


def sidecar_of(root):
    table = PaimonTable(root)
    entry = next(e for e, _ in table.live() if e.index_files)
    return table, entry, table.data_path(entry).parent / entry.index_files[0]


def test_a_sidecar_container_is_shared_while_the_file_keeps_its_identity(tmp_path):
    root = tmp_path / "t"
    shutil.copytree(SIDECAR_SOURCE, root)
    table, entry, path = sidecar_of(root)
    container = sidecar_container(path)
    assert table.container(entry)[1] is container and container.readers == {}
    container.close()  # others hold it: closing is a no-op
    assert container.columns
    data = path.read_bytes()
    os.replace(path, path.with_suffix(".old"))  # replaced (a new inode, the same bytes): opened anew
    path.write_bytes(data)
    again = sidecar_container(path)
    assert again is not container and again.columns == container.columns
    path.write_bytes(b"\x00" * 16)  # rewritten in place as garbage: refused, each time, and never kept
    for _ in range(2):
        with pytest.raises(DecodeError):
            sidecar_container(path)
    assert len(container_file.SIDECARS) == 2


def test_the_sidecar_memo_holds_a_file_descriptor_each_so_at_most_an_eighth_of_the_limit(monkeypatch):
    import resource

    monkeypatch.setattr(resource, "getrlimit", lambda _: (256, 4096))
    assert container_file._sidecar_memo_items() == 32
    monkeypatch.setattr(resource, "getrlimit", lambda _: (1 << 20, 1 << 20))
    assert container_file._sidecar_memo_items() == 512


def test_a_malformed_body_is_answered_the_same_by_every_query(tmp_path):
    """A reader that failed to open is never kept: each plan meets the corrupt body again."""
    table = PaimonTable(SOURCE)
    entry = next(e for e, _ in table.live() if e.embedded_index)
    container = embedded_container(entry.embedded_index)
    column = container.columns[0]
    data = bytearray(entry.embedded_index)
    index = next(iter(container.indexes(column).values()))
    data[index.start:index.start + index.length] = b"\xff" * index.length
    broken = type(entry)(**{**vars(entry), "embedded_index": bytes(data)})
    notes = [table.verdict(broken, Leaf("eq", column, (first_value(table, entry, column),))).note
             for _ in range(2)]
    assert notes[0].startswith("corrupt index") and notes[0] == notes[1]


def first_value(table, entry, column):
    return DataFileReader(table.data_path(entry)).column(column).to_pylist()[0]


SIMPLE = ("INT", "BIGINT", "SMALLINT", "TINYINT", "STRING", "VARCHAR", "CHAR", "DOUBLE", "FLOAT", "BOOLEAN")


def table_predicates(table):
    """Equalities, IN, NOT IN, nulls and ranges on every simply typed column, with values from its files."""
    predicates = []
    for field in table.schema.fields:
        predicates += [Leaf("is_null", field.name), Leaf("is_not_null", field.name)]
        if field.type.root not in SIMPLE:
            continue
        values = []
        for entry, _ in table.live()[:3]:
            try:
                values += [v for v in DataFileReader(table.data_path(entry)).column(field.name).to_pylist()[:4]
                           if v is not None]
            except Exception:  # a file of an older schema without the column
                continue
        values = list(dict.fromkeys(values))[:3]
        for value in values:
            predicates += [Leaf("eq", field.name, (value,)), Leaf("neq", field.name, (value,)),
                           Leaf("gt", field.name, (value,))]
        if len(values) > 1:
            predicates += [Leaf("in", field.name, tuple(values)), Leaf("not_in", field.name, tuple(values[:1]))]
    return predicates


def shown(plans):
    return [[(v.file, v.row_count, v.index, v.result.kind,
              sorted(v.result.bitmap) if v.result.kind == "ROWS" else None, v.note) for v in plan] for plan in plans]


@pytest.mark.parametrize("root", ROOTS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_plans_are_the_same_with_and_without_the_memos(root, monkeypatch):
    predicates = table_predicates(PaimonTable(root))
    assert predicates
    warm = []
    for extended in (False, True):
        for _ in range(2):  # the second plans from memoized manifests, containers and readers
            warm.append(shown(PaimonTable(root).plan_many(predicates, extended=extended)))
        # one predicate at a time: readers opened by earlier queries answer later ones
        warm.append(shown([next(iter(PaimonTable(root).plan_many([p], extended=extended))) for p in predicates]))
    assert len(metadata.MANIFESTS) and warm[0] == warm[1] == warm[2] and warm[3] == warm[4] == warm[5]
    monkeypatch.setattr(metadata, "MANIFESTS", BoundedMemo(items=0, budget=0))
    monkeypatch.setattr(scan, "embedded_container", lambda data: FileIndexContainer.from_bytes(data))
    monkeypatch.setattr(scan, "sidecar_container",
                        lambda path, identity, name: FileIndexContainer.open(path, name=name))
    cold = [shown(PaimonTable(root).plan_many(predicates, extended=extended)) for extended in (False, True)]
    assert len(metadata.MANIFESTS) == 0
    assert cold == [warm[0], warm[3]]


def test_tasks_pickle_without_the_memos():
    inputs = resolve_inputs([str(SOURCE)])
    list(inputs.table.plan("f0 = 'x'") if "f0" in inputs.table.schema.by_name() else [])
    blob = pickle.dumps(inputs.tasks[0])
    assert b"BoundedMemo" not in blob and b"FileIndexContainer" not in blob


@pytest.mark.parametrize("enabled", [True, False])
def test_decoding_a_manifest_leaves_garbage_collection_as_it_was(tmp_path, enabled):
    root = tmp_path / "t"
    shutil.copytree(SOURCE, root)
    snapshot = load_snapshot(TableStore(root))
    manifest = metadata._manifests(TableStore(root), snapshot)[0][0]
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        live_files(TableStore(root), snapshot)
        assert gc.isenabled() is enabled
        metadata.MANIFESTS.clear()
        manifest.write_bytes(manifest.read_bytes()[:40])
        with pytest.raises(TableError):
            live_files(TableStore(root), snapshot)
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def test_batches_pause_collection_for_the_work_only_and_keep_the_order():
    was = gc.isenabled()
    gc.enable()
    try:
        seen = []
        results = computed_in_batches(lambda item: (item, gc.isenabled()), list(range(7)), size=3)
        for item, enabled_in_work in results:
            seen.append(item)
            assert not enabled_in_work  # paused while the batch was computed
            assert gc.isenabled()  # and running while the caller holds a result
        assert seen == list(range(7))
    finally:
        gc.enable() if was else gc.disable()


@pytest.mark.parametrize("setting, kept", [("off", False), ("0", False), ("on", True), ("", True)])
def test_fileindex_memos_off_in_the_environment_keeps_every_memo_empty(setting, kept):
    """A process started with FILEINDEX_MEMOS=off plans and reads as before, holding nothing in any memo."""
    script = f"""
from fileindex.arrow.data_files import FOOTERS, DataFileReader
from fileindex.container.file import EMBEDDED, SIDECARS
from fileindex.table.metadata import MANIFESTS
from fileindex import PaimonTable
for _ in range(2):
    kinds = [v.result.kind for v in PaimonTable({str(SOURCE)!r}).plan("f0 = 'Alice'")]
    kinds += [v.result.kind for v in PaimonTable({str(SIDECAR_SOURCE)!r}).plan("f0 = 'Alice'")]
    table = PaimonTable({str(SOURCE)!r})
    rows = sum(DataFileReader(table.data_path(entry)).row_count for entry, _ in table.live())
print(kinds, rows, len(MANIFESTS), len(EMBEDDED), len(SIDECARS), len(FOOTERS))
"""
    env = {**os.environ, "FILEINDEX_MEMOS": setting}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    *answer, manifests, embedded, sidecars, footers = out.stdout.split()
    counts = [int(manifests), int(embedded), int(sidecars), int(footers)]
    assert all(counts) == kept
    assert (sum(counts) == 0) == (not kept)
    on = subprocess.run([sys.executable, "-c", script], env={**os.environ, "FILEINDEX_MEMOS": "on"},
                        capture_output=True, text=True, check=True)
    assert answer == on.stdout.split()[:-4]


def test_a_fileindex_memos_setting_neither_on_nor_off_warns_and_keeps_them_on():
    with pytest.warns(UserWarning, match="FILEINDEX_MEMOS='sometimes' is neither on nor off"):
        assert memos_enabled({"FILEINDEX_MEMOS": "sometimes"})
    assert not memos_enabled({"FILEINDEX_MEMOS": " OFF "})


def test_a_small_sidecar_is_kept_read_whole_and_a_large_one_mapped_within_the_descriptor_bound(tmp_path,
                                                                                               monkeypatch):
    """A small sidecar holds no descriptor, so the memo keeps more of them than the descriptor bound allows
    for mapped ones (a plan over 2,000 sidecars then reopens none); a large one stays mapped, bounded."""
    root = tmp_path / "t"
    shutil.copytree(SIDECAR_SOURCE, root)
    table, entry, path = sidecar_of(root)
    small = sidecar_container(path)
    assert small._mapped is None and len(container_file.SIDECARS) == 1 and len(container_file.MAPPED_SIDECARS) == 0
    monkeypatch.setattr(container_file, "SMALL_FILE", 0)
    container_file.SIDECARS.clear()
    large = sidecar_container(path)
    assert large._mapped is not None and len(container_file.MAPPED_SIDECARS) == 1
    assert container_file.MAPPED_SIDECARS.items == container_file._sidecar_memo_items()
    assert container_file.SIDECARS.items > container_file.MAPPED_SIDECARS.items
    assert table.container(entry)[1] is large and large.columns == small.columns
