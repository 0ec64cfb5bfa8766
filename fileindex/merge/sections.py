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
from collections.abc import Sequence
from dataclasses import dataclass

from fileindex.merge.layout import Key, KeyValueFile
from fileindex.merge.spec import FIRST_ROW, MergeSpec

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
