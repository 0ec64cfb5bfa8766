"""Which files of a bucket a batch scan reads, and how (Paimon 0.9.0's ``DataTableBatchScan``,
``MergeTreeSplitGenerator``, ``IntervalPartition``):

* deletion-vector and first-row tables read only files above level 0;
* a bucket whose files are all above level 0 with no retraction rows is read raw, file by file, without a
  merge, when they lie on one level, or always for deletion-vector and first-row tables;
* otherwise its files fall into sections of overlapping key ranges (sorted by smallest key, then largest), and
  each section into sorted runs: files of disjoint key ranges read one after another. Sections are merged one
  after another; a key lies in one section only.
"""
from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from fileindex.errors import UsageError
from fileindex.merge.layout import Key, KeyValueFile, decode_key
from fileindex.merge.spec import FIRST_ROW, ORDERED, MergeSpec, key_fields
from fileindex.table.errors import TableError
from fileindex.table.manifest_entry import ManifestEntry
from fileindex.table.metadata import Schema

Run = tuple[KeyValueFile, ...]  # files of disjoint key ranges, in key order


@dataclass(frozen=True)
class Section:
    runs: tuple[Run, ...]

    @property
    def files(self) -> tuple[KeyValueFile, ...]:
        return tuple(f for run in self.runs for f in run)


def scanned(spec: MergeSpec, files: Sequence[KeyValueFile]) -> list[KeyValueFile]:
    """The files of a bucket a batch scan reads."""
    return [f for f in files if f.level > 0] if spec.skips_level_zero else list(files)


def refuse_unmerged_misreads(schema: Schema, entries: Sequence[ManifestEntry], where: str) -> None:
    """Refuse the files above level 0 of a deletion-vector table, read one by one without a merge, where that read
    would be wrong: a file recording retraction rows (a UsageError: Java merges its bucket, this reader does not; read
    raw, a -D came out as a row), or two files of a bucket's level whose recorded key ranges overlap (a TableError: a
    level above 0 is one sorted run, as Java's ``SortedRun.validate`` checks; read raw, a key came out of both, an
    old version beside the new). Files whose key range does not decode are not compared, nor floating keys (Java's
    order of -0.0, 0.0 and NaN is not Python's)."""
    types = schema.types()
    key_types = [types[k] for k in key_fields(schema)]
    ordered = all(t.root in ORDERED for t in key_types)
    levels: dict[tuple, list[tuple[Key, Key, ManifestEntry]]] = {}
    for entry in entries:
        if entry.level > 0 and entry.delete_row_count:
            raise UsageError(f"{where}: data file {entry.file_name} (bucket {entry.bucket}, level {entry.level}) "
                             f"records {entry.delete_row_count} retraction rows (-U, -D): a deletion-vector table's "
                             "bucket holding one above level 0 is merged by key, which this reader does not do for "
                             "deletion-vector tables (not read here)")
        low, high = decode_key(entry.min_key, key_types), decode_key(entry.max_key, key_types)
        if entry.level > 0 and ordered and low is not None and high is not None:
            levels.setdefault((entry.partition, entry.bucket, entry.level), []).append((low, high, entry))
    for files in levels.values():
        files.sort(key=lambda item: item[0])
        for (low, high, before), (next_low, next_high, after) in itertools.pairwise(files):
            if not next_low > high:
                raise TableError(f"{where}: data files {before.file_name} (keys {low!r} to {high!r}) and "
                                 f"{after.file_name} (keys {next_low!r} to {next_high!r}) of bucket {after.bucket} "
                                 f"overlap on level {after.level}: a level above 0 holds a key once (malformed "
                                 "metadata)")


def read_raw(spec: MergeSpec, files: Sequence[KeyValueFile]) -> bool:
    """Whether the bucket's files are read raw, without a merge (``MergeTreeSplitGenerator.splitForBatch``)."""
    if not all(f.level != 0 and f.without_retractions for f in files):
        return False
    return spec.deletion_vectors or spec.engine == FIRST_ROW or len({f.level for f in files}) <= 1


def sections(files: Sequence[KeyValueFile]) -> list[Section]:
    """``IntervalPartition``: the files in sections of overlapping key ranges, each in sorted runs. A file whose
    key range is not known makes the bucket one section of single-file runs (correct, only slower)."""
    if not files:
        return []
    ranges = [(f.min_key, f.max_key, f) for f in files if f.min_key is not None and f.max_key is not None]
    if len(ranges) < len(files):
        return [Section(tuple((f,) for f in files))]
    found: list[Section] = []
    section: list[tuple[Key, Key, KeyValueFile]] = []
    bound: Key = ()
    for low, high, file in sorted(ranges, key=lambda item: (item[0], item[1])):
        if section and low > bound:
            found.append(Section(_runs(section)))
            section = []
        if not section or high > bound:
            bound = high
        section.append((low, high, file))
    found.append(Section(_runs(section)))
    return found


def _runs(files: list[tuple[Key, Key, KeyValueFile]]) -> tuple[Run, ...]:
    """Files sorted by key range into the fewest sorted runs the greedy rule finds: each file goes after the
    run that ends first, when it starts after that run's end."""
    heap: list[tuple[Key, int, list[KeyValueFile]]] = []  # (the run's largest key, a tie-breaker, its files)
    for number, (low, high, file) in enumerate(files):
        if heap and low > heap[0][0]:
            _, tie, run = heapq.heappop(heap)
            run.append(file)
            heapq.heappush(heap, (high, tie, run))
        else:
            heapq.heappush(heap, (high, number, [file]))
    return tuple(tuple(run) for _, _, run in sorted(heap, key=lambda item: item[1]))
