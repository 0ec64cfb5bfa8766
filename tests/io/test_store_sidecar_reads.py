"""A sidecar index on S3 (moto behind the counting proxy), opened as a table scan opens it (``open_head``, then
``ranged_container``): a small one is one GET; a large bitmap body is fetched by the parts a query needs (its
dictionary, then the bitmaps of the keys asked for), never whole; an object replaced between two GETs is still an
``ObjectChangedError``; one shorter than its HEAD says is a typed error naming the file and the offset. Opened for
a query (``remote_sidecar``): by one GET of its first ``FIRST_BYTES`` read as a stream as far as the asked body,
wherever that lies in them (one GET more for a body beyond them), never a mix of two versions of an object replaced
meanwhile, and an answer cut short a typed error naming the file and the offset."""
from __future__ import annotations

import functools
import random

import pytest

from fileindex.container.file import (
    FIRST_BYTES,
    HEAD_BYTES,
    PARTIAL_BODY_BYTES,
    SIDECARS,
    FileIndexContainer,
    ranged_container,
)
from fileindex.container.writer import write_entries
from fileindex.errors import InvalidLengthError, InvalidOffsetError
from fileindex.indexes import bitmap
from fileindex.indexes.registry import open_entry
from fileindex.io.object_store import ObjectChangedError
from fileindex.scan.table import remote_sidecar
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


def two_columns(filler: int, values: list) -> bytes:
    """A container whose first body is a bitmap of ``filler`` distinct values on ``filler``, then ``category``'s."""
    spread = bitmap.build([f"value-{n:06d}" for n in range(filler)], STRING)
    return write_entries([("filler", "bitmap", spread), ("category", "bitmap", bitmap.build(values, STRING))])


def opened_as_a_query_opens_it(store, uri: str, asked=frozenset({"category"}), reach: int = FIRST_BYTES):
    """The sidecar at ``uri`` opened as a table's query on ``asked`` opens it (``TableStore.open_beside``, then
    ``remote_sidecar``); ``reach``: the first bytes its streamed GET asks for."""
    with store.file_io().open_head(uri, what="index file", length=reach, streamed=True) as opened:
        return remote_sidecar(opened, asked)


def category_reader(container):
    return open_entry(container, container.entry("category", "bitmap"), STRING)


def test_a_sidecar_whose_asked_body_lies_in_its_first_bytes_is_one_get(s3_store):
    values = categories()[:20_000]
    data = two_columns(3000, values)  # (over HEAD_BYTES and SMALL_FILE: opened by parts)
    assert HEAD_BYTES < len(data) < FIRST_BYTES
    uri = s3_store.put("bucket-0/data-1.parquet.index", data)
    SIDECARS.clear()
    s3_store.proxy.clear()
    reader = category_reader(opened_as_a_query_opens_it(s3_store, uri))
    assert list(reader.visit_equal(CATEGORIES[3]).bitmap) == expected_rows(values, CATEGORIES[3])
    assert [r.range for r in index_gets(s3_store)] == [f"bytes=0-{FIRST_BYTES - 1}"]


def test_a_sidecar_whose_asked_body_lies_far_into_it_is_still_one_get(s3_store):
    values = categories()[:20_000]
    data = two_columns(40_000, values)
    container = FileIndexContainer.from_bytes(data)
    assert container.entry("category", "bitmap").start > 512 << 10  # (beyond the first GET of earlier versions)
    uri = s3_store.put("bucket-2/data-2.parquet.index", data)
    SIDECARS.clear()
    s3_store.proxy.clear()
    reader = category_reader(opened_as_a_query_opens_it(s3_store, uri))
    whole = category_reader(container)
    for value in CATEGORIES:
        assert reader.visit_equal(value).bitmap == whole.visit_equal(value).bitmap
    assert [r.range for r in index_gets(s3_store)] == [f"bytes=0-{FIRST_BYTES - 1}"]


def test_a_body_beyond_the_streamed_first_bytes_is_one_ranged_get_more(s3_store):
    values = categories()[:20_000]
    data = two_columns(40_000, values)
    container = FileIndexContainer.from_bytes(data)
    body = container.entry("category", "bitmap")
    reach = 256 << 10  # (a stand-in for FIRST_BYTES, for a sidecar larger than it)
    uri = s3_store.put("bucket-2/data-2.parquet.index", data)
    SIDECARS.clear()
    s3_store.proxy.clear()
    reader = category_reader(opened_as_a_query_opens_it(s3_store, uri, reach=reach))
    whole = category_reader(container)
    for value in CATEGORIES:
        assert reader.visit_equal(value).bitmap == whole.visit_equal(value).bitmap
    first, second = index_gets(s3_store)
    assert first.range == f"bytes=0-{reach - 1}"
    start, last = (int(n) for n in second.range.removeprefix("bytes=").split("-"))  # (or the object's end, whole)
    assert reach <= start <= body.start and last == body.start + body.length - 1 and second.if_match  # (that version)


def test_a_sidecar_replaced_while_streamed_is_read_as_the_version_opened_or_not_at_all(s3_store):
    """The bodies the streamed answer holds are the version it opened (one answer is one version); a body beyond
    it, asked of the version opened (If-Match), is an ObjectChangedError: never a mix of the two."""
    values = categories()[:20_000]
    old, new = two_columns(40_000, values), two_columns(40_000, list(reversed(values)))
    uri = s3_store.put("bucket-3/data-3.parquet.index", old)
    SIDECARS.clear()
    with s3_store.file_io().open_head(uri, what="index file", length=FIRST_BYTES, streamed=True) as opened:
        s3_store.put("bucket-3/data-3.parquet.index", new)
        reader = category_reader(remote_sidecar(opened, {"category"}))
    local = FileIndexContainer.from_bytes(old)
    assert reader.visit_equal(CATEGORIES[4]).bitmap == category_reader(local).visit_equal(CATEGORIES[4]).bitmap
    SIDECARS.clear()
    with s3_store.file_io().open_head(uri, what="index file", length=256 << 10, streamed=True) as opened:
        s3_store.put("bucket-3/data-3.parquet.index", old)
        with pytest.raises(ObjectChangedError, match="data-3.parquet.index changed since it was opened"):
            remote_sidecar(opened, {"category"})


def test_a_truncated_sidecar_opened_for_a_query_is_a_typed_error_naming_the_file_and_offset(s3_store):
    data = two_columns(40_000, categories()[:20_000])
    uri = s3_store.put("bucket-4/data-4.parquet.index", data[:700_000])
    SIDECARS.clear()
    s3_store.proxy.clear()
    container = opened_as_a_query_opens_it(s3_store, uri)  # (the body out of bounds is not asked for)
    assert len(index_gets(s3_store)) == 1
    with pytest.raises(InvalidOffsetError, match=r"data-4\.parquet\.index: body start \d+ is outside") as raised:
        category_reader(container)
    assert raised.value.offset > 0


class _Answer:
    """A GET's answer as the client library gives it, whose stream ends after ``chunks``."""

    def __init__(self, chunks: list[bytes]):
        self._chunks = chunks

    def stream(self, min_chunk_size: int):
        return iter(self._chunks)


def test_a_streamed_answer_cut_short_is_a_typed_error_naming_the_object_and_offset():
    from fileindex.io.locations import parse_location
    from fileindex.io.object_store import ObjectInputFile, _HeadStream

    class Calls:
        def _call(self, location, request):
            return request()

    location = parse_location("s3://bucket/t/bucket-0/data-0.parquet.index")
    opened = ObjectInputFile(Calls(), location, 1000, '"etag"', None)  # type: ignore[arg-type]
    opened._head, opened._stream = bytearray(), _HeadStream(location, Calls(), _Answer([b"x" * 300]), 1000)
    assert opened.read_range(0, 100) == b"x" * 100
    with pytest.raises(InvalidLengthError, match=r"data-0\.parquet\.index: the object's bytes end at 300") as raised:
        opened.read_range(200, 400)
    assert raised.value.offset == 300


def test_the_memo_weighs_a_body_a_later_query_fetches_and_eviction_still_bounds_it(s3_store, monkeypatch):
    values = categories()[:20_000]
    uri = s3_store.put("bucket-5/data-5.parquet.index", two_columns(40_000, values))
    SIDECARS.clear()
    SIDECARS.put("an older sidecar", object(), 1000)
    container = opened_as_a_query_opens_it(s3_store, uri)  # (the category column's body held)
    filler = container.entry("filler", "bitmap")
    held = SIDECARS.weight
    monkeypatch.setattr(SIDECARS, "budget", held + filler.length // 2)
    container.body(filler)  # (as a later query on the filler column fetches it)
    assert SIDECARS.get("an older sidecar") is None  # (out: the memo is over its budget with the body weighed)
    assert len(SIDECARS) == 1 and SIDECARS.weight == held - 1000 + filler.length
    SIDECARS.clear()
    container.body(container.entry("filler", "bitmap"))  # (held already: nothing weighed again, nothing put back)
    assert len(SIDECARS) == 0
