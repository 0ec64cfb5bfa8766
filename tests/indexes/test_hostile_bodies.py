"""Index bodies whose answers claim far more than they mean: `fileindex query` stays small (under a
memory limit), answers in ranges clipped to the rows the container records, says when a body claims
rows past them, and refuses an impossible body in one line naming the file and the offset."""
import json
import struct

import pytest
from hostile import fileindex, refused
from pyroaring import BitMap

from fileindex.container.writer import write_entries
from fileindex.indexes.bitmap import writer as bitmap_writer
from fileindex.types import parse_type

ROWS = 2**31 - 1  # rows 0 .. 2^31 - 2


def bitmap_bomb(path, row_count: int) -> None:
    """A valid bitmap V1 container of c INT, rows 0-1 valued 6 and 2-3 valued 7, whose bitmap of 7 is
    replaced by rows 0 .. 2^31 - 2 (about 463 KB of run containers); the body records ``row_count``."""
    layout = bitmap_writer.layout([6, 6, 7, 7], parse_type("INT"), {"version": "1"})
    assert layout.keys == [6, 7] and layout.offsets.tolist() == [0, 20]  # 7's bitmap is the body's last
    rows = BitMap(range(ROWS))
    rows.run_optimize()
    layout.body = layout.body[:20] + rows.serialize()
    layout.row_count = row_count
    path.write_bytes(write_entries([("c", "bitmap", bitmap_writer.encode(layout))]))


def test_a_bitmap_claiming_2_31_rows_past_its_row_count_is_clipped_and_reported(tmp_path):
    path = tmp_path / "bomb.index"
    bitmap_bomb(path, row_count=4)
    assert 400_000 < path.stat().st_size < 500_000
    done = fileindex("query", path, "--schema", "c INT", "--where", "c = 7", "--where", "c <> 7", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    assert [json.loads(line) for line in done.stdout.splitlines()] == [
        {"result": "ROWS", "cardinality": 4, "ranges": [[0, 3]]},
        {"result": "ROWS", "cardinality": 0, "ranges": []}]
    warnings = done.stderr.splitlines()
    assert len(warnings) == 2 and all("past the 4 rows its container records" in w for w in warnings), done.stderr
    assert str(path) in warnings[0] and "c = 7" in warnings[0]


def test_a_bitmap_of_2_31_rows_within_its_row_count_is_answered_as_one_range(tmp_path):
    path = tmp_path / "bomb.index"
    bitmap_bomb(path, row_count=ROWS)
    done = fileindex("query", path, "--schema", "c INT", "--where", "c = 7", "--where", "c <> 6")
    assert done.returncode == 0 and not done.stderr, done.stderr[-2000:]
    assert done.stdout.splitlines() == [f"c = 7  =>  ROWS {ROWS}: 0-{ROWS - 1}",
                                        f"c <> 6  =>  ROWS {ROWS - 2}: 2-{ROWS - 1}"]


def bloom_container(path, hash_functions: int, bit_bytes: int) -> None:
    body = struct.pack(">i", hash_functions) + bytes([0xFF]) * bit_bytes
    path.write_bytes(write_entries([("c", "bloom-filter", body)]))


def test_a_bloom_filter_with_a_huge_hash_count_is_refused_naming_the_offset(tmp_path):
    path = tmp_path / "bloom.index"
    bloom_container(path, hash_functions=2**31 - 1, bit_bytes=1)
    line = refused(fileindex("query", path, "--schema", "c INT", "--where", "c = 7"), str(path), "offset",
                   "hash functions")
    assert "2147483647" in line


@pytest.mark.parametrize("where", ["c = 7", "c IN (" + ", ".join(map(str, range(200))) + ")"])
def test_a_bloom_filter_with_as_many_hash_functions_as_bits_stays_small(tmp_path, where):
    path = tmp_path / "bloom.index"
    bloom_container(path, hash_functions=8 * 65536, bit_bytes=65536)
    done = fileindex("query", path, "--schema", "c INT", "--where", where, "--json", timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == {"result": "REMAIN"}  # every bit set: every value might be there


def test_ranges_read_chunk_by_chunk_are_the_maximal_runs():
    import random

    from fileindex.indexes.result import Rows

    def runs(bitmap):
        found = []
        for row in bitmap:
            if found and found[-1][1] + 1 == row:
                found[-1][1] = row
            else:
                found.append([row, row])
        return [tuple(r) for r in found]

    rng = random.Random(46)
    for _ in range(200):
        bitmap = BitMap()
        for _ in range(rng.randrange(6)):  # runs across 2^16-row chunks, whole chunks, partial ones
            first = rng.randrange(400_000)
            bitmap.add_range(first, first + rng.choice([1, 2, 65_536, 70_000, 131_072, rng.randrange(1, 300_000)]))
        bitmap.update(rng.randrange(600_000) for _ in range(rng.randrange(50)))
        assert Rows(bitmap).ranges() == runs(bitmap)


def test_a_memory_error_that_slips_through_is_one_line_not_a_traceback(monkeypatch, capsys):
    from fileindex.cli import EXIT_MALFORMED, main, query

    def exhausted(args):
        raise MemoryError

    monkeypatch.setattr(query, "run", exhausted)
    assert main(["query", "any.index", "--schema", "c INT", "--where", "c = 1"]) == EXIT_MALFORMED
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fileindex query: ran out of memory")
    assert "MemoryError" not in lines[0]
