"""The rules of ``prune_bucket`` one by one, on files described by their level and whether each test says they
may match (Java's ``KeyValueFileStoreScan``): which files are dropped, and which rule says so."""
from __future__ import annotations

import pytest

from fileindex.merge.pruning import (
    FILE_INDEX,
    KEY_STATISTICS,
    LEVEL,
    MAY_MATCH,
    MERGED_VALUES,
    NO_PREDICATE,
    VALUE_STATISTICS,
    WHOLE_BUCKET,
    prune_bucket,
)
from fileindex.merge.spec import MergeSpec
from fileindex.table.manifest_entry import ADD, ManifestEntry
from fileindex.types import parse_type

FIELDS = (("id", parse_type("INT NOT NULL")), ("v", parse_type("INT")))


def spec(engine: str = "deduplicate", **options) -> MergeSpec:
    return MergeSpec(engine, ("id",), FIELDS, **options)


def files(*levels: int) -> list[ManifestEntry]:
    return [ManifestEntry(ADD, b"", 0, level, f"f{i}-L{level}", 10, 0, (), None, None, None, None, i)
            for i, level in enumerate(levels)]


def answers(names: set[str]):
    """A test: the files named in ``names`` may match."""
    return lambda file: file.file_name.split("-")[0] in names


def decide(spec_, found, **tests):
    return [(d.kept, d.rule) for d in prune_bucket(spec_, found, **tests)]


def test_without_a_predicate_every_file_is_read():
    assert decide(spec(), files(0, 5)) == [(True, NO_PREDICATE)] * 2


def test_key_statistics_drop_files_one_by_one():
    assert decide(spec(), files(0, 0, 5), key_test=answers({"f0", "f2"})) == \
        [(True, MAY_MATCH), (False, KEY_STATISTICS), (True, MAY_MATCH)]


def test_overlapping_files_are_dropped_only_all_together():
    found = files(0, 5)
    assert decide(spec(), found, value_test=answers({"f0"})) == [(True, WHOLE_BUCKET)] * 2
    assert decide(spec(), found, value_test=answers(set())) == [(False, WHOLE_BUCKET)] * 2
    # (a file index answers like the statistics; file-index.read.enabled=false: not asked)
    assert decide(spec(), found, value_test=answers({"f0", "f1"}), index_test=answers(set())) == \
        [(False, WHOLE_BUCKET)] * 2
    assert decide(spec(file_index_read=False), found, value_test=answers({"f0"}), index_test=answers(set())) == \
        [(True, WHOLE_BUCKET)] * 2


@pytest.mark.parametrize("levels", [(5,), (3, 3, 3)])
def test_files_that_do_not_overlap_are_judged_one_by_one(levels):
    found = files(*levels)
    decided = decide(spec(), found, value_test=answers({"f0", "f1"}), index_test=answers({"f0"}))
    assert decided[0] == (True, MAY_MATCH)
    assert decided[1:] == [(False, FILE_INDEX), (False, VALUE_STATISTICS)][:len(levels) - 1]


@pytest.mark.parametrize("engine", ["partial-update", "aggregation"])
def test_merged_values_keep_every_overlapping_file(engine):
    assert decide(spec(engine), files(0, 5), value_test=answers(set())) == [(True, MERGED_VALUES)] * 2
    assert decide(spec(engine), files(5), value_test=answers(set())) == [(False, VALUE_STATISTICS)]
    assert decide(spec(engine, deletion_vectors=True), files(4, 5), value_test=answers(set())) == \
        [(False, VALUE_STATISTICS)] * 2


def test_first_row_and_deletion_vector_tables_skip_level_zero_and_judge_files_one_by_one():
    for table in (spec("first-row"), spec(deletion_vectors=True)):
        found = files(0, 4, 5)
        assert decide(table, found) == [(False, LEVEL), (True, NO_PREDICATE), (True, NO_PREDICATE)]
        assert decide(table, found, value_test=answers({"f0", "f1"})) == \
            [(False, LEVEL), (True, MAY_MATCH), (False, VALUE_STATISTICS)]


def test_a_key_filter_can_leave_one_file_which_is_then_judged_alone():
    """Key statistics first: the one file left holds every version of the keys the predicate allows."""
    assert decide(spec(), files(0, 5), key_test=answers({"f1"}), value_test=answers(set())) == \
        [(False, KEY_STATISTICS), (False, VALUE_STATISTICS)]
