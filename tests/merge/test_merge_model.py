"""The streaming merge against a plain-Python model of each merge engine, on random upserts and deletes laid
out as Java lays a bucket out (a top level of disjoint files, maybe a level below it, level-0 files; each file
holding a key once), read in tiny batches so that every batch boundary and bound of the merge is crossed."""
from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fileindex.merge.errors import MergeError
from fileindex.merge.layout import KeyValueFile, read_columns, system_columns
from fileindex.merge.reader import merge_bucket
from fileindex.merge.spec import Aggregate, MergeSpec
from fileindex.types import parse_type

FIELDS = (("id", parse_type("INT NOT NULL")), ("a", parse_type("INT")), ("b", parse_type("STRING")),
          ("ts", parse_type("BIGINT")))
ARROW = {"id": pa.int32(), "a": pa.int32(), "b": pa.string(), "ts": pa.int64()}
COLUMNS = ["id", "a", "b", "ts"]
ADD, RETRACT = ("+I", "+U"), ("-U", "-D")
KIND_CODES = {"+I": 0, "-U": 1, "+U": 2, "-D": 3}
AGGREGATES = (("id", Aggregate("primary-key")), ("a", Aggregate("sum")), ("b", Aggregate("listagg", True, "|")),
              ("ts", Aggregate("max", True)))
PICKING = (("id", Aggregate("primary-key")), ("a", Aggregate("last_non_null_value")),
           ("b", Aggregate("first_non_null_value", True)), ("ts", Aggregate("last_value")))


def specs():
    dedupe = st.builds(lambda ignore, sequence: MergeSpec("deduplicate", ("id",), FIELDS, ("ts",) if sequence else (),
                                                          ignore), st.booleans(), st.booleans())
    return st.one_of(dedupe, st.just(MergeSpec("first-row", ("id",), FIELDS, ignore_delete=True)),
                     st.just(MergeSpec("partial-update", ("id",), FIELDS, ignore_delete=True)),
                     st.just(MergeSpec("aggregation", ("id",), FIELDS, aggregates=AGGREGATES)),
                     st.just(MergeSpec("aggregation", ("id",), FIELDS, aggregates=PICKING)))


@st.composite
def layouts(draw):
    """(files as (level, [(key, kind, seq, a, b, ts)]), batch rows): records older on higher levels."""
    seq = iter(range(10**6))

    def records(keys):
        return [(k, draw(st.sampled_from(ADD + RETRACT if draw(st.integers(0, 4)) == 0 else ADD)), next(seq),
                 draw(st.none() | st.integers(-3, 3)), draw(st.none() | st.sampled_from(["x", "y", "zz"])),
                 draw(st.none() | st.integers(0, 3))) for k in sorted(keys)]

    keys = st.sets(st.integers(0, 12), max_size=10)
    files = []
    for level in draw(st.sampled_from([[5], [5, 3], [4, 1], []])):
        rows = records(draw(keys))
        cuts = sorted(draw(st.sets(st.integers(1, max(1, len(rows) - 1)), max_size=2)))
        for start, end in zip([0, *cuts], [*cuts, len(rows)], strict=True):
            if rows[start:end]:
                files.append((level, rows[start:end]))
    for _ in range(draw(st.integers(0, 3))):
        rows = records(draw(keys))
        if rows:
            files.append((0, rows))
    return files, draw(st.integers(1, 4)), draw(st.booleans())


def kv_file(number: int, level: int, rows: list, batch_rows: int, ranged: bool) -> KeyValueFile:
    table = pa.table({"_KEY_id": pa.array([r[0] for r in rows], pa.int32()),
                      "_SEQUENCE_NUMBER": pa.array([r[2] for r in rows], pa.int64()),
                      "_VALUE_KIND": pa.array([KIND_CODES[r[1]] for r in rows], pa.int8()),
                      "id": pa.array([r[0] for r in rows], pa.int32()),
                      "a": pa.array([r[3] for r in rows], pa.int32()),
                      "b": pa.array([r[4] for r in rows], pa.string()),
                      "ts": pa.array([r[5] for r in rows], pa.int64())})
    retractions = sum(r[1] in RETRACT for r in rows)
    return KeyValueFile(f"f{number}", level, len(rows), retractions, (rows[0][0],) if ranged else None,
                        (rows[-1][0],) if ranged else None, lambda: iter(table.to_batches(max_chunksize=batch_rows)))


def model(spec: MergeSpec, files: list) -> list[dict]:
    """Each key's row, as the engine's rules say, from all its records in sequence order."""
    by_key: dict[int, list] = {}
    for _, rows in files:
        for row in rows:
            by_key.setdefault(row[0], []).append(row)
    if spec.engine == "first-row":  # a batch scan of a first-row table reads only compacted files
        by_key = {}
        for level, rows in files:
            for row in rows if level > 0 else ():
                by_key.setdefault(row[0], []).append(row)
    out = []
    for key in sorted(by_key):
        if spec.sequence_fields:
            records = sorted(by_key[key], key=lambda r: (r[5] is not None, r[5] or 0, r[2]))
        else:
            records = sorted(by_key[key], key=lambda r: r[2])
        row = one_key(spec, records)
        if row is not None:
            out.append(dict(zip(COLUMNS, row, strict=True)))
    return out


def one_key(spec: MergeSpec, records: list) -> list | None:
    values = [[r[0], r[3], r[4], r[5]] for r in records]
    if len(records) == 1:
        return None if records[0][1] in RETRACT else values[0]
    kept = [v for r, v in zip(records, values, strict=True) if not (spec.ignore_delete and r[1] in RETRACT)]
    if spec.engine == "deduplicate":
        last = [r for r in records if not (spec.ignore_delete and r[1] in RETRACT)]
        return None if not last or last[-1][1] in RETRACT else kept[-1]
    if spec.engine == "first-row":
        return kept[0] if kept else None
    if spec.engine == "partial-update":
        row = [None] * 4
        for v in kept:
            row = [new if new is not None else old for old, new in zip(row, v, strict=True)]
        return row
    if spec.aggregates == PICKING:
        return picked(records, values)
    total, parts, top = None, [], None  # sum(a), listagg(b), max(ts); retractions: sum only
    for r, (_, a, b, ts) in zip(records, values, strict=True):
        if r[1] in RETRACT:
            total = total if a is None else (-a if total is None else total - a)
            continue
        total = total if a is None else (a if total is None else total + a)
        parts += [b] if b is not None else []
        top = ts if top is None or (ts is not None and ts > top) else top
    return [records[-1][0], total, "|".join(parts) if parts else None, top]


def picked(records: list, values: list) -> list:
    """last_non_null_value(a), first_non_null_value(b) ignoring retractions, last_value(ts)."""
    last_a, first_b, last_ts = None, None, None
    for r, (_, a, b, ts) in zip(records, values, strict=True):
        retract = r[1] in RETRACT
        if a is not None:
            last_a = None if retract else a
        if not retract and first_b is None and b is not None:
            first_b = b
        last_ts = None if retract else ts
    return [records[-1][0], last_a, first_b, last_ts]


@settings(max_examples=80)
@given(specs(), layouts())
def test_the_merge_equals_the_model(spec, layout):
    files, batch_rows, ranged = layout
    if spec.engine == "first-row":  # Java's writer drops its retractions, its lookup keeps a key on one level
        seen: set[int] = set()
        kept = []
        for level, rows in files:
            rows = [r for r in rows if r[1] in ADD and not (level > 0 and r[0] in seen)]
            seen |= {r[0] for r in rows} if level > 0 else set()
            kept += [(level, rows)] if rows else []
        files = kept
    wanted = system_columns(spec) + read_columns(spec, COLUMNS)
    assert set(wanted) <= {"_KEY_id", "_SEQUENCE_NUMBER", "_VALUE_KIND", *COLUMNS}
    handed = [kv_file(i, level, rows, batch_rows, ranged) for i, (level, rows) in enumerate(files)]
    merged = [row for batch in merge_bucket(spec, handed, COLUMNS) for row in batch.to_pylist()]
    def order(row: dict) -> tuple:
        return row["id"] is not None, row["id"] or 0, str(row)
    assert sorted(merged, key=order) == sorted(model(spec, files), key=order)


def test_a_first_row_key_with_a_retraction_fails_as_java_fails():
    spec = MergeSpec("first-row", ("id",), FIELDS)
    files = [kv_file(0, 5, [(1, "+I", 0, 1, "x", None)], 2, True), kv_file(1, 4, [(1, "-D", 1, 1, "x", None)], 2, True)]
    with pytest.raises(MergeError, match="ignore-delete"):
        list(merge_bucket(spec, files, COLUMNS))


def test_the_merge_streams_a_batch_or_two_per_run():
    """Three overlapping runs of 400 one-row batches each: the first rows come out after a few batches of each
    run were read, not after the bucket was."""
    spec = MergeSpec("deduplicate", ("id",), FIELDS)
    read = []

    def run(number: int, offset: int) -> KeyValueFile:
        keys = list(range(offset, 1200, 3))
        table = pa.table({"_KEY_id": pa.array(keys, pa.int32()), "_SEQUENCE_NUMBER": pa.array(keys, pa.int64()),
                          "_VALUE_KIND": pa.array([0] * len(keys), pa.int8()), "id": pa.array(keys, pa.int32()),
                          "a": pa.array(keys, pa.int32()), "b": pa.nulls(len(keys), pa.string()),
                          "ts": pa.nulls(len(keys), pa.int64())})

        def batches():
            for batch in table.to_batches(max_chunksize=1):
                read.append(number)
                yield batch
        return KeyValueFile(f"r{number}", 0, len(keys), 0, (keys[0],), (keys[-1],), batches)

    stream = merge_bucket(spec, [run(i, i) for i in range(3)], COLUMNS)
    first = next(stream)
    assert first.num_rows >= 1 and len(read) <= 6
    assert sum(b.num_rows for b in stream) + first.num_rows == 1200


@pytest.mark.parametrize(("column", "value", "message"), [
    ("_VALUE_KIND", 7, "row 1: _VALUE_KIND 7 is not a row kind"),
    ("_SEQUENCE_NUMBER", None, "a null _SEQUENCE_NUMBER at row 1"),
    ("_KEY_id", None, "a null _KEY_id at row 1"),
    ("_KEY_id", -5, "bad.parquet: row 1 has a smaller key than"),
])
def test_malformed_files_are_named_at_their_row(column, value, message):
    from fileindex.table.errors import TableError

    spec = MergeSpec("deduplicate", ("id",), FIELDS)
    good = kv_file(0, 5, [(1, "+I", 0, 1, "x", None), (2, "+I", 1, 2, "y", None)], 1, True)
    table = pa.Table.from_batches(list(good.batches()))
    index = table.schema.get_field_index(column)
    values = table.column(column).to_pylist()
    values[1] = value
    broken = table.set_column(index, table.schema.field(column).with_nullable(True),
                              pa.array(values, table.schema.field(column).type))
    bad = KeyValueFile("bad.parquet", 0, 2, 0, (1,), (2,), lambda: iter(broken.to_batches(max_chunksize=1)))
    with pytest.raises(TableError, match=message):
        list(merge_bucket(spec, [good, bad], COLUMNS))


def test_files_whose_recorded_key_ranges_lie_are_refused():
    """Two files said to hold keys 1..2 and 3..4 (two sections) both hold key 2: a key would come out twice."""
    from fileindex.table.errors import TableError

    spec = MergeSpec("deduplicate", ("id",), FIELDS)
    first = kv_file(0, 0, [(1, "+I", 0, 1, None, None), (2, "+I", 1, 2, None, None)], 2, True)
    second = kv_file(1, 0, [(2, "+I", 2, 3, None, None), (4, "+I", 3, 4, None, None)], 2, True)
    second = KeyValueFile(second.name, 0, 2, 0, (3,), (4,), second.batches)
    with pytest.raises(TableError, match="comes back"):
        list(merge_bucket(spec, [first, second], COLUMNS))


@pytest.mark.parametrize(("second_rows", "message"), [
    ([(2, "+I", 5, 21, None, None), (4, "+I", 3, 4, None, None)], "f1: row 0 holds key .2,., not above .2,."),
    ([(3, "+I", 5, 3, None, None), (3, "+I", 6, 30, None, None)], "f1: row 1 repeats the key of row 0"),
    ([(4, "+I", 5, 4, None, None), (3, "+I", 6, 3, None, None)], "f1: row 1 has a smaller key than row 0"),
])
def test_a_level_read_without_a_merge_holds_each_key_once(second_rows, message):
    """Files on one level above 0, without retractions, are read raw (as Java reads them); a level is one sorted
    run, so a key twice in it (files overlapping, or a file holding it twice) is refused rather than read out
    twice, an old version beside the new."""
    from fileindex.table.errors import TableError

    spec = MergeSpec("deduplicate", ("id",), FIELDS)
    first = kv_file(0, 3, [(1, "+I", 0, 1, None, None), (2, "+I", 1, 20, None, None)], 2, True)
    second = kv_file(1, 3, second_rows, 2, True)
    with pytest.raises(TableError, match=message):
        list(merge_bucket(spec, [second, first], COLUMNS))


def test_a_level_of_files_of_unknown_key_ranges_is_merged():
    """Without the files' key ranges their keys cannot be checked across the level: merged, a key once."""
    spec = MergeSpec("deduplicate", ("id",), FIELDS)
    files = [kv_file(0, 3, [(1, "+I", 0, 1, None, None), (2, "+I", 1, 20, None, None)], 2, False),
             kv_file(1, 3, [(2, "+I", 5, 21, None, None), (4, "+I", 3, 4, None, None)], 2, False)]
    rows = pa.Table.from_batches(list(merge_bucket(spec, files, COLUMNS))).to_pylist()
    assert [(r["id"], r["a"]) for r in rows] == [(1, 1), (2, 21), (4, 4)]


def test_a_levels_key_ranges_are_compared_only_in_an_order_java_shares():
    """Two level-1 files of INT keys 1..5 and 5..9 overlap; of DOUBLE keys -0.0 and 0.0 they do not for Java
    (Double.compare orders -0.0 first), though Python finds them equal: not compared."""
    from fileindex.java.binary_row import serialize
    from fileindex.merge.sections import refuse_unmerged_misreads
    from fileindex.table.errors import TableError
    from fileindex.table.manifest_entry import EntryKind, ManifestEntry
    from fileindex.table.metadata import Field, Schema

    def level(type_text: str, ranges: list[tuple]) -> tuple[Schema, list[ManifestEntry]]:
        key_type = parse_type(type_text)
        schema = Schema(0, (Field(0, "k", key_type),), (), ("k",))
        return schema, [ManifestEntry(EntryKind.ADD, b"", 0, 1, f"f{n}", 2, 0, (), None, None, None, None, 0,
                                      min_key=serialize([low], [key_type]), max_key=serialize([high], [key_type]))
                        for n, (low, high) in enumerate(ranges)]

    refuse_unmerged_misreads(*level("INT NOT NULL", [(1, 4), (5, 9)]), "t")
    with pytest.raises(TableError, match=r"data files f0 \(keys \(1,\) to \(5,\)\) and f1 .* overlap on level 1"):
        refuse_unmerged_misreads(*level("INT NOT NULL", [(1, 5), (5, 9)]), "t")
    refuse_unmerged_misreads(*level("DOUBLE NOT NULL", [(-1.0, -0.0), (0.0, 2.0)]), "t")
