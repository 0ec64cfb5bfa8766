"""Who produced each expected answer of the corpus, and which part of the format it tests.

Every case says ``expected_from``:

* ``java-recorded``: Java Paimon's own answer, recorded by running it (``tests/vectors/java``);
* ``peer-recorded``: recorded from another implementation's tests (the paimon-cpp facts of Tier 2);
* ``derived-by-rule``: follows from a rule of Paimon's format or evaluation (a negative case, the
  answer after a later Java fix, the rows a full read returns, a hash formula);
* ``copied-from-v1``: a container version 2 case, whose payload and answers are version 1's.

and ``spec``: the page of this project's format reference (``docs/format/``, generated from
``specs/*.ksy``) and the Java class the case exercises.
"""
from __future__ import annotations

JAVA_RECORDED, PEER_RECORDED, DERIVED, COPIED_FROM_V1 = (
    "java-recorded", "peer-recorded", "derived-by-rule", "copied-from-v1")
EXPECTED_FROM = (JAVA_RECORDED, PEER_RECORDED, DERIVED, COPIED_FROM_V1)

CONTAINER = "docs/format/file_index_format.md (org.apache.paimon.fileindex.FileIndexFormat)"
SPECS = {
    "bloom-filter": "docs/format/bloom_filter.md (org.apache.paimon.fileindex.bloomfilter.BloomFilterFileIndex)",
    "bitmap": "docs/format/bitmap.md (org.apache.paimon.fileindex.bitmap.BitmapFileIndex)",
    "bsi": "docs/format/bsi.md (org.apache.paimon.fileindex.bsi.BitSliceIndexBitmapFileIndex)",
    "range-bitmap": "docs/format/range_bitmap.md (org.apache.paimon.fileindex.rangebitmap.RangeBitmapFileIndex)",
}
EVALUATION = "docs/predicates.md (org.apache.paimon.fileindex.FileIndexPredicate, FileIndexResult)"
TABLE = "docs/format/file_index_format.md, docs/predicates.md (org.apache.paimon.io.FileIndexEvaluator)"
HASH = "docs/kit.md#hash-vectors (org.apache.paimon.fileindex.bloomfilter.FastHash)"


def spec(index_type: str | None) -> str:
    """The spec reference of a case on ``index_type`` (the container's, for None or a type Paimon lacks)."""
    return SPECS.get(index_type or "", CONTAINER)


def stamped(case: dict, expected_from: str, reference: str) -> dict:
    """``case`` with its ``expected_from`` and ``spec``."""
    if expected_from not in EXPECTED_FROM:
        raise ValueError(f"expected_from {expected_from!r} is not one of {EXPECTED_FROM}")
    return {**case, "expected_from": expected_from, "spec": reference}
