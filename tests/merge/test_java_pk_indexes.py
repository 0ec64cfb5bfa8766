"""A primary-key table whose file indexes Java wrote: Java Paimon 0.9.0's own ``DataFileIndexWriter`` over each
data file's value rows (``tools/java/PkTables.java``, ``index``: as Paimon 1.x's ``KeyValueDataFileWriter``
does; 0.9.0's writes none), a bitmap on ``cat``, embedded in the manifest entries
(small files; bench_pk's larger ones get sidecars). This project's reader prunes by them
with the whole-bucket rule and returns Java's own rows for each predicate."""
from __future__ import annotations

import pytest
from java_oracle import pk_tables_java

import fileindex.scan.primary_keys as primary_keys
from fileindex import PaimonTable
from fileindex.kit.rows import canonical_rows, sort_rows
from fileindex.merge.pruning import WHOLE_BUCKET
from fileindex.predicate.parser import parse_predicate
from fileindex.reference.predicate_json import predicate_to_json
from fileindex.writing.data_file import build_data_file_index

OPTIONS = {"bucket": "2", "file.format": "parquet", "write-only": "true", "file-index.bitmap.columns": "cat"}
AS_JAVA_09_WRITES = {"file-index.bitmap.columns": "cat", "file-index.bitmap.cat.version": "1"}  # (bitmap V1)
# Key 3 moves from c3 (its compacted file) to 'moved' (a level-0 file): on cat = 'c3' its bucket is read whole (the
# compacted file's index holds c3) and the merged row, now 'moved', is filtered out; a file-by-file pruning would
# drop the level-0 file and return the stale c3 row. 'nowhere' is in no file: every bucket is dropped.
PREDICATES = ["cat = 'c3'", "cat = 'moved'", "cat = 'nowhere'", "cat IN ('moved', 'c1')", "id = 3"]


@pytest.mark.java
def test_java_written_indexes_prune_whole_buckets_and_the_rows_stay_javas(tmp_path, monkeypatch):
    with pk_tables_java() as (_, java):
        root = java.ask({"op": "create", "warehouse": str(tmp_path), "table": "t", "primary_keys": ["id"],
                         "partition_keys": [], "columns": [["id", "INT"], ["name", "STRING"], ["cat", "STRING"]],
                         "options": OPTIONS})["path"]
        steps = [{"op": "commit", "rows": [["+I", i, f"n{i}", f"c{i % 4}"] for i in range(24)]},
                 {"op": "compact"},
                 {"op": "commit", "rows": [["+U", 3, "n3", "moved"], ["+U", 5, "u5", "c1"], ["-D", 8, "n8", "c0"]]}]
        for step in steps:
            assert "snapshot" in java.ask({**step, "table": root, "index": True})
        table = PaimonTable(root)
        types = table.schema.types()
        reads = {where: java.ask({"op": "read", "table": root, "snapshot": table.snapshot.id,
                                  "where": predicate_to_json(parse_predicate(where, types), types)})
                 for where in PREDICATES}
    entries = [entry for entry, _ in table.live()]
    assert {entry.level for entry in entries} == {0, 5} and all(entry.embedded_index for entry in entries)
    for entry in entries:  # Java's index of a key-value file is this project's index of its value column
        built = build_data_file_index(table.store.data_file(entry, table.schema), AS_JAVA_09_WRITES, writer="0.9")
        assert entry.embedded_index == built.held  # (small: in the manifest, below file-index.in-manifest-threshold)
    chosen: dict[str, list] = {}
    original = primary_keys._candidate_keys
    for where, java_read in reads.items():
        monkeypatch.setattr(primary_keys, "_candidate_keys",
                            lambda *args, where=where: chosen.setdefault(where, []).append(original(*args))
                            or chosen[where][-1])
        scan = PaimonTable(root).scan(where)
        assert canonical_rows(scan.to_arrow(), table) == sort_rows(java_read["rows"]), where
    # the kept buckets merged only their candidate keys' records: key 3's too (c3 in the compacted file's index),
    # whose newer record ('moved', in a file whose index holds no c3) won and was filtered out
    assert any(found is not None and 3 in found.literals for found in chosen["cat = 'c3'"])
    moved = PaimonTable(root).scan("cat = 'c3'").explain().files
    read = {f.file: f for f in moved if f.read == "all"}  # (a bucket's reason is said once, on its first file)
    assert any(f.read == "merged" and WHOLE_BUCKET in read[f.reason.split("merged into ")[1]].reason
               for f in moved)  # (the level-0 file read too)
    moving = PaimonTable(root).scan("cat = 'moved'").explain().files  # (bucket 0: no file's index holds it)
    assert any(f.skipped_by == "whole_bucket" for f in moving) and any(f.read == "merged" for f in moving)
    nowhere = PaimonTable(root).scan("cat = 'nowhere'").explain().files
    assert all(f.skipped_by == "whole_bucket" for f in nowhere)  # (string statistics decide nothing here: the index)
