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
