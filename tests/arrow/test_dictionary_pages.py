"""Chosen rows of dictionary-encoded pages decoded here (``fileindex.arrow.dictionary_pages``, the hybrid runs of
``fileindex.arrow.hybrid``): the values pyarrow's whole read gives, on the compiled path and the numpy path, for
pages pyarrow writes (bit widths 1 to 21, RLE and bit-packed runs, v1 and v2, required and optional without
nulls); hostile pages and runs are a typed error or left to pyarrow, never a crash or an allocation of what a
header claims."""
import functools

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parquet_forgery import data_page, read_of_a_damaged_page

from fileindex import kernels
from fileindex.arrow import data_files, dictionary_pages, hybrid, parquet_pages
from fileindex.arrow.data_files import DataFileReader
from fileindex.arrow.plain_pages import PlainType, Undecodable
from fileindex.generated.parquet_thrift.ttypes import DataPageHeader, DataPageHeaderV2, DictionaryPageHeader, PageHeader

@pytest.fixture(params=[pytest.param("compiled", marks=pytest.mark.compiled), "python"])
def path_kind(request, monkeypatch):
    """Each test once with the compiled kernels (deselected by the fallback job of .ci/run) and once on the numpy
    path."""
    if request.param == "compiled":
        assert kernels.compiled is not None, "fileindex._kernels did not build: is a C compiler installed?"
    else:
        monkeypatch.setattr(kernels, "compiled", None)
    data_files.FOOTERS.clear()
    yield request.param
    data_files.FOOTERS.clear()


# --------------------------------------------------------------------------------------------- the hybrid runs

def encode_runs(runs: list[tuple[str, list[int]]], width: int) -> bytes:
    """The hybrid of ``runs`` (("rle", [value, count]) or ("packed", values of a multiple of 8)), as Parquet lays
    it."""
    out = bytearray()
    for kind, values in runs:
        header = (len(values) // 8) << 1 | 1 if kind == "packed" else values[1] << 1
        while True:
            out.append(header & 0x7F | (0x80 if header > 0x7F else 0))
            header >>= 7
            if not header:
                break
        if kind == "packed":
            bits = sum(value << (i * width) for i, value in enumerate(values))
            out += bits.to_bytes(len(values) // 8 * width, "little")
        else:
            out += values[0].to_bytes((width + 7) // 8, "little")
    return bytes(out)


@st.composite
def hybrids(draw):
    width = draw(st.integers(0, 32))
    value = st.integers(0, (1 << width) - 1)
    runs = draw(st.lists(st.one_of(
        st.builds(lambda v, n: ("rle", [v, n]), value, st.integers(0, 300)),
        st.builds(lambda vs: ("packed", vs), st.integers(0, 20).flatmap(lambda g: st.lists(value, min_size=8 * g,
                                                                                             max_size=8 * g)))),
        max_size=8))
    values = [v for kind, vs in runs for v in (vs if kind == "packed" else [vs[0]] * vs[1])]
    chosen = draw(st.lists(st.integers(0, max(len(values) - 1, 0)), max_size=12).map(sorted)) if values else []
    return width, encode_runs(runs, width), values, chosen


def both(data, width, positions):
    """hybrid.take on each path: its values, or the byte of the run that does not fit."""
    found = []
    for compiled in ([kernels.compiled] if kernels.compiled else []) + [None]:
        saved, kernels.compiled = kernels.compiled, compiled
        try:
            found.append(hybrid.take(data, width, np.array(positions, np.int64)).tolist())
        except hybrid.BadRun as err:
            found.append(("bad run", err.at))
        finally:
            kernels.compiled = saved
    return found


@settings(max_examples=200, deadline=None)
@given(hybrids(), st.data())
def test_the_hybrids_chosen_values_and_any_cut_of_its_bytes_read_alike_on_both_paths(case, data):
    width, encoded, values, chosen = case
    assert both(encoded, width, chosen) == [[values[p] for p in chosen]] * (1 + bool(kernels.compiled))
    cut = data.draw(st.integers(0, len(encoded)))
    found = both(encoded[:cut], width, chosen)
    assert len(set(map(str, found))) == 1  # (the same values, or the same run refused)
    if found[0] != [values[p] for p in chosen]:
        assert found[0][0] == "bad run" and found[0][1] <= cut


def test_runs_ending_before_a_position_or_headers_past_five_bytes_are_refused():
    packed = encode_runs([("packed", list(range(8)))], 3)
    assert both(packed, 3, [7]) == [[7]] * len(both(packed, 3, [7]))
    assert {tuple(found) for found in both(packed, 3, [8])} == {("bad run", len(packed))}
    assert {tuple(found) for found in both(b"\xff" * 6, 3, [0])} == {("bad run", 0)}
    with pytest.raises(ValueError, match="bit width 33"):
        hybrid.take(packed, 33, np.array([0]))
    with pytest.raises(ValueError, match="ascending"):
        hybrid.take(packed, 3, np.array([3, 1]))


# --------------------------------------------------------------------------------------------- pages pyarrow writes

@functools.cache
def written(width: int, runs: bool, version: str, optional: bool, codec: str, directory: str) -> tuple[str, pa.Table]:
    """A file of int64, int32 and double columns whose dictionaries hold 2^(width-1) + 1 entries (indices of
    ``width`` bits on the last pages), in long repeats (RLE runs) or shuffled (bit-packed ones)."""
    rng = np.random.default_rng(width)
    entries = (1 << max(width - 1, 0)) + 1 if width else 1
    rows = max(entries * (12 if runs else 1) + entries // 8, 20_000)
    keys = np.repeat(rng.permutation(entries), -(-rows // entries))[:rows] if runs \
        else np.concatenate([np.arange(entries), rng.integers(0, entries, rows - entries)])
    keys = keys.astype(np.int64) * 7_919 - 50_000
    table = pa.table({"a": keys, "b": (keys % 2_000_000_000).astype(np.int32), "c": keys * 0.25})
    if not optional:
        table = table.cast(pa.schema([field.with_nullable(False) for field in table.schema]))
    path = f"{directory}/w{width}-{runs}-{version}-{optional}-{codec}.parquet"
    pq.write_table(table, path, write_page_index=True, data_page_size=1, write_batch_size=1_000,  # (pages of 1,000)
                   data_page_version=version,
                   compression=codec, dictionary_pagesize_limit=64 << 20, row_group_size=rows)
    return path, table


@pytest.fixture(scope="module")
def directory(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("dictionary-pages"))


@pytest.fixture
def copies(monkeypatch):
    """The columns of each copy of pages made for pyarrow, and (under "decoded") the pages decoded here."""
    seen: dict[str, list] = {"copied": [], "decoded": []}
    copied, decoded = parquet_pages._copied_rows, parquet_pages._dictionary_indices
    monkeypatch.setattr(parquet_pages, "_copied_rows",
                        lambda fd, footer, columns: seen["copied"].append([c.name for c in columns])
                        or copied(fd, footer, columns))
    monkeypatch.setattr(parquet_pages, "_dictionary_indices",
                        lambda header, body, table, page, *args: seen["decoded"].append(page)
                        or decoded(header, body, table, page, *args))
    return seen


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shape=st.sampled_from([(0, True), (1, True), (1, False), (2, True), (3, False), (5, True), (8, False),
                              (8, True), (11, True), (13, False), (17, False), (21, False)]),
       version=st.sampled_from(["1.0", "2.0"]), optional=st.booleans(),
       codec=st.sampled_from(["none", "snappy", "zstd"]), data=st.data())
def test_chosen_rows_of_dictionary_pages_are_pyarrows_values(directory, path_kind, copies, shape, version, optional,
                                                             codec, data):
    """``shape``: indices of up to (width) bits, in RLE runs of 12 repeats or bit-packed (runs)."""
    path, table = written(*shape, version, optional, codec, directory)
    rows = np.array(sorted(data.draw(st.sets(st.integers(0, table.num_rows - 1), min_size=1, max_size=4))), np.int64)
    copies["copied"].clear()
    copies["decoded"].clear()
    data_files.FOOTERS.clear()
    got = DataFileReader(path).read_rows(rows, ["a", "b", "c"])
    assert got.equals(table.take(rows))
    pages = len({row // 1_000 for row in rows})
    assert copies == {"copied": [], "decoded": copies["decoded"]} and len(copies["decoded"]) == 3 * pages


def test_the_widest_pages_are_read_at_their_bit_width(directory):
    """The file of 21-bit indices holds pages of that width (pyarrow widens the indices as the dictionary grows)."""
    path, _ = written(21, False, "1.0", False, "none", directory)
    footer = parquet_pages.PagedFooter.read(path)
    with open(path, "rb") as file:
        table = footer.pages(file.fileno(), 0, 0)
        raw = parquet_pages._read_exactly(file.fileno(), table.offsets[-1], table.sizes[-1])
    _, taken = parquet_pages.decode(PageHeader, raw, len(raw))
    assert raw[taken] == 21


# --------------------------------------------------------------------------------------------- hostile pages

PLAIN = PlainType(pa.int64(), pa.int64(), False)
ENTRIES = np.arange(4, dtype=np.int64) * 10


def page(indices: bytes, rows: int, version: int = 0, uncompressed: int | None = None) -> PageHeader:
    size = len(indices) if uncompressed is None else uncompressed
    if version:
        return PageHeader(type=3, uncompressed_page_size=size, compressed_page_size=len(indices),
                          data_page_header_v2=DataPageHeaderV2(num_values=rows, num_nulls=0, num_rows=rows, encoding=8,
                                                               definition_levels_byte_length=0,
                                                               repetition_levels_byte_length=0, is_compressed=False))
    return PageHeader(type=0, uncompressed_page_size=size, compressed_page_size=len(indices),
                      data_page_header=DataPageHeader(num_values=rows, encoding=8))


def rows_of(header: PageHeader, body: bytes, rows: np.ndarray, entries: np.ndarray = ENTRIES) -> list:
    """A page's values at ``rows`` as parquet_pages takes them: its indices, then the dictionary's entries."""
    indices = dictionary_pages.page_indices(header, body, 8, False, None, rows)
    dictionary = PageHeader(type=2, uncompressed_page_size=entries.nbytes, compressed_page_size=entries.nbytes,
                            dictionary_page_header=DictionaryPageHeader(num_values=len(entries), encoding=0))
    found = dictionary_pages.dictionary_entries(dictionary, entries.tobytes(), PLAIN, None, 8,
                                                int(indices.max()) + 1)
    return dictionary_pages.entries_at(found, indices, PLAIN).to_pylist()


@pytest.mark.parametrize("version", [0, 1])
def test_hostile_indices_are_a_typed_error(path_kind, version):
    good = bytes([2]) + encode_runs([("packed", [0, 1, 2, 3, 3, 2, 1, 0])], 2)
    rows = np.array([1, 6], np.int64)
    assert rows_of(page(good, 8, version), good, rows) == [10, 10]
    for hostile, says in [(bytes([33]) + good[1:], "33 bits"),  # a bit width past 32
                          (good[:-1], "run at byte 1"),  # a bit-packed run cut short
                          (bytes([2]) + encode_runs([("rle", [3, 2])], 2), "run at byte 3"),  # runs end first
                          (bytes([2, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]), "run at byte 1"),  # a header of 6 bytes
                          (bytes([3]) + encode_runs([("rle", [7, 8])], 3), "index of 7")]:  # past the dictionary
        with pytest.raises(Undecodable, match=says):
            rows_of(page(hostile, 8, version), hostile, rows)


def test_a_zstd_dictionary_is_decompressed_as_far_as_the_entries_needed_and_checked():
    entries = np.arange(10_000, dtype=np.int64) * 3
    body = pa.Codec("zstd").compress(entries.tobytes(), asbytes=True)
    header = PageHeader(type=2, uncompressed_page_size=entries.nbytes, compressed_page_size=len(body),
                        dictionary_page_header=DictionaryPageHeader(num_values=len(entries), encoding=0))
    for needed in (1, 17, 4_999, 5_001, 10_000):  # (streamed below half of the page, decompressed whole above)
        found = dictionary_pages.dictionary_entries(header, body, PLAIN, pa.Codec("zstd"), 10_000, needed)
        assert found.tolist() == entries[:needed].tolist()
    for damaged, says in ((body[:40], "fewer than|decompress"), (b"\0" * 40 + body[40:], "decompress")):
        with pytest.raises(Undecodable, match=says):
            dictionary_pages.dictionary_entries(header, damaged, PLAIN, pa.Codec("zstd"), 10_000, 17)
    with pytest.raises(Undecodable, match="index of 10000"):
        dictionary_pages.dictionary_entries(header, body, PLAIN, pa.Codec("zstd"), 10_000, 10_001)


@pytest.mark.parametrize("version", [0, 1])
def test_a_page_claiming_more_bytes_than_its_indices_can_take_is_left_to_pyarrow_undecompressed(version,
                                                                                              monkeypatch):
    from fileindex.arrow import plain_pages

    body = pa.Codec("zstd").compress(bytes([2]) + encode_runs([("packed", [1] * 8)], 2), asbytes=True)
    monkeypatch.setattr(plain_pages, "decompressed", lambda *args: pytest.fail("decompressed a page too large"))
    for claimed in (2**31 - 1, 1 + 5 * 8 + 1):  # (8 indices take at most 41 bytes)
        header = page(body, 8, version, uncompressed=claimed)
        assert dictionary_pages.page_indices(header, body, 8, False, pa.Codec("zstd"), np.array([0])) is None


def test_a_dictionary_page_claiming_more_entries_than_the_chunk_has_rows_is_left_to_pyarrow():
    body = np.arange(4, dtype=np.int64).tobytes()
    for count, size, most in ((4, 32, 4), (2**31 - 1, 8 * (2**31 - 1), 1_000), (4, 31, 4), (4, 2**31 - 1, 4)):
        header = PageHeader(type=2, uncompressed_page_size=size, compressed_page_size=len(body),
                            dictionary_page_header=DictionaryPageHeader(num_values=count, encoding=0))
        found = dictionary_pages.dictionary_entries(header, body, PLAIN, pa.Codec("zstd") if size > 32 else None,
                                                    most, 4)
        assert (found.tolist() == [0, 1, 2, 3]) if (count, size) == (4, 32) else found is None


@pytest.mark.parametrize("damage", ["width", "truncated run"])
def test_a_damaged_dictionary_encoded_page_in_a_file_is_a_typed_error_or_pyarrows_read(tmp_path, path_kind, damage):
    """The page's bytes in an uncompressed file are damaged behind a header that still checks out: the read is the
    typed error of the whole group's read by pyarrow (the page is refused here first), or its values."""
    values = np.random.default_rng(3).integers(0, 1_000, 20_000)
    table = pa.table({"a": pa.array(values, pa.int64())}).cast(pa.schema([pa.field("a", pa.int64(), False)]))
    path = tmp_path / "f.parquet"
    pq.write_table(table, path, write_page_index=True, data_page_size=8_192, compression="none")
    data, at, taken, _, pages = data_page(path, 1)
    if damage == "width":
        data[at + taken] = 40
    else:  # (a bit-packed run claiming more groups than the page holds)
        data[at + taken + 1:at + taken + 3] = bytes([0xFF, 0x7F])
    path.write_bytes(bytes(data))
    rows = np.array([pages.firsts[1] + 3], np.int64)
    read_of_a_damaged_page(path, rows, 1, at)
