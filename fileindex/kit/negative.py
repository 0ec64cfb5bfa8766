"""The negative corpus (``bad/``): files a reader must reject, or may answer REMAIN for.

Each case is one request (``head`` of the file, or a ``read`` of ``c = 3``) and the outcomes that
conform: ``MUST reject`` accepts only an error; ``MAY fail open`` accepts an error or REMAIN (and,
where Java answers something else without an error, Java's answer, named in ``accepted``). The files
are made from two Java-written containers of the corpus (a bloom filter and a bitmap V1 over
``int_nulls``) by changing the bytes the rule is about; the offsets below are those of a one-column
container of column ``c`` (docs/format/file_index_format.md).
"""
from __future__ import annotations

import struct
from collections.abc import Iterator

from fileindex.container.writer import reframe, write_entries
from fileindex.indexes.registry import INDEX_TYPES
from fileindex.container.file import FileIndexContainer
from fileindex.kit.provenance import CONTAINER, DERIVED, SPECS
from fileindex.types import parse_type

MUST = "MUST reject"
MAY = "MAY fail open"
ERROR = "error"
REMAIN = {"result": "REMAIN"}
SKIP = {"result": "SKIP"}

VERSION_AT, HEAD_LENGTH_AT = 8, 12
ENTRY_START_AT, ENTRY_LENGTH_AT = 41, 45  # of the bloom-filter entry ("c", "bloom-filter")
READ: dict = {"op": "read", "schema": {"c": "INT"},
              "where": {"function": "Equal", "column": "c", "type": "INT", "literals": [3]}}
HEAD = {"op": "head"}


def _patched(data: bytes, at: int, value: int) -> bytes:
    return data[:at] + struct.pack(">i", value) + data[at + 4:]


def _case(name: str, rule: str, request: dict, why: str, data: bytes, *, accepted: list | None = None,
          divergence: str = "",
          spec: str = CONTAINER) -> tuple:
    case = {"name": name, "tier": "bad", "rule": rule, "file": f"{name}.index", "request": request, "why": why,
            "accepted": accepted or ([ERROR] if rule == MUST else [ERROR, REMAIN]),
            "expected_from": DERIVED, "spec": spec}
    if divergence:
        case["divergence"] = divergence
    return case, data


def cases(containers: dict[str, bytes]) -> Iterator[tuple[dict, bytes]]:
    """(sidecar, file) of every negative case, made from one-column containers of ``c`` over ``int_nulls``
    (``containers``: ``bloom``, ``bitmap_v1``, ``bitmap_v2``, ``bsi``, ``range_bitmap``)."""
    bloom, bitmap_v1 = containers["bloom"], containers["bitmap_v1"]
    int_type = parse_type("INT")
    v2 = reframe(bloom, 2)
    yield _case("wrong_magic", MUST, HEAD, "the first 8 bytes are not the magic 0x00054E4ED01A35AE",
                bytes([bloom[0] ^ 0xFF]) + bloom[1:])
    yield _case("unknown_container_version", MUST, HEAD, "container version 3 does not exist (Java 0.9 reads 1 only)",
                _patched(bloom, VERSION_AT, 3))
    yield _case("truncated_head", MUST, HEAD, "the file ends inside the HEAD (30 of its 53 bytes)", bloom[:30])
    yield _case("head_length_past_end", MUST, HEAD, "head_length says the HEAD ends past the end of the file",
                _patched(bloom, HEAD_LENGTH_AT, len(bloom) + 100))
    yield _case("body_past_end", MUST, READ, "an entry's body (start + length) ends past the end of the file",
                _patched(bloom, ENTRY_LENGTH_AT, 28 + 100))
    yield _case("body_negative_start", MUST, READ, "an entry starts at -5 (only -1 with length 0 marks an empty index)",
                _patched(bloom, ENTRY_START_AT, -5))
    yield _case("v2_footer_does_not_fit", MUST, HEAD,
                "container version 2 (proposed): the footer length says the footer is longer than the file",
                v2[:-12] + struct.pack(">i", len(v2) * 2) + v2[-8:])
    yield _case("v2_bad_tail_magic", MUST, HEAD, "container version 2 (proposed): the file does not end in PAFIDX02",
                v2[:-1] + b"3")
    yield _case("bloom_hash_functions_without_bits", MUST, READ,
                "a bloom-filter body with 7 hash functions and no bit set bytes (nothing to probe)",
                write_entries([("c", "bloom-filter", struct.pack(">i", 7))]), spec=SPECS["bloom-filter"])
    yield _case("unknown_index_type_lumina", MAY, READ,
                "an index type this reader does not know (`lumina`): Java throws, paimon-cpp skips the entry, "
                "paimon-rust ignores it; either an error or REMAIN is sound",
                write_entries([("c", "lumina", b"\x01\x02\x03\x04")]), divergence="unknown-index-type")
    yield _case("bitmap_unknown_body_version", MAY, READ,
                "a bitmap body of version 9: a reader cannot decode it and must not answer from it",
                _bitmap_version(bitmap_v1, 9), spec=SPECS["bitmap"])
    for source in ("bitmap_v1", "bitmap_v2", "bsi", "range_bitmap"):  # a malformed body of every index type
        data, index_type = _truncated_body(containers[source])
        yield _case(f"{source}_truncated_body", MAY, READ,
                    f"a {index_type} body cut to half its length (the entry's length says so): a reader that cannot "
                    "decode it answers an error or REMAIN, never rows from what is left", data, spec=SPECS[index_type])
    for source, index_type in (("bsi", "bsi"), ("range_bitmap", "range-bitmap")):  # a request, not a file, is odd
        yield _case(f"null_literal_{source}", MAY, {**READ, "where": {**READ["where"], "literals": [None]}},
                    f"c = null on a {index_type} index: Java has no answer (it throws, or its reader returns null); "
                    "an error or REMAIN conforms, never rows or SKIP", containers[source], spec=SPECS[index_type])
    name = "c😀".encode()  # raw UTF-8: a 4-byte sequence that modified UTF-8 never holds
    raw = write_entries([("c", "bloom-filter", _body(bloom))])
    renamed = raw[:20] + struct.pack(">H", len(name)) + name + raw[23:]
    renamed = _patched(renamed, HEAD_LENGTH_AT, 53 + len(name) - 1)
    renamed = _patched(renamed, ENTRY_START_AT + len(name) - 1, 53 + len(name) - 1)
    yield _case("name_in_raw_utf8", MUST, HEAD,
                "a column name written in plain UTF-8 (F0 9F 98 80): Java reads names with DataInput.readUTF "
                "(modified UTF-8, supplementary characters as surrogate pairs) and rejects the 4-byte sequence",
                renamed, divergence="names")
    first = INDEX_TYPES["bitmap"].build([3, 5], int_type, {"version": "1"})
    last = INDEX_TYPES["bitmap"].build([5, 7], int_type, {"version": "1"})
    yield _case("duplicate_entries", MAY, READ,
                "two entries for (c, bitmap): Java's HEAD is a HashMap, so the last one wins without an error; "
                "answering from the first one (row 0 for c = 3) is the wrong file's answer",
                write_entries([("c", "bitmap", first), ("c", "bitmap", last)]), accepted=[ERROR, REMAIN, SKIP])


def _truncated_body(container: bytes) -> tuple[bytes, str]:
    """A one-column container whose single entry's body is the first half of ``container``'s, and its index type.
    (A bloom filter's is not among them: its bit count is its body's length, so half a body is a valid, smaller
    filter that no reader can tell apart.)"""
    parsed = FileIndexContainer.from_bytes(container)
    entry = next(iter(parsed))
    body = bytes(parsed.body(entry) or b"")
    return write_entries([(entry.column, entry.index_type, body[:len(body) // 2])]), entry.index_type


def _body(container: bytes) -> bytes:
    """The body of a one-column container of ``c`` with one entry (the HEAD is 53 bytes for bloom-filter)."""
    start, length = struct.unpack_from(">ii", container, ENTRY_START_AT)
    return container[start:start + length]


def _bitmap_version(container: bytes, version: int) -> bytes:
    """The bitmap container with its body's version byte (the body's first byte) set to ``version``."""
    start = struct.unpack_from(">i", container, ENTRY_START_AT - len("bloom-filter") + len("bitmap"))[0]
    return container[:start] + bytes([version]) + container[start + 1:]
