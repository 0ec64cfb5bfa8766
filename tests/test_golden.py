"""Every line of golden.txt for the implemented layouts: hashes, Roaring bytes, payload bytes, SHA-256s."""
import hashlib
import re
from decimal import Decimal

import pytest
from conftest import golden
from pyroaring import BitMap

from fileindex.indexes import roaring
from fileindex.indexes.bitmap import writer as bitmap
from fileindex.indexes import bloom_filter, bsi, range_bitmap
from fileindex.java.fast_hash import hash_value
from fileindex.types import parse_type
from fileindex.values import Timestamp

GOLDEN = golden()
T = Timestamp(1700000000123, 456789)


def lines(prefix):
    return [(k, v) for k, v in GOLDEN.items() if k.startswith(prefix)]


FASTHASH_TYPES = {"int": "INT", "bigint": "BIGINT", "tinyint": "TINYINT", "smallint": "SMALLINT", "float": "FLOAT",
                  "double": "DOUBLE", "string": "STRING", "bytes": "BYTES", "date": "DATE",
                  "timestamp3": "TIMESTAMP(3)", "timestamp6": "TIMESTAMP(6)", "timestamp9": "TIMESTAMP(9)",
                  "ltz6": "TIMESTAMP(6) WITH LOCAL TIME ZONE"}


def fasthash_input(kind: str, text: str):
    if kind in ("timestamp3", "timestamp6", "timestamp9", "ltz6"):
        millis, nanos = re.fullmatch(r"(-?\d+)ms\+(\d+)ns", text).groups()
        return Timestamp(int(millis), int(nanos))
    if kind in ("float", "double"):
        return float(text)
    if kind == "string":
        return text
    if kind == "bytes":
        return bytes(int(x) for x in text.strip("[]").split(",") if x)
    return int(text)


@pytest.mark.parametrize("name, value", lines("fasthash."), ids=lambda x: str(x)[:40])
def test_fasthash(name, value):
    kind, text = re.fullmatch(r"fasthash\.(\w+)\((.*)\)", name).groups()
    assert hash_value(fasthash_input(kind, text), parse_type(FASTHASH_TYPES[kind])) == int(value)


def test_timestamp_micros_floor():
    assert Timestamp(-1, 999999).micros == int(GOLDEN["timestamp(-1ms+999999ns).toMicros"])


@pytest.mark.parametrize("name, value", lines("rb32["), ids=lambda x: str(x)[:40])
def test_roaring_serialization(name, value):
    inside = name[len("rb32["):name.index("]")]
    if ".." in inside:
        low, high = inside.split("..")
        if low.startswith("even"):
            rows = range(0, int(high) + 1, 2)
        else:
            rows = range(int(low), int(high) + 1)
    else:
        rows = [int(x) for x in inside.split(",") if x.strip()]
    data = roaring.serialize(BitMap(rows))
    if name.endswith(".len"):
        length, rest = value.split(" ", 1)
        assert len(data) == int(length.split("=")[-1] if "=" in length else length)
        expected_hex = rest.split("=", 1)[1]
        assert data.hex().startswith(expected_hex)
    else:
        assert data.hex() == value


BITMAP_INPUTS = {
    "int[0,1,null]": ("INT", [0, 1, None]),
    "string[a,null,b,null,a]": ("STRING", ["a", None, "b", None, "a"]),
    "int[null,null,null]": ("INT", [None] * 3),
    "int[]": ("INT", []),
    "bool[T,F,T,F,null]": ("BOOLEAN", [True, False, True, False, None]),
    "bigint[5,5,-1,null,7]": ("BIGINT", [5, 5, -1, None, 7]),
    "ts3[t,t,null]": ("TIMESTAMP(3)", [T, T, None]),
    "ts6[t]": ("TIMESTAMP(6)", [T]),
    "double[1.5,-0.0,0.0,1.5]": ("DOUBLE", [1.5, -0.0, 0.0, 1.5]),
    "smallint[3,3,3]": ("SMALLINT", [3, 3, 3]),
    "string[x,y,z,x,y,z,aa,bb]": ("STRING", list("xyzxyz") + ["aa", "bb"]),
    "int[1,1,null,2,null,2,3]": ("INT", [1, 1, None, 2, None, 2, 3]),
}


@pytest.mark.parametrize("name, value", lines("bitmap."), ids=lambda x: str(x)[:40])
def test_bitmap_payloads(name, value):
    version, rest = re.fullmatch(r"bitmap\.v(\d)\.(.*)", name).groups()
    if rest == "bs16.oversize":
        with pytest.raises(Exception, match="index fail"):
            bitmap.build(["x" * 9], parse_type("STRING"), {"index-block-size": "16b"})
        return
    options = {"version": version}
    if rest.startswith("bs20."):
        options["index-block-size"] = "20b"
        type_name, values = "INT", [10, 20, 30, 10, 20, 40, 50]
    else:
        type_name, values = BITMAP_INPUTS[rest]
    assert bitmap.build(values, parse_type(type_name), options).hex() == value


BSI_INPUTS = {
    "bsi.int[1,2,null,-2,-2,-1,null,2,0,5,null]": ("INT", [1, 2, None, -2, -2, -1, None, 2, 0, 5, None]),
    "bsi.int[0,0]": ("INT", [0, 0]),
    "bsi.int[null]": ("INT", [None]),
    "bsi.int[]": ("INT", []),
    "bsi.decimal(10,2)[1.23,-4.56,null]": ("DECIMAL(10, 2)", [Decimal("1.23"), Decimal("-4.56"), None]),
}


@pytest.mark.parametrize("name", sorted(BSI_INPUTS))
def test_bsi_payloads(name):
    type_name, values = BSI_INPUTS[name]
    assert bsi.build(values, parse_type(type_name)).hex() == GOLDEN[name]


@pytest.mark.parametrize("name, value", lines("bloom."), ids=lambda x: str(x)[:40])
def test_bloom_lines(name, value):
    if name.startswith("bloom.params"):
        return  # tests/test_bloom_filter.py
    if name == "bloom.default.len":
        payload = bloom_filter.build([], parse_type("BIGINT"))
        assert f"{len(payload)} k={payload[3]}" == value
        return
    cases = {
        "bloom.int.items10.fpp0.1[1,2,3,null,100]": ("INT", [1, 2, 3, None, 100], "10", "0.1"),
        "bloom.string.items20.fpp0.05[a,hello,'',null]": ("STRING", ["a", "hello", "", None], "20", "0.05"),
        "bloom.bigint.items8.fpp0.3[]": ("BIGINT", [], "8", "0.3"),
    }
    type_name, values, items, fpp = cases[name]
    assert bloom_filter.build(values, parse_type(type_name), {"items": items, "fpp": fpp}).hex() == value


BIG = {
    "mod3": lambda i: None if i % 7 == 0 else i % 3,
    "runs": lambda i: i // 70000,
    "ident": lambda i: None if i % 11 == 0 else i - 50000,
    "mod1000": lambda i: (i * 7919) % 1000,
}
RANGE_BITMAP_INPUTS = {
    "rangebitmap.int[1,3,5,7,9,null,null,10]": ("INT", [1, 3, 5, 7, 9, None, None, 10], {}),
    "rangebitmap.int[null,null,null,null,null]": ("INT", [None] * 5, {}),
    "rangebitmap.int[]": ("INT", [], {}),
    "rangebitmap.int[7]": ("INT", [7], {}),
    "rangebitmap.int.chunk8[5,1,4,2,3,null]": ("INT", [5, 1, 4, 2, 3, None], {"chunk-size": "8b"}),
    "rangebitmap.string[b,a,c,a,null]": ("STRING", ["b", "a", "c", "a", None], {}),
    "rangebitmap.string.chunk12[dd,a,ccc,bb,e]": ("STRING", ["dd", "a", "ccc", "bb", "e"], {"chunk-size": "12b"}),
    "rangebitmap.tinyint[3,1,2,1]": ("TINYINT", [3, 1, 2, 1], {}),
    "rangebitmap.bool[true,false,null]": ("BOOLEAN", [True, False, None], {}),
    "rangebitmap.double[2.5,-1.0,2.5]": ("DOUBLE", [2.5, -1.0, 2.5], {}),
}


@pytest.mark.parametrize("name, value", lines("rangebitmap."), ids=lambda x: str(x)[:40])
def test_range_bitmap_payloads(name, value):
    type_name, values, options = RANGE_BITMAP_INPUTS[name]
    assert range_bitmap.build(values, parse_type(type_name), options).hex() == value


BUILDERS = {"bitmap.v1": lambda v: bitmap.build(v, parse_type("INT"), {"version": "1"}),
            "bitmap.v2": lambda v: bitmap.build(v, parse_type("INT"), {"version": "2"}),
            "bsi": lambda v: bsi.build(v, parse_type("INT")),
            "rangebitmap": lambda v: range_bitmap.build(v, parse_type("INT"))}


@pytest.mark.parametrize("name, value", [(k, v) for k, v in lines("big.") if k[4:].rsplit(".", 1)[0] in BUILDERS])
def test_200k_row_payload_hashes(name, value):
    assert name[4:].rsplit(".", 1)[0] in BUILDERS
    index, recipe = name[4:].rsplit(".", 1)
    values = [BIG[recipe](i) for i in range(200_000)]
    assert hashlib.sha256(BUILDERS[index](values)).hexdigest() == value
