"""``hashes.json``: Java's FastHash (the hash a bloom filter sets its bits from) for values of every type
the bloom filter takes, with the key each value is hashed as (docs/kit.md, "Hash vectors").

The values reach the sign bits (so that logical and arithmetic right shifts give different hashes),
the ends of each range, FLOAT and DOUBLE's NaN, ±0.0 and infinities, timestamps before 1970 and
non-ASCII text. The hashes are this project's ``fileindex.java.fast_hash``, whose bloom-filter bytes
are Java's for every container of the corpus (the kit's write checks show it).
"""
from __future__ import annotations

from fileindex.java.fast_hash import hash_key, hash_value
from fileindex.kit.provenance import DERIVED, HASH, stamped
from fileindex.reference.vector_format import value_from_json
from fileindex.types import parse_type

LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1
FLOATS = ["0.0", "-0.0", "1.5", "-1.5", "NaN", "Infinity", "-Infinity", "3.4028235E38", "1.4E-45"]
STAMPS = [{"millis": 0, "nanos_of_milli": 0}, {"millis": -1, "nanos_of_milli": 0},
          {"millis": -1, "nanos_of_milli": 999999}, {"millis": 1745542802000, "nanos_of_milli": 123456}]
VALUES: dict[str, list] = {
    "TINYINT": [-128, -1, 0, 1, 127],
    "SMALLINT": [-32768, -1, 0, 1, 32767],
    "INT": [-2147483648, -1, 0, 1, 3, 2147483647],
    "BIGINT": [LONG_MIN, -1, 0, 1, 1 << 40, LONG_MAX],
    "FLOAT": FLOATS,
    "DOUBLE": [*FLOATS[:7], "1.7976931348623157E308", "4.9E-324"],
    "DATE": [-719162, -1, 0, 19000],
    "TIME": [0, 1, 86399999],
    "TIMESTAMP(3)": STAMPS,
    "TIMESTAMP(6)": STAMPS,
    "TIMESTAMP(9)": STAMPS,
    "TIMESTAMP(3) WITH LOCAL TIME ZONE": STAMPS[:2],
    "TIMESTAMP(6) WITH LOCAL TIME ZONE": STAMPS[2:],
    "CHAR(5)": ["Alice"],
    "VARCHAR(10)": ["", "a", "Alice"],
    "STRING": ["", "a", "Alice", "é", "😀", "Ω≈ç√"],
    "BINARY(3)": [[0, 1, 2]],
    "VARBINARY(8)": [[], [0], [255, 1, 2]],
    "BYTES": [[], [255], [0, 0, 0, 0, 0, 0, 0, 0]],
}


def vectors() -> dict:
    """The document of ``hashes.json``."""
    cases = []
    for text, values in VALUES.items():
        data_type = parse_type(text)
        for literal in values:
            value = value_from_json(literal, data_type)
            key = hash_key(value, data_type)
            case = {"type": text, "value": literal, "hash": hash_value(value, data_type),
                    **({"bytes": key.hex()} if isinstance(key, bytes) else {"key": key})}
            cases.append(stamped(case, DERIVED, HASH))
    return {"name": "hashes", "function": "FastHash (org.apache.paimon.fileindex.bloomfilter.FastHash)",
            "cases": cases}
