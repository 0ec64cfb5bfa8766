"""The operator type: every name and rule of a leaf function in one place, and the code dispatching on it."""
import pickle

import pytest

from fileindex.errors import FileIndexError, UsageError
from fileindex.indexes.reader import FileIndexReader
from fileindex.indexes.result import Rows
from fileindex.predicate.java import parse_java_predicate
from fileindex.predicate.operators import ANY, Operator
from fileindex.predicate.parser import parse_predicate, to_sql
from fileindex.predicate.tree import Leaf, negate
from fileindex.reference.predicate_json import predicate_from_json, predicate_to_json
from fileindex.reference.vector_format import recorded_query
from fileindex.spark.expressions import _filter
from fileindex.types import parse_schema

SCHEMA = parse_schema("c INT")
LITERALS = {0: (), 1: (5,), 2: (1, 9), ANY: (1, 2, 3)}


def test_an_unknown_function_is_a_usage_error_that_lists_the_known_ones():
    with pytest.raises(UsageError, match=r"unknown predicate function 'like'.*eq, neq.*not_between") as caught:
        Leaf("like", "c", ("x",))
    assert isinstance(caught.value, FileIndexError)
    with pytest.raises(UsageError):
        Leaf(["eq"], "c", (1,))  # unhashable: still the project's error


@pytest.mark.parametrize("operator", list(Operator))
def test_a_leaf_with_literals_its_operator_cannot_take_is_a_usage_error(operator):
    given = LITERALS[operator.arity]
    assert Leaf(operator, "c", list(given)).literals == given  # a list is taken as the tuple it holds
    for wrong in ((), (5,), (1, 9)):
        if operator.arity is not ANY and len(wrong) != operator.arity:
            with pytest.raises(UsageError, match=f"takes {operator.arity} literal"):
                Leaf(operator, "c", wrong)
    with pytest.raises(UsageError, match="as a tuple"):
        Leaf(operator, "c", 5)


@pytest.mark.parametrize("operator", list(Operator))
def test_a_leaf_holds_the_operator_whether_given_it_or_its_name(operator):
    by_name = Leaf(str(operator), "c", LITERALS[operator.arity])
    assert by_name.function is operator
    assert by_name == Leaf(operator, "c", LITERALS[operator.arity])
    assert repr(by_name) == f"Leaf(function='{operator.value}', column='c', literals={LITERALS[operator.arity]!r})"
    assert pickle.loads(pickle.dumps(by_name)).function is operator


@pytest.mark.parametrize("operator", list(Operator))
def test_an_operator_is_its_name(operator):
    name = operator.value
    assert operator == name and hash(operator) == hash(name) and {name: 1}[operator] == 1
    assert f"{operator}" == str(operator) == name
    assert Operator(name) is operator


@pytest.mark.parametrize("operator", list(Operator))
def test_negation_is_an_involution_that_keeps_the_arity(operator):
    assert operator.negation is not operator
    assert operator.negation.negation is operator
    assert operator.negation.arity == operator.arity
    leaf = Leaf(operator, "c", LITERALS[operator.arity])
    assert negate(leaf) == Leaf(operator.negation, "c", leaf.literals)


class _Recording(FileIndexReader):
    def __getattribute__(self, name):
        if name.startswith("visit_"):
            return lambda *args: Rows([hash((name, repr(args))) % 1000])
        return super().__getattribute__(name)


@pytest.mark.parametrize("operator", list(Operator))
def test_each_operator_calls_its_own_visitor_with_its_arguments(operator):
    assert callable(getattr(FileIndexReader, operator.visitor))
    literals = LITERALS[operator.arity]
    arguments = (list(literals),) if operator.arity is ANY else literals
    expected = Rows([hash((operator.visitor, repr(arguments))) % 1000])
    assert operator.visit(_Recording(), literals) == expected
    assert len({op.visitor for op in Operator}) == len(Operator)


@pytest.mark.parametrize("operator", list(Operator))
def test_sql_java_and_json_forms_read_back_to_the_operator(operator):
    leaf = Leaf(operator, "c", LITERALS[operator.arity])
    if operator.arity != ANY or len(leaf.literals) > 20:  # IN of few literals parses to an OR of equalities
        assert parse_predicate(to_sql(leaf), SCHEMA) == leaf
    assert Operator.from_java_name(operator.java_name) is operator
    java_text = f"{operator.java_name}(c" + ("" if not leaf.literals else
                                             f", {leaf.literals[0]}" if len(leaf.literals) == 1 else
                                             f", [{', '.join(map(str, leaf.literals))}]") + ")"
    assert parse_java_predicate(java_text, SCHEMA) == leaf
    form = predicate_to_json(leaf, SCHEMA)
    assert form["function"] == operator.java_name
    assert predicate_from_json(form, SCHEMA) == leaf


def test_sql_symbols_name_the_comparisons():
    assert {symbol: Operator.from_sql_symbol(symbol) for symbol in ("=", "<>", "!=", "<", "<=", ">", ">=")} == {
        "=": Operator.EQ, "<>": Operator.NEQ, "!=": Operator.NEQ, "<": Operator.LT, "<=": Operator.LTE,
        ">": Operator.GT, ">=": Operator.GTE}
    with pytest.raises(KeyError):
        Operator.from_sql_symbol("IN")  # not a comparison symbol


@pytest.mark.parametrize("op, operator, literals", [
    ({"name": "is_null"}, Operator.IS_NULL, ()),
    ({"name": "gte", "literal": 4}, Operator.GTE, (4,)),
    ({"name": "not_in", "literals": [1, 2]}, Operator.NOT_IN, (1, 2)),
    ({"name": "between", "literals": [1, 2]}, Operator.BETWEEN, (1, 2)),
])
def test_a_recorded_query_reads_its_literals_by_the_operators_arity(op, operator, literals):
    assert recorded_query(op, SCHEMA["c"]) == (operator, literals)


def test_a_recorded_query_with_the_wrong_literal_field_is_unreadable():
    with pytest.raises(KeyError):
        recorded_query({"name": "eq", "literals": [1]}, SCHEMA["c"])
    with pytest.raises(ValueError):
        recorded_query({"name": "like", "literal": 1}, SCHEMA["c"])


class _Column:
    """Stands in for a pyspark Column: records the expression built on it."""

    def __init__(self, text="c"):
        self.text = text

    def __getattr__(self, method):
        return lambda *args: _Column(f"{self.text}.{method}{args!r}")

    def __invert__(self):
        return _Column(f"~({self.text})")


for _method in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):  # object has these
    setattr(_Column, _method, lambda self, *args, _method=_method: _Column(f"{self.text}.{_method}{args!r}"))


@pytest.mark.parametrize("operator, expected", [
    (Operator.EQ, "c.__eq__(5,)"), (Operator.NEQ, "c.__ne__(5,)"), (Operator.LT, "c.__lt__(5,)"),
    (Operator.LTE, "c.__le__(5,)"), (Operator.GT, "c.__gt__(5,)"), (Operator.GTE, "c.__ge__(5,)"),
    (Operator.IN, "c.isin([1, 2, 3],)"), (Operator.NOT_IN, "~(c.isin([1, 2, 3],))"),
    (Operator.IS_NULL, "c.isNull()"), (Operator.IS_NOT_NULL, "c.isNotNull()"),
    (Operator.BETWEEN, "c.between(1, 9)"), (Operator.NOT_BETWEEN, "~(c.between(1, 9))"),
])
def test_each_operator_filters_spark_columns_by_its_own_method(operator, expected):
    assert _filter(_Column(), operator, list(LITERALS[operator.arity])).text == expected
