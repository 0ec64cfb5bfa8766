"""``fileindex check`` proves the invariants a layout implies (issue #27 item 1), never refusing a body Java wrote."""
import json

import numpy as np
import pyarrow as pa
import pytest
from conftest import JAVA_VECTORS
from vector_cases import java_v2

from fileindex.cli import main
from fileindex.cli.check import check_file
from fileindex.container.file import FileIndexContainer
from fileindex.container.writer import write_container, write_entries
from fileindex.errors import FileIndexError, InvalidLengthError, InvariantError
from fileindex.indexes import bitmap, bloom_filter, bsi, range_bitmap
from fileindex.indexes.bloom_filter import BloomFilterReader
from fileindex.indexes.bloom_filter.check import check as check_bloom
from fileindex.types import parse_type

ENGINE = JAVA_VECTORS / "multi__engine_layout.index"
MULTI_SCHEMA = "id INT, name STRING, ts TIMESTAMP(3), price DOUBLE, `列名😀` STRING, attrs MAP<STRING, STRING>"
INT = parse_type("INT")


def java_vectors():
    records = json.loads((JAVA_VECTORS / "vectors.json").read_text())["vectors"]
    return [r for r in records if r["status"] == "ok"]


@pytest.mark.parametrize("record", java_vectors(), ids=lambda r: r["name"])
def test_every_java_vector_passes_the_deep_check(record, tmp_path):
    """Both Java framings: the V1 file, and its V2 twin written by the proposal's Java code."""
    v2 = tmp_path / "v2.index"
    v2.write_bytes(java_v2(record["name"]))
    for path in (JAVA_VECTORS / record["file"], v2):
        outcome = check_file(str(path), {"c": parse_type(record["type"])})
        assert outcome["status"] == "OK", outcome.get("error")
        assert outcome["bodies_decoded"] == 1
        assert outcome["notes"] == []  # canonical: what Java writes


def test_java_multi_column_vectors_pass(capsys):
    files = [str(ENGINE), str(JAVA_VECTORS / "multi__explicit_empty_entry.index")]
    assert main(["check", "--canonical", "--schema", MULTI_SCHEMA, *files]) == 0
    out = capsys.readouterr().out
    assert "12 bodies decoded and checked" in out and "note:" not in out


def run(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_bitmap_v2_key_out_of_order_is_caught(capsys, tmp_path):
    """The issue's reproducer: key 3 -> 2139062143 at offset 900 (query answered ROWS 0 for id = 3)."""
    data = bytearray(ENGINE.read_bytes())
    assert data[900:904] == (3).to_bytes(4, "big")
    data[900:904] = (2139062143).to_bytes(4, "big")
    path = tmp_path / "keys.index"
    path.write_bytes(bytes(data))
    code, out = run(capsys, "check", "--schema", MULTI_SCHEMA, str(path))
    assert code == 3
    assert "bitmap/index_blocks/blocks[0]/entries[3]/key at offset 900" in out
    assert "column 'id', bitmap index" in out and "Java would not notice" in out


def zeroed_bloom_container(tmp_path, n=150_000, items=None):
    ids = pa.array(np.random.default_rng(7).permutation(10 * n)[:n].astype(np.int32))
    body = bloom_filter.build(ids, INT, {"items": str(items or n), "fpp": "0.01"})
    data = bytearray(write_container({"id": {"bloom-filter": body}}))
    good = tmp_path / "good.index"
    good.write_bytes(bytes(data))
    middle = len(data) // 2
    data[middle:middle + 8] = bytes(8)
    bad = tmp_path / "zeroed.index"
    bad.write_bytes(bytes(data))
    return good, bad, middle


def test_zeroed_bytes_in_a_large_bloom_filter_are_caught(capsys, tmp_path):
    """The issue's reproducer: 8 zero bytes in the middle of a well-sized filter (no schema needed)."""
    good, bad, middle = zeroed_bloom_container(tmp_path)
    assert run(capsys, "check", str(good))[0] == 0
    code, out = run(capsys, "check", str(bad))
    assert code == 3
    assert f"bloom_filter/bitset at offset {middle}" in out and "8 zero bytes in a row" in out


def test_bloom_fill_against_the_distinct_count_of_a_sibling_index(capsys, tmp_path):
    """With a bitmap on the same column, a filter that set fewer bits than its values must is caught."""
    values = list(range(2000))
    body = bytearray(bloom_filter.build(values, INT, {"items": "2000", "fpp": "0.01"}))
    body[4:4 + len(body) // 3] = bytes(len(body) // 3)  # a third cleared: the run test may see it too
    data = write_container({"c": {"bloom-filter": bytes(body), "bitmap": bitmap.build(values, INT)}})
    path = tmp_path / "c.index"
    path.write_bytes(data)
    code, out = run(capsys, "check", "--schema", "c INT", str(path))
    assert code == 3 and "bloom_filter/bitset" in out
    # too many bits set for 10 values: more false positives, never a skipped row (a note, not malformed)
    (note,) = check_bloom(bloom_filter.build(values, INT, {"items": "2000", "fpp": "0.01"}), distinct=10).notes
    assert "more than the 7 x 10" in note.message and note.field == "bloom_filter/bitset"
    with pytest.raises(InvariantError, match="where 2000 distinct value"):
        check_bloom((7).to_bytes(4, "big") + b"\x07" + bytes(len(body) - 5), distinct=2000)


def test_bloom_sizing_java_cannot_write_is_a_note():
    """Java probes the k and m it reads whatever they are: a sizing its writer never picks is non-canonical."""
    (note,) = check_bloom(b"\x00\x00\x00\x05\xff").notes  # m = 8 allows k in {1, 2, 3, 6}
    assert "no items gives 5" in note.message
    assert note.field == "bloom_filter/num_hash_functions" and note.offset == 0
    assert check_bloom(b"\x00\x00\x00\x06\xff").notes == ()


def test_bloom_with_hash_functions_and_no_bits_is_malformed(capsys, tmp_path):
    """Java divides by zero probing ``00000001``: a typed error when reading, and check exits 3."""
    with pytest.raises(InvalidLengthError) as info:
        BloomFilterReader(b"\x00\x00\x00\x01", INT, base_offset=100)
    assert info.value.offset == 104 and info.value.field == "bloom_filter/bitset"
    assert "divides by zero" in str(info.value)
    path = tmp_path / "nobits.index"
    path.write_bytes(write_entries([("c", "bloom-filter", b"\x00\x00\x00\x01")]))
    code, out = run(capsys, "check", str(path))
    assert code == 3 and "bloom_filter/bitset" in out
    code = main(["query", str(path), "--schema", "c INT", "--where", "c = 1"])
    assert code == 3


def container_of(index_type, body):
    return write_container({"c": {index_type: body}})


def checked(tmp_path, data, schema):
    path = tmp_path / "x.index"
    path.write_bytes(bytes(data))
    return check_file(str(path), {"c": parse_type(schema)} if schema else None)


def body_at(data):
    (entry,) = list(FileIndexContainer.from_bytes(bytes(data)))
    return entry.start


@pytest.mark.parametrize("version", ["1", "2"])
def test_bitmap_overlapping_and_missing_rows(tmp_path, version):
    values = [5, 5, 6, 6, 7, None, None]
    body = bytearray(bitmap.build(values, INT, {"version": version}))
    data = bytearray(container_of("bitmap", bytes(body)))
    start = body_at(data)
    assert checked(tmp_path, data, "INT")["status"] == "OK"
    grown = bytearray(data)
    grown[start + 1:start + 5] = (9).to_bytes(4, "big")  # row count 9: rows 7 and 8 in no bitmap
    outcome = checked(tmp_path, grown, "INT")
    assert outcome["status"] == "MALFORMED" and "row 7 of 9 is in no value bitmap" in outcome["error"]
    shrunk = bytearray(data)
    shrunk[start + 1:start + 5] = (6).to_bytes(4, "big")  # row 6 (the value 7) past the row count
    outcome = checked(tmp_path, shrunk, "INT")
    assert outcome["status"] == "MALFORMED" and "past the row count 6" in outcome["error"]


def test_bitmap_v1_entries_follow_java_hashmap_order(tmp_path):
    """V1 keys are in HashMap order, not sorted: swapping two keys gives each the other's rows, a file
    Java reads as it stands but never writes (the order the keys and their first rows imply gives it
    away): valid, with a note; --canonical makes it a failure."""
    values = [1, 1, 2, 2, 3, 3]
    body = bitmap.build(values, INT, {"version": "1"})
    data = bytearray(container_of("bitmap", body))
    assert checked(tmp_path, data, "INT")["status"] == "OK"
    start = body_at(data) + 10  # the entries: (key, offset) pairs of 8 bytes
    first, second = data[start:start + 4], data[start + 8:start + 12]
    data[start:start + 4], data[start + 8:start + 12] = second, first
    outcome = checked(tmp_path, data, "INT")
    assert outcome["status"] == "OK" and "HashMap order" in outcome["notes"][0]["message"]
    path = tmp_path / "x.index"
    assert check_file(str(path), {"c": INT}, canonical=True)["status"] == "NON-CANONICAL"


def test_bsi_slices_inside_their_existence_bitmap_and_max(tmp_path):
    body = bytearray(bsi.build([3, 1, None, 2, -4], INT))
    data = bytearray(container_of("bsi", bytes(body)))
    start = body_at(data)
    assert checked(tmp_path, data, "INT")["status"] == "OK"
    wrong_max = bytearray(data)
    wrong_max[start + 7 + 8:start + 7 + 16] = (2).to_bytes(8, "big")  # positive max 3 -> 2
    outcome = checked(tmp_path, wrong_max, "INT")
    assert outcome["status"] == "MALFORMED" and "positive/header/max" in outcome["field"]
    wrong_min = bytearray(data)  # Java subtracts min from what it compares: min 1 reads every value one higher
    wrong_min[start + 7:start + 15] = (1).to_bytes(8, "big")
    wrong_min[start + 7 + 8:start + 7 + 16] = (4).to_bytes(8, "big")  # max 4 = 3 + 1: consistent with min 1
    outcome = checked(tmp_path, wrong_min, "INT")
    assert outcome["status"] == "OK" and "Java's writer always writes 0" in outcome["notes"][0]["message"]
    higher = bytearray(container_of("bsi", bsi.build([5, 1, None, 2, -4], INT)))  # 3 slices hold up to 7
    higher[start + 7 + 8:start + 7 + 16] = (7).to_bytes(8, "big")  # max above the largest value: a note
    outcome = checked(tmp_path, higher, "INT")
    assert outcome["status"] == "OK" and "the largest value the slices hold is 5" in outcome["notes"][0]["message"]
    higher[start + 7 + 8:start + 7 + 16] = (8).to_bytes(8, "big")  # past what 3 slices hold: Java misreads
    assert checked(tmp_path, higher, "INT")["status"] == "MALFORMED"


def test_range_bitmap_dictionary_sorted_and_codes_used(tmp_path):
    body = bytearray(range_bitmap.build([10, 30, 20, None, 40], INT, {"chunk-size": "0b"}))
    data = bytearray(container_of("range-bitmap", bytes(body)))
    assert checked(tmp_path, data, "INT")["status"] == "OK"
    at = bytes(data).index((30).to_bytes(4, "big") + (2).to_bytes(4, "big"))  # chunk head 30, code 2
    data[at:at + 4] = (25).to_bytes(4, "big")  # 10, 20, 25, 40 stays sorted: Java could have written it
    assert checked(tmp_path, data, "INT")["status"] == "OK"
    data[at:at + 4] = (15).to_bytes(4, "big")  # 10, 20, 15, 40: out of order
    outcome = checked(tmp_path, data, "INT")
    assert outcome["status"] == "MALFORMED" and "dictionary sorted and unique" in outcome["error"]


def test_container_gap_and_row_counts(tmp_path, capsys):
    values = [1, 2, None]
    gap = write_entries([("c", "bitmap", bitmap.build(values, INT))])
    padded = bytearray(gap) + b"\x00"
    outcome = checked(tmp_path, padded, None)
    assert outcome["status"] == "OK" and "belong to no index" in outcome["notes"][0]["message"]
    mixed = write_container({"c": {"bitmap": bitmap.build(values, INT), "bsi": bsi.build(values + [4], INT)}})
    outcome = checked(tmp_path, mixed, "INT")
    assert outcome["status"] == "MALFORMED" and "count the same rows" in outcome["error"]


def test_inspect_of_a_cut_container_says_entries_end_past_the_file(capsys, tmp_path):
    path = tmp_path / "cut.index"
    path.write_bytes(ENGINE.read_bytes()[:1000])
    code = main(["inspect", str(path)])
    out, err = capsys.readouterr()
    assert code == 3
    assert "PAST THE END OF THE FILE" in out and "runs past the end of the 1000-byte container" in err
    code = main(["inspect", "--json", str(path)])
    described = json.loads(capsys.readouterr().out)
    assert code == 3 and "error" in described
    assert sum(e.get("past_end", False) for c in described["columns"] for e in c["indexes"]) == 7


def test_bodies_in_another_order_are_valid_and_not_canonical(capsys, tmp_path):
    """Java finds a body by its entry's start and length: bodies in reverse entry order read the same (a
    note, exit 0), and --canonical fails them with exit 6, in text and JSON."""
    values = [1, 2, None, 2]
    ordered = write_entries([("a", "bitmap", bitmap.build(values, INT)), ("b", "bloom-filter",
                                                                         bloom_filter.build(values, INT))])
    head = FileIndexContainer.from_bytes(ordered).head
    first, second = head.entries
    data = bytearray(ordered)
    # swap the bodies and their starts: same bytes per entry, second body first
    data[first.start:] = ordered[second.start:second.start + second.length] + \
        ordered[first.start:first.start + first.length]
    for entry, start in ((first, first.start + second.length), (second, first.start)):
        at = entry.entry_offset + 2 + len(entry.index_type)
        data[at:at + 4] = start.to_bytes(4, "big")
    path = tmp_path / "reordered.index"
    path.write_bytes(bytes(data))
    code, out = run(capsys, "check", "--schema", "a INT, b INT", str(path))
    assert code == 0 and out.startswith("OK ") and "note: " in out and "entry order" in out
    code, out = run(capsys, "check", "--schema", "a INT, b INT", "--canonical", "--json", str(path))
    outcome = json.loads(out)
    assert code == 6 and outcome["status"] == "NON-CANONICAL" and outcome["exit_code"] == 6
    assert any("entry order" in note["message"] for note in outcome["notes"])
    path.write_bytes(ordered)
    assert run(capsys, "check", "--schema", "a INT, b INT", "--canonical", str(path))[0] == 0


def test_an_entry_listed_twice_stays_malformed(capsys, tmp_path):
    """Java's HashMap keeps the last of two (column, index type) entries and drops the other: a misread."""
    path = tmp_path / "twice.index"
    path.write_bytes(write_entries([("c", "bitmap", bitmap.build([3, 5], INT)),
                                    ("c", "bitmap", bitmap.build([5], INT))]))
    code, out = run(capsys, "check", str(path))
    assert code == 3 and "listed twice" in out


def test_roaring_bytes_without_run_containers_are_a_note_and_altered_counts_malformed():
    from pyroaring import BitMap, FrozenBitMap

    from fileindex.indexes import roaring
    from fileindex.indexes.invariants import check_serialized

    rows = FrozenBitMap(range(3000))
    plain = BitMap(list(range(3000)), optimize=False)  # an array container
    stored = plain.serialize()
    assert stored != roaring.serialize(rows)  # Java writes one run container
    notes: list = []
    check_serialized(stored, rows, notes, what="the bitmap", offset=100, field="x")
    assert len(notes) == 1 and f"in {len(stored)} bytes where Java writes" in notes[0].message
    assert notes[0].offset == 100
    notes.clear()
    check_serialized(roaring.serialize(rows), rows, notes, what="the bitmap", offset=100, field="x")
    assert notes == []
    bad = bytearray(stored)
    bad[-2:] = (2998).to_bytes(2, "little")  # the last value repeats the one before it
    with pytest.raises(FileIndexError):
        check_serialized(bytes(bad), rows, notes, what="the bitmap", offset=100, field="x")


def test_a_v1_bitmap_longer_than_the_span_java_gives_it_is_malformed(tmp_path):
    """Java's V1 reader takes each stored bitmap's length from the next stored entry's offset (in entry order):
    swapping two stored offsets gives the first a negative span, which Java cannot read."""
    body = bitmap.build([1, 1, 2, 2, 3, 3], INT, {"version": "1"})
    data = bytearray(container_of("bitmap", body))
    start = body_at(data) + 10  # V1 entries: (key, offset) pairs of 8 bytes
    first, second = data[start + 4:start + 8], data[start + 12:start + 16]
    data[start + 4:start + 8], data[start + 12:start + 16] = second, first
    outcome = checked(tmp_path, data, "INT")
    assert outcome["status"] == "MALFORMED" and "Java's V1 reader gives it" in outcome["error"]


def test_every_negative_kit_case_is_malformed_or_unsupported_never_merely_non_canonical(tmp_path):
    """The kit's negative corpus holds files Java misreads or rejects: `check` must never call one valid."""
    from fileindex.kit.negative import cases

    sources = {name: (JAVA_VECTORS / f"int_nulls__{name}.index").read_bytes()
               for name in ("bloom", "bitmap_v1", "bitmap_v2", "bsi", "range_bitmap")}
    found = {}
    for sidecar, data in cases(sources):
        if data in sources.values():  # a valid file asked an odd question (a null literal): not a bad file
            continue
        path = tmp_path / sidecar["file"]
        path.write_bytes(data)
        found[sidecar["name"]] = check_file(str(path), {"c": INT})["status"]
    assert len(found) >= 13 and set(found.values()) <= {"MALFORMED", "UNSUPPORTED"}, found


@pytest.mark.parametrize("version", ["1", "2"])
def test_a_has_null_byte_other_than_one_is_a_note(tmp_path, version):
    """Java reads the flag with readBoolean: any non-zero byte is true, so 2 reads as Java's 1."""
    data = bytearray(container_of("bitmap", bitmap.build([5, None, 5, None], INT, {"version": version})))
    data[body_at(data) + 9] = 2
    outcome = checked(tmp_path, data, "INT")
    assert outcome["status"] == "OK" and "has_null byte 2" in outcome["notes"][0]["message"]


def test_without_column_types_check_says_the_bodies_went_unchecked(capsys):
    path = str(JAVA_VECTORS / "int_nulls__bitmap_v2.index")
    assert main(["check", path]) == 0
    assert "warning: the bodies were not checked: give the columns' types" in capsys.readouterr().out
    assert main(["check", "--schema", "c INT", path]) == 0
    assert "were not checked" not in capsys.readouterr().out
    outcome = check_file(path)
    assert outcome["bodies_unchecked"] and outcome["bodies_decoded"] == 0


def test_without_column_types_a_bsi_body_is_checked_as_longs(tmp_path, capsys):
    """A bsi body holds longs whatever its column's type: check said OK (bodies unchecked) for one whose existence
    bitmap was no Roaring bitmap, which explain, without types too, showed malformed."""
    data = bytearray((JAVA_VECTORS / "int_nulls__bsi.index").read_bytes())
    assert main(["check", str(JAVA_VECTORS / "int_nulls__bsi.index")]) == 0
    assert "1 bodies decoded and checked\n" in capsys.readouterr().out
    cookie_at = body_at(data) + 23  # version, row count, then the positive half's flag, version, min and max
    data[cookie_at] ^= 0x0A
    broken = tmp_path / "broken.index"
    broken.write_bytes(bytes(data))
    outcome = check_file(str(broken))
    assert (outcome["status"], outcome["offset"]) == ("MALFORMED", cookie_at), outcome
    assert "not a Roaring bitmap" in outcome["error"]
