"""Plain-data views of parsed structures, so the Kaitai and Construct parsers compare field by field."""
from __future__ import annotations

import construct
from kaitaistruct import KaitaiStruct


def kaitai_tree(obj):
    if isinstance(obj, KaitaiStruct):
        return {name: kaitai_tree(getattr(obj, name)) for name in obj.SEQ_FIELDS if hasattr(obj, name)}
    if isinstance(obj, list):
        return [kaitai_tree(item) for item in obj]
    return obj


def construct_tree(obj):
    if isinstance(obj, construct.Container):
        return {k: construct_tree(v) for k, v in obj.items() if not k.startswith("_")}
    if isinstance(obj, construct.ListContainer):
        return [construct_tree(item) for item in obj]
    return obj


def without_none(tree):
    """Drop fields a parser left unset (Kaitai) or set to None (Construct) because an `if` skipped them."""
    if isinstance(tree, dict):
        return {k: without_none(v) for k, v in tree.items() if v is not None}
    if isinstance(tree, list):
        return [without_none(v) for v in tree]
    return tree


def mutated_payloads(payload: bytes, seed: int, count: int = 500):
    """Copies of ``payload`` with 1-3 random bytes replaced, a third of them also cut short."""
    import random

    rng = random.Random(seed)
    for _ in range(count):
        mutated = bytearray(payload)
        for _ in range(rng.randint(1, 3)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        yield bytes(mutated[:rng.randint(0, len(mutated))]) if rng.random() < 0.3 else bytes(mutated)
