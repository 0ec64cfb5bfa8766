"""The one walk over the predicate tree (fileindex.predicate.tree.visit and its visitors), and a table
predicate remapped for a data file of an older schema (fileindex.table.evolution.remap_predicate)."""
import glob
from pathlib import Path

import pytest
from conftest import ROOT

from fileindex.predicate.operators import Operator
from fileindex.predicate.parser import parse_predicate, to_sql
from fileindex.predicate.tree import (
    And,
    Leaf,
    LeafRewrite,
    Or,
    PredicateVisitor,
    conjuncts,
    leaves,
    negate,
    visit,
)
from fileindex.table.evolution import FilePredicate, remap_predicate
from fileindex.table.metadata import load_schema
from fileindex.table.store import TableStore

TYPES = {"a": "INT", "b": "INT", "s": "STRING"}


def parse(text: str):
    from fileindex.types import parse_type

    return parse_predicate(text, {name: parse_type(t) for name, t in TYPES.items()})


class Truth(PredicateVisitor[bool]):
    """Whether a row satisfies the tree (=, > only), recording the leaves it looked at."""

    def __init__(self, row: dict):
        self.row, self.seen = row, []

    def leaf(self, leaf: Leaf) -> bool:
        self.seen.append(leaf.column)
        value = self.row[leaf.column]
        return value == leaf.literals[0] if leaf.function is Operator.EQ else value > leaf.literals[0]

    def and_(self, children) -> bool:
        return all(children)

    def or_(self, children) -> bool:
        return any(children)


def test_a_visitor_answers_bottom_up_and_stops_where_its_and_stops():
    predicate = parse("a = 1 AND (b > 2 OR s = 'x') AND b = 7")
    truth = Truth({"a": 1, "b": 3, "s": "y"})
    assert visit(predicate, truth) is False
    assert truth.seen == ["a", "b", "b"]  # the OR stopped at b > 2; s = 'x' was never visited
    stopped = Truth({"a": 0, "b": 3, "s": "y"})
    assert visit(predicate, stopped) is False and stopped.seen == ["a"]


def test_visit_refuses_what_is_not_a_predicate_tree():
    with pytest.raises(TypeError, match="not a predicate: 'a = 1'"):
        visit("a = 1", Truth({}))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not a predicate: None"):
        visit(And((Leaf("eq", "a", (1,)), None)), Truth({"a": 1}))  # type: ignore[arg-type]


class Doubled(LeafRewrite):
    def leaf(self, leaf: Leaf):
        if leaf.column == "a":  # a leaf may become a subtree: OR inside OR is flattened
            return Or((leaf, Leaf(leaf.function, "b", leaf.literals)))
        return leaf


def test_a_leaf_rewrite_rebuilds_the_tree_flat():
    predicate = parse("(a = 1 OR s = 'x') AND b > 2")
    assert visit(predicate, Doubled()) == And((Or((Leaf("eq", "a", (1,)), Leaf("eq", "b", (1,)),
                                                  Leaf("eq", "s", ("x",)))), Leaf("gt", "b", (2,))))
    assert visit(parse("s = 'x'"), Doubled()) == Leaf("eq", "s", ("x",))


def test_the_helpers_on_the_walk():
    predicate = parse("a = 1 AND (b > 2 OR s IS NULL) AND a < 5")
    assert [leaf.column for leaf in leaves(predicate)] == ["a", "b", "s", "a"]
    assert to_sql(negate(predicate)) == "a <> 1 OR (b <= 2 AND s IS NOT NULL) OR a >= 5"
    assert to_sql(predicate) == "a = 1 AND (b > 2 OR s IS NULL) AND a < 5"
    assert len(conjuncts(predicate)) == 3 and conjuncts(parse("a = 1")) == (parse("a = 1"),)


# schema 0: f0 STRING (id 0), f1 INT (1), f2 INT (2), f3 DOUBLE (3); schema 1: f1 BIGINT (id 1), f4 STRING
# (id 0, f0 renamed), f3 DOUBLE (3), f5 INT (id 4, added: absent from files of schema 0)
TABLE = Path(glob.glob(str(ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap_alter_table.db" / "*"))[0])
OLD, NEW = load_schema(TableStore(TABLE), 0), load_schema(TableStore(TABLE), 1)


def remapped(text: str, *, absent_as_null: bool = False) -> FilePredicate:
    return remap_predicate(parse_predicate(text, NEW.types()), NEW, OLD, absent_as_null=absent_as_null)


def test_remapping_follows_field_ids_and_keeps_what_the_file_can_answer():
    same = parse_predicate("f4 = 'x'", NEW.types())
    assert remap_predicate(same, NEW, NEW) == FilePredicate(same)
    assert remapped("f4 = 'x' AND f1 = 5") == FilePredicate(parse_predicate("f0 = 'x' AND f1 = 5", OLD.types()))
    assert remapped("f4 = 'x' AND f1 = 5000000000") == FilePredicate(Leaf("eq", "f0", ("x",)),  # not an INT
                                                                      lossless=False)
    assert remapped("f1 = 5000000000") == FilePredicate(None, lossless=False)  # nothing usable: every row may match


@pytest.mark.parametrize("text, plain, absent_as_null", [
    ("f5 = 3", FilePredicate(None, lossless=False), FilePredicate(None, matches_nothing=True)),
    ("f5 IS NULL", FilePredicate(None, lossless=False), FilePredicate(None)),  # every row of the file satisfies it
    ("f5 IS NULL OR f4 = 'x'", FilePredicate(None, lossless=False), FilePredicate(None)),
    ("f5 = 3 OR f4 = 'x'", FilePredicate(None, lossless=False),
     FilePredicate(None, lossless=False)),  # only a whole conjunct decides
    ("f4 = 'x' AND f5 > 1", FilePredicate(Leaf("eq", "f0", ("x",)), lossless=False),
     FilePredicate(None, matches_nothing=True)),
    ("f4 = 'x' AND f5 IS NULL", FilePredicate(Leaf("eq", "f0", ("x",)), lossless=False),
     FilePredicate(Leaf("eq", "f0", ("x",)))),
])
def test_a_column_the_file_lacks(text, plain, absent_as_null):
    assert remapped(text) == plain
    assert remapped(text, absent_as_null=True) == absent_as_null
