"""The primary-key tables Java Paimon 0.9.0 wrote (``tests/tables/primary-keys``, made by
``tools/pk_tables.py``) read by this project's merge: every snapshot equals Java's own batch read of it, and
every predicate's rows (its pruning, the merge, the exact filter) equal Java's rows; where Java's merge fails,
ours fails too. Pruning keeps every file Java's plan reads, and the same files where statistics decide alike."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import ROOT
from pk_read import (
    buckets,
    default_prune,
    json_rows,
    kv_files,
    merged_rows,
    scan,
    table_of,
)

from fileindex.errors import FileIndexError, UsageError
from fileindex.merge.pruning import FILE_INDEX, LEVEL, WHOLE_BUCKET, prune_bucket
from fileindex.merge.reader import merge_bucket
from fileindex.merge.spec import merge_spec
from fileindex.predicate.parser import parse_predicate
from fileindex.predicate.tree import columns
from fileindex.table.statistics import Statistics
from fileindex.writing.data_file import build_data_file_index

DATABASE = ROOT / "tests" / "tables" / "primary-keys"
ANSWERS = json.loads((DATABASE / "java-answers.json").read_text())
TABLES = ANSWERS["tables"]
SNAPSHOTS = [(name, snapshot) for name, table in TABLES.items()
             for snapshot in sorted({r["snapshot"] for r in table["reads"]})]


def java_reads(name: str, snapshot: int) -> list[dict]:
    return [r for r in TABLES[name]["reads"] if r["snapshot"] == snapshot]


def our_rows(root: Path, snapshot: int, where: str | None) -> tuple[list, list]:
    rows, decisions = scan(root, snapshot, where)
    return json_rows(rows, table_of(root, snapshot)[1]), decisions


def test_the_tables_cover_every_engine_and_the_layouts_the_merge_must_handle():
    engines = {TABLES[name]["options"].get("merge-engine", "deduplicate") for name in TABLES}
    assert engines == {"deduplicate", "partial-update", "aggregation", "first-row"}
    levels = {}
    for name, snapshot in SNAPSHOTS:
        for (partition, bucket), entries in buckets(table_of(DATABASE / name, snapshot)[2]).items():
            levels[(name, snapshot, partition, bucket)] = sorted(e.level for e in entries)
    assert any(len(set(found)) >= 3 for found in levels.values())  # level 0 and two levels above it
    assert any(found.count(0) >= 2 and max(found) > 0 for found in levels.values())
    refused = {r.get("error", "")[:40] for name in TABLES for r in TABLES[name]["reads"] if "error" in r}
    assert len(refused) == 3  # Java's merge fails on three tables: ours must fail there too


@pytest.mark.parametrize(("name", "snapshot"), SNAPSHOTS)
def test_every_snapshot_reads_as_java_reads_it(name, snapshot):
    java = java_reads(name, snapshot)[0]
    assert java["where"] is None
    if "error" in java:
        with pytest.raises(FileIndexError):
            merged_rows(DATABASE / name, snapshot)
        return
    rows = json_rows(merged_rows(DATABASE / name, snapshot), table_of(DATABASE / name, snapshot)[1])
    assert rows == java["rows"]


@pytest.mark.parametrize("name", list(TABLES))
def test_predicates_read_the_rows_java_reads_and_prune_no_file_java_reads(name):
    strings = {f.name for f in table_of(DATABASE / name)[1].fields if f.type.is_string}
    compared = 0
    for java in TABLES[name]["reads"]:
        if java["where"] is None or "error" in java:
            continue
        rows, decisions = our_rows(DATABASE / name, java["snapshot"], java["where"])
        assert rows == java["rows"], (java["snapshot"], java["where"])
        kept = {d.file.file_name for d in decisions if d.kept}
        assert kept >= set(java["files"]), (java["snapshot"], java["where"])
        types = table_of(DATABASE / name, java["snapshot"])[1].types()
        if not set(columns(parse_predicate(java["where"], types))) & strings:
            # (Java also compares truncated string statistics, which this project's statistics do not)
            assert kept == set(java["files"]), (java["snapshot"], java["where"])
            compared += 1
    assert compared


def test_file_by_file_pruning_would_return_a_stale_row():
    """Key (2024-01-01, 2) holds score 20 in the compacted file and 999 in a later level-0 file whose scores
    are all 900 or more: a reader dropping files one by one on ``score = 20`` drops the newer version and
    returns the older; the whole-bucket rule keeps the bucket whole and returns what Java returns."""
    root, snapshot, where = DATABASE / "deduplicate", max(TABLES["deduplicate"]["snapshots"]), "score = 20"
    java = next(r for r in java_reads("deduplicate", snapshot) if r["where"] == where)

    def file_by_file(spec, schema, entries, predicate):
        decisions = default_prune(spec, schema, entries, predicate)
        names = tuple(f.name for f in schema.fields)
        return [replace(d, kept=Statistics(e.value_stats, names, schema.types(), e.row_count).may_match(predicate))
                for d, e in zip(decisions, entries, strict=True)]

    stale, _ = scan(root, snapshot, where, prune=file_by_file)
    stale_rows = json_rows(stale, table_of(root, snapshot)[1])
    assert ["2024-01-01", 2, "n2", 20, True] in stale_rows
    assert stale_rows != java["rows"]
    rows, decisions = our_rows(root, snapshot, where)
    assert rows == java["rows"]
    assert any(d.rule == WHOLE_BUCKET and d.kept and d.file.level == 0 for d in decisions)


def indexed(name: str, snapshot: int, options: dict) -> tuple[Path, list]:
    """The table's files with embedded bitmaps this project's writer builds over each data file."""
    store, schema, files = table_of(DATABASE / name, snapshot)
    return DATABASE / name, [replace(e, embedded_index=build_data_file_index(
        store.data_file(e, schema), options).held) for e in files]


def test_embedded_indexes_prune_whole_buckets_and_the_rows_stay_javas():
    """Java 0.9.0 writes no index for a primary-key table: this project's writer builds bitmaps on ``name``;
    ``name = 'zz'`` (string statistics decide nothing here) then drops the buckets none of whose files holds
    'zz', keeps overlapping buckets whole, and returns Java's rows."""
    name, where = "deduplicate", "name = 'zz'"
    snapshot = max(TABLES[name]["snapshots"])
    root, files = indexed(name, snapshot, {"file-index.bitmap.columns": "name"})
    store, schema, _ = table_of(root, snapshot)
    spec = merge_spec(schema)
    predicate = parse_predicate(where, schema.types())
    decided = []
    for entries in buckets(files).values():
        decided += default_prune(spec, schema, entries, predicate)
    assert any(not d.kept and d.rule in (FILE_INDEX, WHOLE_BUCKET) for d in decided)
    assert any(d.kept and d.rule == WHOLE_BUCKET for d in decided)
    java = next(r for r in java_reads(name, snapshot) if r["where"] == where)
    kept = [d.file for d in decided if d.kept]
    rows = merge_bucket_rows(spec, store, schema, kept, predicate)
    assert json_rows(rows, schema) == java["rows"] and java["rows"]
    off = replace(spec, file_index_read=False)  # file-index.read.enabled=false
    assert all(d.kept for entries in buckets(files).values() for d in default_prune(off, schema, entries, predicate))


def merge_bucket_rows(spec, store, schema, files, predicate):
    import pyarrow as pa

    from fileindex.scan.truth import filtered

    names = [f.name for f in schema.fields]
    batches = []
    for entries in buckets(files).values():
        batches += list(merge_bucket(spec, kv_files(store, schema, spec, entries, names), names))
    return filtered(pa.Table.from_batches(batches), predicate, schema.types())


def test_the_deletion_vector_table_keeps_its_reading():
    """``pk_with_bitmap_dv`` (deletion vectors) is read as before: level 0 skipped, each file above read raw
    with its deletion vector (not by this merge, which refuses the table)."""
    root = ROOT / "tests" / "tables" / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"
    for snapshot in range(1, 5):
        store, schema, files = table_of(root, snapshot)
        spec = merge_spec(schema)
        assert spec.deletion_vectors and spec.skips_level_zero
        decisions = prune_bucket(spec, files)
        assert {d.file.file_name for d in decisions if d.kept} == {f.file_name for f in files if f.level > 0}
        assert all(d.rule == LEVEL for d in decisions if not d.kept)
        with pytest.raises(UsageError, match="deletion vectors"):
            list(merge_bucket(spec, kv_files(store, schema, spec, files, ["key"]), ["key"]))
