"""Which files of one bucket of a primary-key table a predicate lets a batch scan drop, as Java's
``KeyValueFileStoreScan`` decides (current Paimon; 0.9.0 is the same without the file index), and never more.
Partitions and buckets are the planner's; the rows a scan returns are the merged rows filtered exactly, so
these rules only decide what need not be read:

1. **level**: a deletion-vector or first-row table's batch scan skips level 0;
2. **value statistics / file index, per file** for those tables (their files above level 0 hold each key once):
   the file's value statistics, then its embedded index when ``file-index.read.enabled``;
3. **key statistics**, per file: the predicate's conjuncts over the primary key (without partition keys)
   against the file's key statistics: a file none of whose keys can match holds no version of a matching row;
4. **whole bucket**, by values: where the files left do not overlap (one file, or all on one level above 0:
   each key once), per file as in 2; where they overlap, a newer version of a row may sit in a file whose
   values cannot match while an older one matches: partial-update and aggregation tables without deletion
   vectors keep every file (a merged row takes values from several records), the others drop the bucket
   only when no file of it can match, and otherwise keep it whole.

A rule that drops a file says so in :class:`FileDecision` (for ``explain()``); a kept file says why it could
not be dropped. The tests are callables (True: the file may hold a matching row) so the planner can answer
them with its memos; ``key_statistics_test``, ``value_statistics_test`` and ``embedded_index_test`` build them
from a predicate.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fileindex.container.file import embedded_container
from fileindex.errors import FileIndexError
from fileindex.indexes.result import SKIP
from fileindex.merge.spec import MergeSpec
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.tree import Predicate, and_, columns, conjuncts
from fileindex.table.evolution import remap_predicate
from fileindex.table.manifest_entry import ManifestEntry
from fileindex.table.metadata import Schema
from fileindex.table.statistics import Statistics, file_statistics, timestamp_bounds_trusted

FileTest = Callable[[ManifestEntry], bool]  # whether the file may hold a row the predicate matches

LEVEL, KEY_STATISTICS, VALUE_STATISTICS, FILE_INDEX = "level", "key statistics", "value statistics", "file index"
WHOLE_BUCKET, MERGED_VALUES, MAY_MATCH, NO_PREDICATE = "whole bucket", "merged values", "may match", "no predicate"


@dataclass(frozen=True)
class FileDecision:
    """One file's fate: ``rule`` the rule that decided it (one of the names above), ``reason`` in words."""

    file: ManifestEntry
    kept: bool
    rule: str
    reason: str


def prune_bucket(spec: MergeSpec, files: Sequence[ManifestEntry], *, key_test: FileTest | None = None,
                 value_test: FileTest | None = None, index_test: FileTest | None = None) -> list[FileDecision]:
    """The decision on each of one bucket's live files, in order. ``key_test``: the key statistics test (None:
    the predicate says nothing of the key); ``value_test``: the value statistics test and ``index_test`` the
    embedded file index's (both None: no predicate on values); ``index_test`` is used only with
    ``file-index.read.enabled``."""
    values = _ValueFilter(spec, value_test, index_test)
    decided: dict[int, FileDecision] = {}
    alive: list[int] = []
    for i, file in enumerate(files):
        if spec.skips_level_zero and file.level == 0:
            decided[i] = FileDecision(file, False, LEVEL, "level 0: a batch scan of a deletion-vector or first-row "
                                                          "table reads only compacted files")
        elif spec.skips_level_zero and values.present and (failed := values.failing(file)):
            decided[i] = FileDecision(file, False, failed, f"its {failed} rule out every row (its keys are unique "
                                                           "above level 0)")
        elif key_test is not None and not key_test(file):
            decided[i] = FileDecision(file, False, KEY_STATISTICS, "its key statistics rule out every key the "
                                                                   "predicate allows")
        else:
            alive.append(i)
    for i, decision in _whole_bucket(spec, [files[i] for i in alive], values, key_test is not None):
        decided[alive[i]] = decision
    return [decided[i] for i in range(len(files))]


class _ValueFilter:
    """The value filter of Java's ``filterByValueFilter``: statistics, then the embedded index; answers memoized."""

    def __init__(self, spec: MergeSpec, value_test: FileTest | None, index_test: FileTest | None):
        self.value_test = value_test
        self.index_test = index_test if spec.file_index_read else None
        self.present = value_test is not None or self.index_test is not None
        self.answers: dict[int, str | None] = {}

    def failing(self, file: ManifestEntry) -> str | None:
        """The rule that rules the file out (None: it may match)."""
        key = id(file)
        if key not in self.answers:
            if self.value_test is not None and not self.value_test(file):
                self.answers[key] = VALUE_STATISTICS
            elif self.index_test is not None and not self.index_test(file):
                self.answers[key] = FILE_INDEX
            else:
                self.answers[key] = None
        return self.answers[key]


def _whole_bucket(spec: MergeSpec, files: list[ManifestEntry], values: _ValueFilter,
                  keyed: bool) -> list[tuple[int, FileDecision]]:
    """``postFilterManifestEntries`` over the files the per-file rules left."""
    if not values.present:
        why = "no predicate on the key rules it out" if keyed else "no condition on keys or values to prune by"
        return [(i, FileDecision(f, True, MAY_MATCH if keyed else NO_PREDICATE, why)) for i, f in enumerate(files)]
    if not_overlapping(files):
        found = []
        for i, file in enumerate(files):
            failed = values.failing(file)
            found.append((i, FileDecision(file, False, failed, f"its {failed} rule out every row; the bucket's "
                                                               "files do not overlap, so it holds each key once")
                          if failed else FileDecision(file, True, MAY_MATCH, "its values may match (the bucket's "
                                                                             "files do not overlap)")))
        return found
    if spec.merges_values and not spec.deletion_vectors:
        return [(i, FileDecision(f, True, MERGED_VALUES, f"the {spec.engine} engine merges a row from several "
                                                         "records' values, so no file is dropped by values"))
                for i, f in enumerate(files)]
    matching = next((f for f in files if values.failing(f) is None), None)
    if matching is None:
        return [(i, FileDecision(f, False, WHOLE_BUCKET, "no file of the bucket may match: it is dropped whole"))
                for i, f in enumerate(files)]
    return [(i, FileDecision(f, True, WHOLE_BUCKET, f"the bucket's files overlap and {matching.file_name} may "
                                                    "match, so none of them is dropped"))
            for i, f in enumerate(files)]


def not_overlapping(files: Sequence[ManifestEntry]) -> bool:
    """Java's ``noOverlapping``: one file at most, or all of them on one level above 0."""
    return len(files) <= 1 or (files[0].level > 0 and all(f.level == files[0].level for f in files))


# -- the tests, from a predicate ---------------------------------------------------------------------------

def key_predicate(spec: MergeSpec, predicate: Predicate) -> Predicate | None:
    """Java's key filter: the predicate's conjuncts over the primary key fields without the partition keys."""
    keys = set(spec.keys)
    found = [c for c in conjuncts(predicate) if set(columns(c)) <= keys]
    return and_(*found) if found else None


def key_statistics_test(spec: MergeSpec, predicate: Predicate) -> FileTest | None:
    """The key statistics test of ``predicate`` (None: it has no conjunct over the key alone)."""
    over_keys = key_predicate(spec, predicate)
    if over_keys is None:
        return None
    types = spec.types()
    return lambda file: Statistics(file.key_stats, spec.keys, types, file.row_count,
                                   timestamps=timestamp_bounds_trusted(file.file_name)).may_match(over_keys)


def value_statistics_test(table: Schema, schema_of: Callable[[ManifestEntry], Schema],
                          predicate: Predicate) -> FileTest:
    """A file's value statistics against ``predicate`` (in the table's schema), rewritten for the file's schema
    (``schema_of``); a column the file lacks reads as all null, as Java's statistics evolution answers it."""
    def may_match(file: ManifestEntry) -> bool:
        schema = schema_of(file)
        remapped = remap_predicate(predicate, table, schema, absent_as_null=True)
        if remapped.matches_nothing:
            return False
        return remapped.predicate is None or file_statistics(file, schema).may_match(remapped.predicate)
    return may_match


def embedded_index_test(table: Schema, schema_of: Callable[[ManifestEntry], Schema], predicate: Predicate) -> FileTest:
    """A file's embedded index against ``predicate``, as Java's scan asks it (``filterByFileIndex``: sidecars are
    not read when planning); a file without one, or one that does not read, may match."""
    def may_match(file: ManifestEntry) -> bool:
        if file.embedded_index is None:
            return True
        schema = schema_of(file)
        remapped = remap_predicate(predicate, table, schema)
        if remapped.predicate is None:
            return not remapped.matches_nothing
        try:
            result = FileIndexEvaluator(schema.types()).evaluate(embedded_container(file.embedded_index),
                                                                 remapped.predicate)
        except FileIndexError:
            return True
        return result is not SKIP and result.remain()
    return may_match
