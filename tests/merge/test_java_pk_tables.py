"""The primary-key tables Java Paimon 0.9.0 wrote (``tests/tables/primary-keys``, made by
``tools/pk_tables.py``) read through ``PaimonTable.scan``: every snapshot equals Java's own batch read of it, and
every predicate's rows (the planner's pruning by bucket, the merge, the exact filter) equal Java's rows; where
Java's merge fails, ours fails too. Pruning keeps every file Java's plan reads, and the same files where
statistics decide alike; ``explain()`` names the rule that kept or dropped each file."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest
from conftest import ROOT

import fileindex.scan.primary_keys as primary_keys
from fileindex import PaimonTable
from fileindex.errors import FileIndexError, UsageError
from fileindex.kit.rows import canonical_rows
from fileindex.merge.layout import key_value_file, read_columns, system_columns
from fileindex.merge.pruning import FILE_INDEX, LEVEL, VALUE_STATISTICS, WHOLE_BUCKET, prune_bucket
from fileindex.merge.reader import merge_bucket
from fileindex.merge.spec import merge_spec
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


def our_rows(name: str, snapshot: int, where: str | None) -> list:
    table = PaimonTable(DATABASE / name, snapshot)
    return canonical_rows(table.scan(where).to_arrow(), table)


def read_files(name: str, snapshot: int, where: str) -> set[str]:
    """The files the scan reads: each kept bucket's files, merged."""
    files = PaimonTable(DATABASE / name, snapshot).scan(where).plan()
    return {f.file.rsplit("/", 1)[-1] for f in files if f.read in ("all", "merged")}


def test_the_tables_cover_every_engine_and_the_layouts_the_merge_must_handle():
    engines = {TABLES[name]["options"].get("merge-engine", "deduplicate") for name in TABLES}
    assert engines == {"deduplicate", "partial-update", "aggregation", "first-row"}
    levels: dict[tuple, list[int]] = {}
    for name, snapshot in SNAPSHOTS:
        for entry, _ in PaimonTable(DATABASE / name, snapshot).live():
            levels.setdefault((name, snapshot, entry.partition, entry.bucket), []).append(entry.level)
    assert any(len(set(found)) >= 3 for found in levels.values())  # level 0 and two levels above it
    assert any(found.count(0) >= 2 and max(found) > 0 for found in levels.values())
    key_types = {PaimonTable(DATABASE / name).schema.by_name()[key].type.root for name in TABLES
                 for key in merge_spec(PaimonTable(DATABASE / name).schema).keys}
    assert {"DATE", "DECIMAL", "TIMESTAMP"} <= key_types  # (their rows: the tests below)
    refused = {r.get("error", "")[:40] for name in TABLES for r in TABLES[name]["reads"] if "error" in r}
    assert len(refused) == 3  # Java's merge fails on three tables: ours must fail there too


@pytest.mark.parametrize(("name", "snapshot"), SNAPSHOTS)
def test_every_snapshot_reads_as_java_reads_it(name, snapshot):
    java = java_reads(name, snapshot)[0]
    assert java["where"] is None
    if "error" in java:
        with pytest.raises(FileIndexError):
            our_rows(name, snapshot, None)
        return
    assert our_rows(name, snapshot, None) == java["rows"]


@pytest.mark.parametrize("name", list(TABLES))
def test_predicates_read_the_rows_java_reads_and_prune_no_file_java_reads(name):
    strings = {f.name for f in PaimonTable(DATABASE / name).schema.fields if f.type.is_string}
    compared = 0
    for java in TABLES[name]["reads"]:
        if java["where"] is None or "error" in java:
            continue
        assert our_rows(name, java["snapshot"], java["where"]) == java["rows"], (java["snapshot"], java["where"])
        kept = read_files(name, java["snapshot"], java["where"])
        assert kept >= set(java["files"]), (java["snapshot"], java["where"])
        table = PaimonTable(DATABASE / name, java["snapshot"])
        if not set(columns(table.parse(java["where"]))) & strings:
            # (Java also compares truncated string statistics, which this project's statistics do not)
            assert kept == set(java["files"]), (java["snapshot"], java["where"])
            compared += 1
    assert compared


@pytest.mark.parametrize("name", list(TABLES))
def test_a_count_is_the_number_of_rows_java_reads_and_fails_where_java_s_merge_fails(name):
    for java in TABLES[name]["reads"]:
        table = PaimonTable(DATABASE / name, java["snapshot"])
        if "error" in java:
            with pytest.raises(FileIndexError):
                table.scan(java["where"]).count()
        else:
            assert table.scan(java["where"]).count() == len(java["rows"]), (java["snapshot"], java["where"])


@pytest.mark.parametrize(("name", "snapshot"), SNAPSHOTS)
def test_a_limited_count_counts_what_the_limited_read_returns_or_fails_as_it_fails(name, snapshot):
    for limit in (1, 5):
        scan = PaimonTable(DATABASE / name, snapshot).scan(limit=limit)
        try:
            rows = scan.to_arrow().num_rows
        except FileIndexError:
            with pytest.raises(FileIndexError):
                scan.count()
            continue
        assert scan.count() == rows, limit


LEVELLED = [name for name in TABLES if name.startswith("levels_")]


def levels_by_bucket(name: str, snapshot: int) -> list[list[int]]:
    found: dict[tuple, list[int]] = {}
    for entry, _ in PaimonTable(DATABASE / name, snapshot).live():
        found.setdefault((entry.partition, entry.bucket), []).append(entry.level)
    return [sorted(levels) for levels in found.values()]


def test_the_levelled_tables_hold_every_engine_on_several_levels_and_overlapping_level_zero():
    """Java compacted them itself (and in full between commits): their last snapshot's bucket holds files on
    two levels above 0 and two level-0 files, for each engine and for ``sequence.field``."""
    options = [TABLES[name]["options"] for name in LEVELLED]
    assert {o.get("merge-engine", "deduplicate") for o in options} == {"deduplicate", "partial-update",
                                                                       "aggregation", "first-row"}
    assert any("sequence.field" in o for o in options)
    for name in LEVELLED:
        last = levels_by_bucket(name, max(TABLES[name]["snapshots"]))
        assert any(levels.count(0) >= 2 and len({level for level in levels if level}) >= 2 for levels in last), name
        read = sorted({r["snapshot"] for r in TABLES[name]["reads"]})
        assert levels_by_bucket(name, read[0]) == [[4]], name  # the full compaction between commits, read too


def file_by_file(table: PaimonTable, predicate):
    """``prune_bucket`` as a reader pruning file by file would: a file whose value statistics exclude the
    predicate dropped, whatever its bucket's other files hold."""
    names = tuple(f.name for f in table.schema.fields)

    def prune(spec, entries, **tests):
        return [d if not d.kept or Statistics(e.value_stats, names, table.schema.types(), e.row_count)
                .may_match(predicate) else replace(d, kept=False, rule=VALUE_STATISTICS)
                for d, e in zip(prune_bucket(spec, entries, **tests), entries, strict=True)]

    return prune


@pytest.mark.parametrize("name", [name for name in LEVELLED if "first-row" not in TABLES[name]["options"].values()])
def test_file_by_file_pruning_of_a_levelled_table_returns_stale_rows(name, monkeypatch):
    """The last commit of each levelled table updated keys to values its older versions (on levels 3 and 4)
    never had: on a predicate the older versions match, pruning file by file drops the newer records and
    returns the older rows (or, for partial-update and aggregation, rows merged without them); the
    whole-bucket rule reads the bucket whole and returns Java's rows."""
    snapshot = max(TABLES[name]["snapshots"])
    wrong = []
    for java in java_reads(name, snapshot):
        if java["where"] is None or "error" in java:
            continue
        assert our_rows(name, snapshot, java["where"]) == java["rows"]
        table = PaimonTable(DATABASE / name, snapshot)
        with monkeypatch.context() as patched:
            patched.setattr(primary_keys, "prune_bucket", file_by_file(table, table.parse(java["where"])))
            if our_rows(name, snapshot, java["where"]) != java["rows"]:
                wrong.append(java["where"])
    assert wrong, name


def test_file_by_file_pruning_would_return_a_stale_row(monkeypatch):
    """Key (2024-01-01, 2) holds score 20 in the compacted file and 999 in a later level-0 file whose scores
    are all 900 or more: a planner dropping files one by one on ``score = 20`` drops the newer version and
    returns the older; the whole-bucket rule keeps the bucket whole and returns what Java returns."""
    snapshot, where = max(TABLES["deduplicate"]["snapshots"]), "score = 20"
    java = next(r for r in java_reads("deduplicate", snapshot) if r["where"] == where)
    table = PaimonTable(DATABASE / "deduplicate", snapshot)
    scan = table.scan(where)
    assert canonical_rows(scan.to_arrow(), table) == java["rows"]
    files = scan.explain().files
    read = {f.file: f for f in files if f.read == "all"}  # (a bucket's reason is said once, on its first file)
    assert any(f.read == "merged" and "whole bucket" in read[f.reason.split("merged into ")[1]].reason for f in files)
    assert "whole_bucket" in {s.name for s in scan.explain().stages}

    def file_by_file(spec, entries, **tests):
        names = tuple(f.name for f in table.schema.fields)
        return [replace(d, kept=Statistics(e.value_stats, names, table.schema.types(), e.row_count)
                        .may_match(scan.predicate)) for d, e in zip(prune_bucket(spec, entries, **tests), entries,
                                                                     strict=True)]

    monkeypatch.setattr(primary_keys, "prune_bucket", file_by_file)
    fresh = PaimonTable(DATABASE / "deduplicate", snapshot)  # (a new table: one plans a predicate once)
    stale = canonical_rows(fresh.scan(where).to_arrow(), table)
    assert ["2024-01-01", 2, "n2", 20, True] in stale
    assert stale != java["rows"]


def test_embedded_indexes_prune_whole_buckets_and_the_rows_stay_javas(monkeypatch):
    """Java 0.9.0 writes no index for a primary-key table: this project's writer builds bitmaps on ``name``
    (embedded in the manifest entries the scan plans); ``name = 'zz'`` (string statistics decide nothing here)
    then drops the buckets none of whose files holds 'zz', keeps overlapping buckets whole, and returns Java's
    rows; with ``file-index.read.enabled=false`` nothing is dropped by the index."""
    name, where = "deduplicate", "name = 'zz'"
    snapshot = max(TABLES[name]["snapshots"])
    live = PaimonTable.live

    def indexed(self, keep_manifest=None):
        return [(replace(e, embedded_index=build_data_file_index(self.store.data_file(e, self.schema),
                                                                 {"file-index.bitmap.columns": "name"}).held), v)
                for e, v in live(self, keep_manifest)]

    monkeypatch.setattr(PaimonTable, "live", indexed)
    table = PaimonTable(DATABASE / name, snapshot)
    explained = table.scan(where).explain()
    assert any(f.skipped_by in ("file_index", "whole_bucket") and FILE_INDEX in f.reason or
               f.skipped_by == "whole_bucket" for f in explained.files)
    assert any(f.read in ("all", "merged") and WHOLE_BUCKET in f.reason for f in explained.files)
    java = next(r for r in java_reads(name, snapshot) if r["where"] == where)
    assert canonical_rows(table.scan(where).to_arrow(), table) == java["rows"] and java["rows"]
    unread = PaimonTable(DATABASE / name, snapshot)  # (a new table: one plans a predicate once)
    unread.schema = replace(unread.schema, options={**unread.schema.options, "file-index.read.enabled": "false"})
    assert not any(f.skipped_by for f in unread.scan(where).explain().files)


def test_explain_names_the_rule_of_each_file_and_bucket():
    snapshot = max(TABLES["deduplicate"]["snapshots"])
    explained = PaimonTable(DATABASE / "deduplicate", snapshot).scan("dt = '2024-01-02' AND id = 1").explain()
    stages = [s.name for s in explained.stages]
    assert stages[:1] == ["partition"] and "key_statistics" in stages and "whole_bucket" in stages
    files = explained.as_dict()["files"]
    assert {f["skipped_by"] for f in files if f["read"] == "none"} >= {"partition"}
    by_bucket = [f for f in files if f["skipped_by"] not in ("partition", "bucket")]
    assert {f["skipped_by"] for f in by_bucket} == {None, "key_statistics"}
    assert all(f["reason"].split(":")[0] in ("may match", "whole bucket", "key statistics") for f in by_bucket)
    read = [f for f in by_bucket if f["read"] == "all"]
    # (why the bucket is merged whole, not by candidate keys: this file has no index)
    assert len(read) == 1 and read[0]["reason"].endswith(
        "its records merged by key, every key (the file has no index to select records by)")


def test_a_first_row_buckets_reason_says_why_its_keys_are_all_merged_without_claiming_a_combined_row():
    """A first-row row is one record (the first of its key); what keeps its bucket from a read by candidate keys is
    that those are taken for deduplicate tables only."""
    snapshot = max(TABLES["first_row"]["snapshots"])
    files = PaimonTable(DATABASE / "first_row", snapshot).scan("id > 0").explain().as_dict()["files"]
    read = [f["reason"] for f in files if f["read"] == "all"]
    assert read and all(r.endswith("every key (records are selected by their index for deduplicate tables only)")
                        for r in read), read


def test_the_deletion_vector_table_keeps_its_reading():
    """``pk_with_bitmap_dv`` (deletion vectors) is read as before: level 0 skipped, each file above read raw
    with its deletion vector (not by this merge, which refuses the table); with its vectors switched off the
    merge of every level gives the same rows."""
    root = ROOT / "tests" / "tables" / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"
    for snapshot in range(1, 5):
        table = PaimonTable(root, snapshot)
        files = [e for e, _ in table.live()]
        spec = merge_spec(table.schema)
        assert spec.deletion_vectors and spec.skips_level_zero
        decisions = prune_bucket(spec, files)
        assert {d.file.file_name for d in decisions if d.kept} == {f.file_name for f in files if f.level > 0}
        assert all(d.rule == LEVEL for d in decisions if not d.kept)
        planned = table.scan().plan()
        assert all(f.merge is None for f in planned)
        assert {f.file.rsplit("/", 1)[-1] for f in planned if f.to_read} == {f.file_name for f in files if f.level}
        wanted = system_columns(spec) + read_columns(spec, ["key"])
        kv = [key_value_file(e, spec, e.file_name, lambda: iter(())) for e in files]
        assert wanted
        with pytest.raises(UsageError, match="deletion vectors"):
            list(merge_bucket(spec, kv, ["key"]))


@pytest.mark.parametrize("engine", ["deduplicat", "partial_update", "aggregate"])
def test_a_deletion_vector_table_of_no_merge_engine_java_knows_is_refused_not_read_unmerged(tmp_path, engine):
    """Java opens no table of an unknown engine; its compacted files read unmerged gave rows as if it had one."""
    import shutil

    root = tmp_path / "t"
    shutil.copytree(ROOT / "tests" / "tables" / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv", root)
    schema = json.loads((root / "schema" / "schema-0").read_text())
    schema["options"]["merge-engine"] = engine
    (root / "schema" / "schema-0").write_text(json.dumps(schema))
    table = PaimonTable(root)
    for read in (lambda: table.scan().to_arrow(), lambda: table.scan("f0 = 'Bob'").count()):
        with pytest.raises(UsageError, match=f"{root}: merge-engine={engine}: not a merge engine"):
            read()


@pytest.mark.parametrize("column", ["_SEQUENCE_NUMBER", "_VALUE_KIND"])
def test_a_data_file_without_a_system_column_is_refused_naming_the_column(tmp_path, column):
    """Read as nulls, the file was refused for "a null _SEQUENCE_NUMBER at row 0", a column it does not have."""
    import shutil
    from pathlib import Path

    import pyarrow.parquet as pq
    from table_edits import data_manifests, edit_rows

    root = tmp_path / "t"
    shutil.copytree(DATABASE / "deduplicate", root)
    table = PaimonTable(root)
    entry = next(e for e, _ in table.live())
    path = Path(table.store.data_file(entry, table.schema))
    pq.write_table(pq.read_table(path).drop([column]), path)

    def resized(rows: list[dict]) -> None:  # (the manifest's size follows the file: only the column is wrong)
        for row in rows:
            if row["_FILE"]["_FILE_NAME"] == entry.file_name:
                row["_FILE"]["_FILE_SIZE"] = path.stat().st_size
    for manifest in data_manifests(root):
        edit_rows(manifest, resized)
    with pytest.raises(FileIndexError, match=f"{entry.file_name}: no {column} column"):
        PaimonTable(root).scan().to_arrow()


def with_bitmaps(monkeypatch, columns: str) -> None:
    """Each data file given an embedded bitmap index on ``columns`` by this project's writer (Java 0.9.0 writes
    none for a primary-key table)."""
    live = PaimonTable.live

    def indexed(self, keep_manifest=None):
        return [(replace(e, embedded_index=build_data_file_index(self.store.data_file(e, self.schema),
                                                                 {"file-index.bitmap.columns": columns}).held), v)
                for e, v in live(self, keep_manifest)]

    monkeypatch.setattr(PaimonTable, "live", indexed)


@pytest.mark.parametrize("name, indexed", [("deduplicate", "score,name"), ("deduplicate_sequence", "v,ver"),
                                           ("levels_deduplicate", "v,s"), ("deduplicate_levels", "v,s")])
def test_a_deduplicate_bucket_merges_only_the_keys_its_indexes_may_match(name, indexed, monkeypatch):
    """Where every file of a kept bucket has an index answering the predicate, a deduplicate read merges only the
    records of the keys some file's index may match, read from every file of the bucket (their newer records
    included, matching or not), and its rows stay Java's."""
    with_bitmaps(monkeypatch, indexed)
    chosen = []
    original = primary_keys._candidate_keys

    def candidates(*args):
        chosen.append(original(*args))
        return chosen[-1]

    monkeypatch.setattr(primary_keys, "_candidate_keys", candidates)
    snapshot = max(TABLES[name]["snapshots"])
    for java in java_reads(name, snapshot):
        if java["where"] is not None:
            assert our_rows(name, snapshot, java["where"]) == java["rows"], java["where"]
    assert any(found is not None for found in chosen)
    # explain says which buckets were read by candidate keys (as many as the reads that had them)
    by_keys = [f for java in java_reads(name, snapshot) if java["where"] is not None
               for f in PaimonTable(DATABASE / name, snapshot).scan(java["where"]).explain().files
               if f.read == "all" and "merged by key, only the keys of the " in f.reason]
    assert len(by_keys) == sum(found is not None for found in chosen)
    chosen.clear()
    unread = PaimonTable(DATABASE / name, snapshot)  # (the table's indexes not read: every bucket merged whole)
    unread.schema = replace(unread.schema, options={**unread.schema.options, "file-index.read.enabled": "false"})
    for java in java_reads(name, snapshot):
        if java["where"] is not None:
            assert canonical_rows(unread.scan(java["where"]).to_arrow(), unread) == java["rows"], java["where"]
            assert all("every key (file-index.read.enabled=false)" in f.reason
                       for f in unread.scan(java["where"]).explain().files if f.read == "all")
    assert chosen and not any(found is not None for found in chosen)


def test_the_newer_record_of_a_candidate_key_is_merged_and_filtered_out(monkeypatch):
    """Key (2024-01-01, 2) holds score 20 in the compacted file and 999 in a later level-0 file: the compacted
    file's bitmap makes 2 a candidate key of ``score = 20``, the level-0 file's record of it (its index holds no
    20) is read too, wins the merge, and the exact filter drops the row: Java's answer, without the stale row."""
    with_bitmaps(monkeypatch, "score")
    chosen = []
    original = primary_keys._candidate_keys
    monkeypatch.setattr(primary_keys, "_candidate_keys", lambda *args: chosen.append(original(*args)) or chosen[-1])
    snapshot, where = max(TABLES["deduplicate"]["snapshots"]), "score = 20"
    java = next(r for r in java_reads("deduplicate", snapshot) if r["where"] == where)
    rows = our_rows("deduplicate", snapshot, where)
    assert rows == java["rows"] and ["2024-01-01", 2, "n2", 20, True] not in rows
    assert any(found is not None and 2 in found.literals for found in chosen)


@pytest.mark.parametrize(("name", "snapshot"), [(n, s) for n, s in SNAPSHOTS if merge_spec(
    PaimonTable(DATABASE / n).schema).groups and "error" not in java_reads(n, s)[0]])
def test_a_read_of_some_columns_of_a_table_with_sequence_groups_has_the_full_read_s_values(name, snapshot):
    """Java's partial-update merge takes a retraction by the table's sequence groups whatever the read's columns
    (``PartialUpdateMergeFunction.Factory.create(projection)``): a read of no grouped field retracts none, and
    never fails where the full read answers."""
    table = PaimonTable(DATABASE / name, snapshot)
    keys = list(table.schema.primary_keys)
    whole = table.scan().to_arrow()
    for values in [[], *([f.name] for f in table.schema.fields if f.name not in keys)]:  # (the keys alone too)
        assert table.scan(columns=[*keys, *values]).to_arrow().sort_by(keys[0]) == \
            whole.select([*keys, *values]).sort_by(keys[0])
