"""Tier 1 cases whose answers follow from a rule of Java's readers, applied to a container's recorded cases.

* ``NotBetween`` (the literals of the container's first recorded ``Between``): no index type of Java
  answers it (``FileIndexReader.visitNotBetween`` is REMAIN and none overrides it), so REMAIN.
* A null literal on a bitmap: ``BitmapFileIndex`` answers ``visitEqual(null)`` as ``visitIn([null])``,
  the rows of ``IS NULL``, and ``visitNotEqual(null)`` those of ``IS NOT NULL``: the recorded answers
  of the same container's ``IsNull`` and ``IsNotNull``.
* A null literal on a bloom filter: ``BloomFilterFileIndex`` answers REMAIN for a null key.

(bsi and range-bitmap have no rule for a null literal: Java throws or answers null there, so those
cases are in the negative corpus, where an error or REMAIN conforms; nor do TIMESTAMP(7-9) columns,
whose value answers changed with apache/paimon #9654 and #9866.)
"""
from __future__ import annotations

from fileindex.kit.provenance import DERIVED, spec, stamped

REMAIN = {"result": "REMAIN"}
NOT_BETWEEN = "rule: FileIndexReader.visitNotBetween is REMAIN and no index type overrides it"
NULL_BITMAP = "rule: BitmapFileIndex answers = null as IS NULL and <> null as IS NOT NULL (visitIn([null]))"
NULL_BLOOM = "rule: BloomFilterFileIndex answers REMAIN for a null key"


def derived_cases(index_type: str, recorded: list[dict]) -> list[dict]:
    """The cases derived from ``recorded`` (the container's cases, in the kit's shape)."""
    first: dict[str, dict] = {}
    for case in recorded:
        first.setdefault(case["where"]["function"], case)
    derived = []

    def add(source: dict, function: str, literals: list, expected: dict, why: str) -> None:
        where = {**source["where"], "function": function, "literals": literals}
        derived.append(stamped({"where": where, "expected": expected, "source": why}, DERIVED, spec(index_type)))

    if "Between" in first:
        add(first["Between"], "NotBetween", first["Between"]["where"]["literals"], REMAIN, NOT_BETWEEN)
    if any("since" in case for case in recorded):  # TIMESTAMP(7-9): value answers changed with a later fix
        return derived
    if index_type == "bitmap":
        for function, same_as in (("Equal", "IsNull"), ("NotEqual", "IsNotNull")):
            if same_as in first:
                add(first[same_as], function, [None], first[same_as]["expected"], NULL_BITMAP)
    if index_type == "bloom-filter" and "Equal" in first:
        add(first["Equal"], "Equal", [None], REMAIN, NULL_BLOOM)
    return derived
