"""Offsets in a Kaitai diagram (the compiler's Graphviz output) drawn only where they are fixed.

kaitai-struct-compiler's graphviz target counts a seq field's position and a user type's size as if every
field were present: a field with ``if:`` moves the fields after it (bitmap's header is 10 bytes in version 1
without nulls, 22 at most), yet the diagram drew ``num_blocks`` at 18 and ``v1_entries`` at 22. This pass makes
``...`` of every position after a field of variable presence or size, and of the size of a field whose type
holds one; ``tools/regenerate.py`` applies it before Graphviz draws the SVG."""
from __future__ import annotations

import re
from itertools import pairwise

FIXED_POS = r'(<TD PORT="{id}_pos">)\d+(</TD>)'
FIXED_SIZE = r'(<TD PORT="{id}_size">)\d+(</TD>)'
CLUSTER = re.compile(r"^\s*subgraph cluster__(\w+) \{$", re.MULTILINE)


def all_types(spec: dict) -> dict[str, dict]:
    """Every type of a spec by its name (the root by its id), nested types included."""
    found = {spec["meta"]["id"]: spec}
    for name, body in (spec.get("types") or {}).items():
        found |= {name: body} | {k: v for k, v in all_types({"meta": {"id": name}, **body}).items() if k != name}
    return found


def variable_types(types: dict[str, dict]) -> set[str]:
    """The types whose size depends on their content through a field of variable presence (``if:``), or of a
    type that is such a type (found until nothing changes)."""
    variable: set[str] = set()
    while True:
        more = {name for name, body in types.items()
                if any(_moves(field, variable) for field in body.get("seq") or ())}
        if more <= variable:
            return variable
        variable |= more


def unfixed(dot: str, spec: dict) -> str:
    """``dot`` with the positions after a field of variable presence or size, and the sizes of fields of a
    variable type, drawn as ``...``."""
    types = all_types(spec)
    variable = variable_types(types)
    starts = [(match.start(), match.group(1)) for match in CLUSTER.finditer(dot)] + [(len(dot), "")]
    pieces = [dot[:starts[0][0]]]
    for (start, name), (end, _) in pairwise(starts):
        pieces.append(_unfixed_cluster(dot[start:end], types.get(name, {}), variable))
    return "".join(pieces)


def _unfixed_cluster(text: str, body: dict, variable: set[str]) -> str:
    movers: list[dict] = []  # the fields so far that may be absent or of another size
    for field in body.get("seq") or ():
        if movers and not _present_together(field, movers, variable):
            text = re.sub(FIXED_POS.format(id=re.escape(field["id"])), r"\1...\2", text)
        if _type(field) in variable:
            text = re.sub(FIXED_SIZE.format(id=re.escape(field["id"])), r"\1...\2", text)
        if _moves(field, variable):
            movers.append(field)
    return text


def _present_together(field: dict, movers: list[dict], variable: set[str]) -> bool:
    """Whether ``field`` is present exactly when every field before it that moves it is, all of a fixed size (bsi's
    ``min`` after ``version``, each ``if: has_index``): where it is present at all, its position is fixed."""
    return "if" in field and all(mover.get("if") == field["if"] and _type(mover) not in variable for mover in movers)


def _type(field: dict) -> str | None:
    """A field's user type by name (None for a switch, a size alone)."""
    kind = field.get("type")
    return kind if isinstance(kind, str) else None


def _moves(field: dict, variable: set[str]) -> bool:
    """Whether the fields after ``field`` lie at a position its content decides: it may be absent, or its type's
    size varies."""
    return "if" in field or _type(field) in variable
