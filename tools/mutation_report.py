"""Mutate Java-written index bodies systematically and report what ``fileindex check`` catches.

    python tools/mutation_report.py [VECTOR_FOLDER] [--step-divisor N]

Each vector of tests/vectors/java (or the folder given) has its body mutated: a bit flipped at
every Nth offset, 8 zero bytes at three places, 4-byte words swapped (neighbours, and 8 or 12
bytes apart: the keys of neighbouring bitmap entries), the body truncated. The
mutant goes back into a container (the layout stays consistent) and is classified:

* caught: ``check --canonical`` (with the column's type) reports it malformed or non-canonical;
* java-writable: not caught, and the body is exactly what Java writes for the data it encodes
  (decoded row by row and rebuilt with the project's byte-identical writer): only the data can
  tell (``fileindex verify``);
* harmless: not caught, and every recorded query answers as Java's did (or, for a bloom filter,
  only more conservatively: REMAIN where Java answered SKIP);
* bloom-undetectable: a bloom filter not caught that now skips a value it holds (a cleared bit: a
  false negative no fill statistic can see);
* MISSED: none of these: a mutant check should have caught. The test asserts there are none.

TIMESTAMP(p > 6), whose rows are not rebuilt here, counts its uncaught answer-changing mutants
as MISSED too, so the test proves them caught.
"""
from __future__ import annotations

import argparse
import decimal
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pyarrow as pa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fileindex.container.file import FileIndexContainer  # noqa: E402
from fileindex.container.writer import write_entries  # noqa: E402
from fileindex.errors import FileIndexError  # noqa: E402
from fileindex.indexes.deep_check import check_container_bodies  # noqa: E402
from fileindex.indexes.registry import INDEX_TYPES  # noqa: E402
from fileindex.indexes.result import REMAIN, SKIP  # noqa: E402
from fileindex.reference.vector_format import current_java_answer, recorded_query, result_matches  # noqa: E402
from fileindex.types import parse_type  # noqa: E402

CLASSES = ("caught", "java-writable", "harmless", "bloom-undetectable", "MISSED")
_INTEGER_ROOTS = {"TINYINT", "SMALLINT", "INT", "BIGINT", "DATE"}


def mutants(body: bytes, divisor: int = 24):
    """(description, mutated body) pairs: flips at every Nth offset, zeroed runs, swapped words, cuts."""
    size = len(body)
    step = max(1, size // divisor)
    for at in range(0, size, step):
        flipped = bytearray(body)
        flipped[at] ^= 1 << (at % 8)
        yield f"flip bit {at % 8} of byte {at}", bytes(flipped)
    if size >= 16:
        for at in (size // 4, size // 2, 3 * size // 4):
            zeroed = bytearray(body)
            zeroed[at:at + 8] = bytes(8)
            if zeroed != body:
                yield f"zero 8 bytes at {at}", bytes(zeroed)
        # 4-byte words 4, 8 and 12 bytes apart: 8 and 12 swap the keys of neighbouring bitmap
        # entries (an INT key and its offset; V2 adds a length)
        for distance in (4, 8, 12):
            for at in (size // 3, size // 2):
                if at + distance + 4 > size:
                    continue
                swapped = bytearray(body)
                other = at + distance
                swapped[at:at + 4], swapped[other:other + 4] = body[other:other + 4], body[at:at + 4]
                if swapped != body:
                    yield f"swap the words at {at} and {other}", bytes(swapped)
    for cut in sorted({size // 4, size // 2, 3 * size // 4, size - 1}):
        if 0 < cut < size:
            yield f"truncate to {cut} bytes", body[:cut]


def answers_changed(record: dict, index_type: str, data_type, payload: bytes) -> tuple[bool, bool]:
    """(any recorded query answers differently, one answers less than Java: a row or file it needs is dropped)."""
    try:
        reader = INDEX_TYPES[index_type].reader(payload, data_type)
    except FileIndexError:
        return True, True
    changed = harmful = False
    for query in record.get("queries", ()):
        op = query["op"]
        expected = current_java_answer(index_type, data_type, op, query["result"])
        try:
            operator, literals = recorded_query(op, data_type)
            result = operator.visit(reader, literals)
        except FileIndexError:
            return True, True
        if result_matches(result, expected):
            continue
        changed = True
        if index_type != "bloom-filter" or not (expected == SKIP.kind and result is REMAIN):
            harmful = True
    return changed, harmful


def implied_column(index_type: str, data_type, payload: bytes):
    """The column a bitmap, bsi or range-bitmap body encodes (an Arrow array), or None when this
    script cannot rebuild that type or the body does not describe one value per row."""
    rebuilt = data_type.root in _INTEGER_ROOTS | {"BOOLEAN", "FLOAT", "DOUBLE", "DECIMAL"} or data_type.is_string or (
        data_type.is_timestamp and data_type.precision <= 6)
    if not rebuilt:
        return None
    reader = INDEX_TYPES[index_type].reader(payload, data_type)
    keys: dict[int, object] = {}

    def put(rows, key) -> bool:
        for row in rows:
            if row in keys:
                return False
            keys[row] = key
        return True

    if index_type == "bitmap":
        for dictionary in reader._dictionaries():
            for _, key, location in dictionary.entries():
                if not put(reader._bitmap_at(*location, key), key):
                    return None
        nulls, row_count = reader._nulls(), reader.row_count
        if any(row in keys for row in nulls):
            return None
    elif index_type == "bsi":
        row_count = reader.row_count
        for half, sign in ((reader.positive, 1), (reader.negative, -1)):
            rows = list(half.ebm)
            values = dict.fromkeys(rows, 0)
            for i in range(len(half.slices)):
                for row in reader._slice(half, i):
                    if row not in values:
                        return None
                    values[row] |= 1 << i
            for row, magnitude in values.items():
                if not put([row], sign * (magnitude + half.min)):
                    return None
    else:
        reader._read_header()
        row_count = reader.row_count
        if reader.cardinality:
            by_code = []
            for index, chunk in enumerate(reader._read_chunks()):
                by_code += [chunk.head, *reader._chunk_keys(index)]
            # the reader keeps Float.compare order keys: the transform is its own inverse
            if reader.kind.name in ("f4", "f8"):
                by_code = [reader.kind.sort_key(key) for key in by_code]
            codes = dict.fromkeys(reader._ebm, 0)
            for i in range(reader._num_slices):
                for row in reader._slice(i):
                    if row not in codes:
                        return None
                    codes[row] |= 1 << i
            for row, code in codes.items():
                if code >= len(by_code):
                    return None
                put([row], by_code[code])
    if any(row >= row_count for row in keys):
        return None
    column = [keys.get(row) for row in range(row_count)]
    if data_type.is_string:
        return pa.array(column, pa.binary())
    if data_type.root == "BOOLEAN":
        return pa.array([None if k is None else bool(k) for k in column], pa.bool_())
    if data_type.root in ("FLOAT", "DOUBLE"):  # keys are the bits (raw for range-bitmap), read back as floats
        single = data_type.root == "FLOAT"
        bits = np.array([0 if k is None else k for k in column], dtype=np.int64)
        floats = bits.astype(np.int32).view(np.float32) if single else bits.view(np.float64)
        return pa.array(floats, mask=np.array([k is None for k in column]))
    from fileindex.arrow.types import arrow_type

    if data_type.root == "DECIMAL":  # keys are unscaled longs
        return pa.array([None if k is None else decimal.Decimal(k).scaleb(-data_type.scale) for k in column],
                        arrow_type(data_type))

    integers = pa.array(column, pa.int32() if data_type.root == "DATE" else pa.int64())
    return integers.cast(arrow_type(data_type), safe=False)


def java_writable(record: dict, index_type: str, data_type, payload: bytes) -> bool | None:
    """Whether Java writes exactly ``payload`` for the data it encodes; None when it cannot be told here."""
    try:
        column = implied_column(index_type, data_type, payload)
        if column is None:
            return None
        return INDEX_TYPES[index_type].build(column, data_type, record["options"]) == payload
    except (FileIndexError, pa.ArrowException, UnicodeDecodeError, OverflowError, ValueError):
        return False


def classify(record: dict, payload: bytes) -> str:
    index_type, data_type = record["index_type"], parse_type(record["type"])
    container = FileIndexContainer.from_bytes(write_entries([("c", index_type, payload)]))
    try:
        container.validate_layout()
        # a mutant Java reads correctly but its writer would not produce is caught by check --canonical
        caught = bool(check_container_bodies(container, {"c": data_type}).notes)
    except FileIndexError:
        caught = True
    if caught:
        return "caught"
    changed, harmful = answers_changed(record, index_type, data_type, payload)
    if index_type == "bloom-filter":
        return "bloom-undetectable" if harmful else "harmless"
    writable = java_writable(record, index_type, data_type, payload)
    if writable:
        return "java-writable" if changed else "harmless"
    if writable is None and not changed:
        return "harmless"
    return "MISSED"


def run(folder: Path, divisor: int = 24, names=None) -> tuple[dict[str, Counter], list[str]]:
    """Counts of each class by layout, and the MISSED mutants; ``names``: only these vectors."""
    records = json.loads((folder / "vectors.json").read_text())["vectors"]
    counts: dict[str, Counter] = defaultdict(Counter)
    missed = []
    for record in records:
        if record["status"] != "ok" or record["index_type"] not in INDEX_TYPES:
            continue
        if names is not None and record["name"] not in names:
            continue
        container = FileIndexContainer.open(folder / record["file"])
        (entry,) = list(container)
        body = bytes(container.body(entry))
        container.close()
        for description, payload in mutants(body, divisor):
            verdict = classify(record, payload)
            layout = f"bitmap v{body[0]}" if record["index_type"] == "bitmap" else record["index_type"]
            counts[layout][verdict] += 1
            if verdict == "MISSED":
                missed.append(f"{record['name']}: {description}")
    return counts, missed


def render(counts: dict[str, Counter]) -> str:
    lines = [f"{'index type':<14} {'mutants':>8} " + " ".join(f"{c:>18}" for c in CLASSES) + "  undetectable"]
    total = Counter()
    for layout in sorted(counts):
        row = counts[layout]
        total.update(row)
        lines.append(_line(layout, row))
    lines.append(_line("all", total))
    return "\n".join(lines)


def _line(name: str, row: Counter) -> str:
    mutants_ = sum(row.values())
    undetectable = row["java-writable"] + row["harmless"] + row["bloom-undetectable"]
    return (f"{name:<14} {mutants_:>8} " + " ".join(f"{row[c]:>18}" for c in CLASSES)
            + f"  {100 * undetectable / max(mutants_, 1):.1f}%")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default=str(ROOT / "tests" / "vectors" / "java"))
    parser.add_argument("--step-divisor", type=int, default=24, help="flip a bit at every size/N-th offset")
    args = parser.parse_args(argv)
    counts, missed = run(Path(args.folder), args.step_divisor)
    print(render(counts))
    for line in missed[:50]:
        print("MISSED", line)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
