"""An index read under another integer type than the one it was built for (a wrong ``--schema``, a hostile
file): the reader refuses with a typed error or answers soundly, never with fewer rows than the truth. A BIGINT
bitmap read as INT once decoded by chance and answered ``c = 1`` with no row (its row 2 holds 1)."""
import pytest
from vector_cases import all_cases

from fileindex.errors import FileIndexError
from fileindex.indexes.registry import INDEX_TYPES
from fileindex.indexes.result import SKIP, Rows
from fileindex.types import parse_type

WIDTHS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}
# a bloom filter stores no keys, only hashes of them: a wrong type changes the hash and nothing in its bytes
# can tell (the guide says the schema must be the written one); every other index decodes keys
KEYED = [c for c in all_cases()
         if c.ok and c.record["type"] in WIDTHS and c.record["index_type"] in INDEX_TYPES
         and c.record["index_type"] != "bloom-filter"]


def _missed_rows(result, rows: set[int]) -> set[int]:
    if result is SKIP:
        return rows
    if isinstance(result, Rows):
        return rows - set(result.bitmap)
    return set()  # REMAIN


@pytest.mark.parametrize("case", KEYED, ids=lambda c: c.name)
def test_an_index_read_as_another_integer_type_never_loses_rows(case):
    values = case.values()
    lost = []
    for wrong in WIDTHS.keys() - {case.record["type"]}:
        bits = WIDTHS[wrong]
        fitting = sorted({v for v in values if v is not None and -(1 << bits - 1) <= v < 1 << bits - 1})
        for value in fitting[:8] + fitting[-8:]:  # (the extremes: a misread min or max shows there)
            truth = {row for row, v in enumerate(values) if v == value}
            try:  # (a reader opened per query: one refused query must not hide another's answer)
                reader = INDEX_TYPES[case.record["index_type"]].reader(case.payload(), parse_type(wrong))
                result = reader.visit_equal(value)
            except FileIndexError:
                continue  # refused, naming the file's bytes: what a wrong type should get
            if missed := _missed_rows(result, truth):
                lost.append((wrong, value, sorted(missed)))
    assert not lost


def test_the_case_once_answered_wrongly_is_among_them():
    assert "bigint_min_edge__bitmap_v1" in {c.name for c in KEYED}
