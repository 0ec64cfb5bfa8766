"""Tier 1 cases whose answers follow from a rule of Paimon's evaluation, not from a Java recording.

``multi__or_bitmap_bloom``: a container of a bitmap V1 on ``k`` and a bloom filter on ``name``,
written by this project (bloom-filter and bitmap V1 bytes are Java's: the kit's write checks show
it), and ORs across the two. ``FileIndexResult.or`` keeps the rows of both sides and remains when
either side remains. Java 0.9.0 answers these unsoundly (its ``BitmapIndexResultLazy.or`` calls
``FileIndexResult.and`` when the other side is not a bitmap's result): the cause of the "planned no
file for k = 1 OR name = 'n00003'" report (docs/divergences.md).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fileindex import __version__
from fileindex.container.file import FileIndexContainer
from fileindex.container.writer import write_container
from fileindex.indexes.registry import INDEX_TYPES
from fileindex.kit.corpus import dump_json, head_entries, layout_name, predicate_columns, sha256
from fileindex.kit.provenance import DERIVED, EVALUATION, stamped
from fileindex.types import parse_type

NAME = "multi__or_bitmap_bloom"
K = [1, 2, 3, 4, 5, 6]
NAMES = [f"n{i:05d}" for i in K]
BLOOM_OPTIONS = {"items": "6", "fpp": "0.01"}
RULE = "FileIndexResult.or: the union of two row sets; REMAIN when either side remains"


def _equal(column: str, data_type: str, literal: Any) -> dict:
    return {"function": "Equal", "column": column, "type": data_type, "literals": [literal]}


def _or(*children: dict) -> dict:
    return {"function": "Or", "children": list(children)}


# (predicate, expected): n00003 is in the bloom filter (REMAIN); n00009 is not (SKIP, no false positive)
CASES = [
    (_or(_equal("k", "INT", 1), _equal("name", "STRING", "n00003")), {"result": "REMAIN"}),
    (_or(_equal("k", "INT", 1), _equal("name", "STRING", "n00009")), {"result": "ROWS", "ranges": [[0, 0]]}),
    (_or(_equal("k", "INT", 9), _equal("name", "STRING", "n00003")), {"result": "REMAIN"}),
    (_equal("name", "STRING", "n00009"), {"result": "SKIP"}),
    (_equal("k", "INT", 1), {"result": "ROWS", "ranges": [[0, 0]]}),
]


def add_rule_cases(add: Callable[[str, bytes], None]) -> int:
    """The container, its dataset and its sidecar into the corpus; the number of containers added."""
    bitmap = INDEX_TYPES["bitmap"].build(K, parse_type("INT"), {"version": "1"})
    bloom = INDEX_TYPES["bloom-filter"].build(NAMES, parse_type("STRING"), BLOOM_OPTIONS)
    data = write_container({"k": {"bitmap": bitmap}, "name": {"bloom-filter": bloom}})
    container = FileIndexContainer.from_bytes(data)
    layouts = {"k": layout_name("bitmap", bitmap), "name": layout_name("bloom-filter", bloom)}
    cases = [stamped({"where": where, "expected": expected, "source": f"rule: {RULE} (not recorded from Java)",
                      "layouts": sorted({layouts[c] for c in predicate_columns(where)})}, DERIVED, EVALUATION)
             for where, expected in CASES]
    add(f"datasets/{NAME.removeprefix('multi__')}.json", dump_json({
        "name": NAME.removeprefix("multi__"), "row_count": len(K),
        "columns": [{"name": "k", "type": "INT", "values": K}, {"name": "name", "type": "STRING", "values": NAMES}],
        "index_config": [{"column": "k", "index_type": "bitmap", "options": {"version": "1"}},
                         {"column": "name", "index_type": "bloom-filter", "options": BLOOM_OPTIONS}]}))
    add(f"containers/multi/{NAME}.index", data)
    add(f"containers/multi/{NAME}.json", dump_json({
        "name": NAME, "tier": 1, "container_version": 1, "status": "released", "layout": "multi-column",
        "writer": {"implementation": "python", "version": f"paimon-fileindex {__version__}"},
        "file": f"{NAME}.index", "sha256": sha256(data), "head": head_entries(container),
        "dataset": f"datasets/{NAME.removeprefix('multi__')}.json", "layouts": sorted(set(layouts.values())),
        "empty_is_skip": True, "cases": cases,
        "note": "an OR across a bitmap and a bloom filter; Java 0.9.0 answers it as an AND"}))
    return 1

