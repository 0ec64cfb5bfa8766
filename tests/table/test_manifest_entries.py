"""Manifest entries read two ways from one table (MANIFEST_FIELDS): an Avro manifest whose writer schema
gives every field the type Java writes is read with value checks only; any other schema is read field
by field, so a wrong type is still named in a TableError."""
import copy
import dataclasses
import io
import shutil
from pathlib import Path

import fastavro
import pytest
from conftest import ROOT

from fileindex.pipeline.inputs import resolve_inputs
from fileindex.table.manifest_entry import (
    ADD,
    DELETE,
    MANIFEST_FIELDS,
    EntryKind,
    ManifestEntry,
    decode_entry,
    typed_manifest,
)
from fileindex.table.metadata import TableError, live_files, load_snapshot, read_rows_and_schema
from fileindex.table.store import TableStore

TABLES = ROOT / "tests" / "tables"
ROOTS = sorted(p for p in TABLES.glob("*/*.db/*") if (p / "snapshot").is_dir())
SOURCE = TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"


def manifests(root: Path) -> list[Path]:
    return sorted(p for p in (root / "manifest").glob("manifest-*") if "list" not in p.name)


def test_the_table_lists_datafiles_fields_in_order():
    assert len(MANIFEST_FIELDS) == len(dataclasses.fields(ManifestEntry)) - 2  # (and the kind, and the row)
    row = {"_KIND": 0, "_PARTITION": b"p", "_BUCKET": 1, "_FILE": {
        "_LEVEL": 2, "_FILE_NAME": "f", "_ROW_COUNT": 3, "_SCHEMA_ID": 4, "_EXTRA_FILES": ["x.index"],
        "_EMBEDDED_FILE_INDEX": b"e", "_EXTERNAL_PATH": "/x", "_FIRST_ROW_ID": 5, "_WRITE_COLS": ["a"],
        "_MAX_SEQUENCE_NUMBER": 6, "_FILE_SIZE": 7}}
    expected = ManifestEntry(kind=ADD, partition=b"p", bucket=1, level=2, file_name="f", row_count=3, schema_id=4,
                        extra_files=("x.index",), embedded_index=b"e", external_path="/x", first_row_id=5,
                        write_cols=("a",), max_sequence_number=6, file_size=7)
    assert decode_entry(row, "m", typed=True) == expected
    assert decode_entry(row, "m", typed=False) == expected
    assert decode_entry({**row, "_KIND": 1}, "m").kind is DELETE and EntryKind(1) is DELETE


@pytest.mark.parametrize("root", ROOTS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_java_written_manifests_are_typed_and_both_readings_agree(root):
    found = 0
    for path in manifests(root):
        rows, schema = read_rows_and_schema(TableStore(path.parent.parent), path)
        if schema is None:  # ORC or Parquet manifests are always read field by field
            continue
        assert typed_manifest(schema)
        for row in rows:
            assert decode_entry(row, "m", typed=True) == decode_entry(row, "m", typed=False)
            found += 1
    if root.parent.parent.name == "parquet":
        assert found


def test_task_sizes_come_from_the_manifest_without_a_stat():
    tasks = resolve_inputs([str(SOURCE)]).tasks
    assert tasks and all(t.size == t.entry.file_size == Path(t.path).stat().st_size for t in tasks)


def _rewrite(root: Path, change) -> None:
    """Each Avro manifest of the table written again with ``change(schema, rows)`` applied."""
    for path in manifests(root):
        rows, schema = read_rows_and_schema(TableStore(path.parent.parent), path)
        schema = copy.deepcopy(schema)
        change(schema, rows)
        with open(path, "wb") as out:
            fastavro.writer(out, fastavro.parse_schema(schema), rows)


def _file_field(schema: dict, name: str) -> dict:
    record = next(f for f in schema["fields"] if f["name"] == "_FILE")["type"]
    return next(f for f in record["fields"] if f["name"] == name)


def _retype(name: str, avro_type, value):
    def change(schema, rows):
        _file_field(schema, name)["type"] = avro_type
        for row in rows:
            row["_FILE"][name] = value(row["_FILE"][name])
    return change


@pytest.mark.parametrize(("change", "message"), [
    (_retype("_ROW_COUNT", "string", str), r"field _ROW_COUNT is a str, not int"),
    (_retype("_FILE_NAME", "long", len), r"field _FILE_NAME is a int, not str"),
    (_retype("_EXTRA_FILES", {"type": "array", "items": "long"}, lambda names: [1]),
     r"_EXTRA_FILES, _WRITE_COLS and _VALUE_STATS_COLS hold file and column names"),
    (_retype("_EMBEDDED_FILE_INDEX", ["null", "string"], lambda data: None if data is None else "x"),
     r"field _EMBEDDED_FILE_INDEX is a str, not bytes or bytearray"),
    (_retype("_SCHEMA_ID", ["null", "long"], lambda number: None), r"field _SCHEMA_ID is missing, not int"),
    (_retype("_LEVEL", {"type": "long", "logicalType": "timestamp-millis"}, lambda level: level),
     r"field _LEVEL is a datetime, not int"),
])
def test_a_schema_with_another_type_is_read_field_by_field(tmp_path, change, message):
    root = tmp_path / "t"
    shutil.copytree(SOURCE, root)
    _rewrite(root, change)
    assert not any(typed_manifest(read_rows_and_schema(TableStore(root), path)[1])
                   for path in manifests(root))
    with pytest.raises(TableError, match=r"manifest/manifest-\S+ \(manifest\) row 0 _FILE: " + message):
        live_files(TableStore(root), load_snapshot(TableStore(root)))


@pytest.mark.parametrize("field, value", [("_ROW_COUNT", -1), ("_FILE_SIZE", 0), ("_FILE_SIZE", -(1 << 40)),
                                          ("_LEVEL", -1)])
def test_value_checks_stay_on_the_typed_path(tmp_path, field, value):
    """A count, size or level no file has is refused where the entry is read (a size weighs a store read's memory;
    a primary-key table's file at level -1 was skipped as a level-0 file, its rows unread)."""
    root = tmp_path / "t"
    shutil.copytree(SOURCE, root)

    def impossible(schema, rows):
        rows[0]["_FILE"][field] = value
    _rewrite(root, impossible)
    assert all(typed_manifest(read_rows_and_schema(TableStore(root), path)[1])
                   for path in manifests(root))
    with pytest.raises(TableError, match=rf"row 0 _FILE: {field} is {value}\b"):
        live_files(TableStore(root), load_snapshot(TableStore(root)))


def test_manifests_of_nullable_records_are_typed_and_read_as_before(tmp_path):
    """pypaimon-rust writes manifests under ``["null", record]``: their rows are typed as the record's (a null row is
    refused before), and the record of the parsed writer schema bears fastavro's mark of a parsed schema, without
    which ``schemaless_reader`` parses it again at every row (#54)."""
    from fileindex.table.metadata import writer_schema

    root = tmp_path / "t"
    shutil.copytree(SOURCE, root)
    before = live_files(TableStore(root), load_snapshot(TableStore(root)))
    for path in manifests(root):
        rows, schema = read_rows_and_schema(TableStore(root), path)
        with open(path, "wb") as out:
            fastavro.writer(out, fastavro.parse_schema(["null", _unmarked(schema)]), rows)
    for path in manifests(root):
        rows, schema = read_rows_and_schema(TableStore(root), path)
        assert schema[0] == "null" and schema[1]["__fastavro_parsed"] and typed_manifest(schema)
        assert rows and schema is writer_schema(fastavro.reader(io.BytesIO(path.read_bytes())).metadata["avro.schema"]
                                                .encode())
    assert live_files(TableStore(root), load_snapshot(TableStore(root))) == before


def test_a_writer_schema_is_checked_once_for_the_manifests_sharing_it(tmp_path, monkeypatch):
    """Whether a writer schema gives every field its type is asked once a schema, not once a manifest (a table's
    manifests share one: about 1% of a cold read's instructions, #54)."""
    from fileindex.table import metadata

    root = tmp_path / "t"
    shutil.copytree(TABLES / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv", root)
    checked = []
    monkeypatch.setattr(metadata, "typed_manifest", lambda schema: checked.append(schema) or typed_manifest(schema))
    metadata.typed_writer_schema.cache_clear()
    assert live_files(TableStore(root), load_snapshot(TableStore(root)))
    assert len(manifests(root)) > 1 and len(checked) == 1 and typed_manifest(checked[0])


def _unmarked(schema):
    """A parsed schema without fastavro's marks (to write it into another)."""
    if isinstance(schema, dict):
        return {key: _unmarked(value) for key, value in schema.items() if not key.startswith("__")}
    return [_unmarked(value) for value in schema] if isinstance(schema, list) else schema


def test_an_unknown_entry_kind_is_refused(tmp_path):
    root = tmp_path / "t"
    shutil.copytree(SOURCE, root)

    def bad_kind(schema, rows):
        rows[0]["_KIND"] = 7
    _rewrite(root, bad_kind)
    with pytest.raises(TableError, match=r"row 0: entry kind 7"):
        live_files(TableStore(root), load_snapshot(TableStore(root)))


@pytest.mark.parametrize("root", ROOTS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_a_manifest_entry_gives_back_the_row_it_was_read_from(root):
    found = 0
    for path in manifests(root):
        rows, schema = read_rows_and_schema(TableStore(path.parent.parent), path)
        if schema is None:
            continue
        for row in rows:
            entry = ManifestEntry.from_avro(copy.deepcopy(row))
            assert (entry.kind, entry.bucket, entry.file_name) == (row["_KIND"], row["_BUCKET"],
                                                                   row["_FILE"]["_FILE_NAME"])
            back = entry.to_avro()
            assert back == row and set(back) == set(row)
            # written with the manifest's own schema, the entry reads back as the same entry
            buffer = io.BytesIO()
            fastavro.writer(buffer, fastavro.parse_schema(schema), [back])
            buffer.seek(0)
            assert ManifestEntry.from_avro(next(fastavro.reader(buffer))) == entry
            found += 1
    if root.parent.parent.name == "parquet":
        assert found


def test_a_changed_entry_keeps_every_field_it_does_not_change():
    row = {"_KIND": 0, "_PARTITION": b"p", "_BUCKET": 1, "_TOTAL_BUCKETS": 4, "_FILE": {
        "_FILE_NAME": "f", "_FILE_SIZE": 7, "_ROW_COUNT": 3, "_SCHEMA_ID": 4, "_LEVEL": 0,
        "_EXTRA_FILES": ["f.index"], "_EMBEDDED_FILE_INDEX": None, "_CREATION_TIME": 123,
        "_VALUE_STATS": {"_MIN_VALUES": b"a", "_MAX_VALUES": b"z", "_NULL_COUNTS": [0]}}}
    entry = ManifestEntry.from_avro(row)
    changed = dataclasses.replace(entry, kind=DELETE, extra_files=(), embedded_index=b"idx")
    expected = copy.deepcopy(row)
    expected["_KIND"] = DELETE
    expected["_FILE"].update(_EXTRA_FILES=[], _EMBEDDED_FILE_INDEX=b"idx")
    assert changed.to_avro() == expected and entry.to_avro() == row and changed != entry


@pytest.mark.parametrize("change", [{"_LEVEL": 1}, {"_EMBEDDED_FILE_INDEX": None}], ids=["level", "embedded index"])
def test_a_data_file_live_under_two_entries_is_refused(tmp_path, change):
    """The manifest adds the table's one data file twice, the second entry at another level (or without its
    index): both were live, so the file's 8 rows were read twice (a count of 16)."""
    root = tmp_path / "t"
    shutil.copytree(SOURCE, root)
    store = TableStore(root)
    snapshot = load_snapshot(store)
    (entry,) = live_files(store, snapshot)
    manifest = root / "manifest" / next(p.name for p in manifests(root) if _names(p) == [entry.file_name])
    with open(manifest, "rb") as file:
        reader = fastavro.reader(file)
        schema, codec, rows = reader.writer_schema, reader.codec, list(reader)
    again = copy.deepcopy(rows[0])
    again["_FILE"].update(change)
    with open(manifest, "wb") as file:
        fastavro.writer(file, schema, rows + [again], codec=codec)
    with pytest.raises(TableError, match=f"{entry.file_name}.* is live under two manifest entries"):
        live_files(TableStore(root), snapshot)


def _names(manifest: Path) -> list[str]:
    with open(manifest, "rb") as file:
        return [row["_FILE"]["_FILE_NAME"] for row in fastavro.reader(file)]
