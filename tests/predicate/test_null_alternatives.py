"""A NULL in an IN list matches no row (SQL, Paimon's row filter): the indexes answer the other literals. Java's bsi
and range-bitmap readers throw on the NULL (the spec's §9.3: REMAIN stands in), which made the whole list
REMAIN; a comparison with NULL alone is still answered as before (the kit's negative cases compare it)."""
import pytest
from conftest import JAVA_VECTORS

from fileindex.container.file import FileIndexContainer
from fileindex.indexes.result import REMAIN, Rows
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.tree import IN_THRESHOLD, Leaf, Or, in_, without_null_alternatives
from fileindex.types import parse_type

EVALUATOR = FileIndexEvaluator({"c": parse_type("INT")})
THREES = Rows([1, 4, 10, 17])  # the rows of c = 3 in int_nulls


@pytest.mark.parametrize("index", ["bsi", "range_bitmap", "bitmap_v2"])
@pytest.mark.parametrize("others", [[3], [3, *range(10**6, 10**6 + IN_THRESHOLD)]], ids=["an OR of =", "an IN leaf"])
def test_a_null_in_an_in_list_leaves_the_other_literals_to_answer(index, others):
    container = FileIndexContainer.open(str(JAVA_VECTORS / f"int_nulls__{index}.index"))
    with_null = EVALUATOR.evaluate_exact(container, in_("c", [*others, None]))
    assert with_null == EVALUATOR.evaluate_exact(container, in_("c", others))
    assert isinstance(with_null.result, Rows) and THREES.bitmap <= with_null.result.bitmap and with_null.exact


@pytest.mark.parametrize("index", ["bsi", "range_bitmap"])
def test_a_comparison_with_null_alone_is_still_remain_where_java_has_no_answer(index):
    container = FileIndexContainer.open(str(JAVA_VECTORS / f"int_nulls__{index}.index"))
    for alone in (Leaf("eq", "c", (None,)), in_("c", [None, None]), in_("c", [None] * (IN_THRESHOLD + 1))):
        assert EVALUATOR.evaluate(container, alone) is REMAIN


def test_only_alternatives_are_left_out():
    eq_null, eq_3, lt_null = Leaf("eq", "c", (None,)), Leaf("eq", "c", (3,)), Leaf("lt", "c", (None,))
    assert without_null_alternatives(Or((eq_3, eq_null, lt_null))) == eq_3
    assert without_null_alternatives(Or((eq_null, lt_null))) == Or((eq_null, lt_null))
    assert without_null_alternatives(Leaf("in", "c", (3, None, 4))) == Leaf("in", "c", (3, 4))
    assert without_null_alternatives(Leaf("not_in", "c", (3, None))) == Leaf("not_in", "c", (3, None))
