"""A sidecar index on S3 (moto behind the counting proxy), opened as a table scan opens it (``open_head``, then
``ranged_container``): a small one is one GET; a large bitmap body is fetched by the parts a query needs (its
dictionary, then the bitmaps of the keys asked for), never whole; an object replaced between two GETs is still an
``ObjectChangedError``; one shorter than its HEAD says is a typed error naming the file and the offset."""
from __future__ import annotations

import functools
import random

import pytest

from fileindex.container.file import HEAD_BYTES, PARTIAL_BODY_BYTES, FileIndexContainer, ranged_container
from fileindex.container.writer import write_entries
from fileindex.errors import InvalidLengthError
from fileindex.indexes import bitmap
from fileindex.indexes.registry import open_entry
from fileindex.io.object_store import ObjectChangedError
from fileindex.types import parse_type

STRING = parse_type("STRING")
CATEGORIES = [f"category-{n:02d}" for n in range(12)]
ROWS = 1_500_000  # (a body over PARTIAL_BODY_BYTES: 2.3 MB)


@functools.cache
def categories() -> list[str]:
    draw = random.Random(11)
    return [draw.choice(CATEGORIES) for _ in range(ROWS)]


def sidecar(values: list) -> bytes:
    """A container of one bitmap index (Java's default, version 2) on the column ``category``."""
    return write_entries([("category", "bitmap", bitmap.build(values, STRING))])


def index_gets(store) -> list:
    return [r for r in store.proxy.requests if r.method == "GET" and r.key and r.key.endswith(".index")]


def opened_reader(store, uri: str):
    """The category column's reader of the sidecar at ``uri``, opened as a table scan opens it."""
    container = ranged_container(store.file_io().open_head(uri, what="index file", length=HEAD_BYTES))
    return container, open_entry(container, container.entry("category", "bitmap"), STRING)


def expected_rows(values: list, wanted: str) -> list[int]:
    return [row for row, value in enumerate(values) if value == wanted]


def test_a_small_sidecar_is_one_get(s3_store):
    values = ["a", "b", "a", "c"] * 25
    uri = s3_store.put("bucket-0/data-0.parquet.index", sidecar(values))
    s3_store.proxy.clear()
    _, reader = opened_reader(s3_store, uri)
    assert list(reader.visit_equal("a").bitmap) == expected_rows(values, "a")
    assert len(index_gets(s3_store)) == 1


def test_a_large_bitmap_body_is_fetched_by_the_parts_a_query_needs(s3_store):
    values = categories()
    data = sidecar(values)
    uri = s3_store.put("bucket-0/data-0.parquet.index", data)
    s3_store.proxy.clear()
    container, reader = opened_reader(s3_store, uri)
    body = container.entry("category", "bitmap").length
    assert body > PARTIAL_BODY_BYTES
    wanted = [CATEGORIES[0], CATEGORIES[-1], "absent"]
    reader.prefetch(wanted)  # (as an OR of equalities on the column asks, before visiting)
    answers = [reader.visit_equal(value) for value in wanted]
    assert [list(answer.bitmap) for answer in answers] == [expected_rows(values, value) for value in wanted]
    fetched = index_gets(s3_store)
    # the HEAD, the body's dictionary, the two keys' bitmaps (sent together): a small part of the body
    assert len(fetched) <= 4 and sum(r.sent for r in fetched) < HEAD_BYTES + body // 4
    # what the local whole-file read answers, for every key (fetched by parts as they are asked for)
    local = FileIndexContainer.from_bytes(data)
    whole = open_entry(local, local.entry("category", "bitmap"), STRING)
    for value in CATEGORIES:
        assert reader.visit_equal(value).bitmap == whole.visit_equal(value).bitmap
    assert reader.visit_is_null().bitmap == whole.visit_is_null().bitmap


def test_a_sidecar_replaced_between_its_head_and_its_bitmaps_is_an_error(s3_store):
    values = categories()
    uri = s3_store.put("bucket-0/data-0.parquet.index", sidecar(values))
    _, reader = opened_reader(s3_store, uri)
    reader.prefetch([CATEGORIES[0]])  # (the dictionary and one bitmap: read from the version opened)
    s3_store.put("bucket-0/data-0.parquet.index", sidecar(list(reversed(values))))
    with pytest.raises(ObjectChangedError, match="data-0.parquet.index changed since it was opened"):
        reader.visit_equal(CATEGORIES[5])


def test_a_sidecar_shorter_than_its_head_says_is_a_typed_error_naming_the_file_and_offset(s3_store):
    data = sidecar(categories())
    uri = s3_store.put("bucket-0/data-0.parquet.index", data[:len(data) // 2])
    with pytest.raises(InvalidLengthError, match=r"data-0\.parquet\.index: .*runs past the end") as raised:
        opened_reader(s3_store, uri)[1].visit_equal(CATEGORIES[0])
    assert raised.value.offset > 0
