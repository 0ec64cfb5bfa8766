"""Random schemas and predicates for Java's ``toString``: names and literals with ", ", ")",
brackets, CR LF, U+FEFF; map columns ``name[key]``; IN leaves of two or more literals, compounds
of two or more children, as Java's ``PredicateBuilder`` makes them."""
from decimal import Decimal

from hypothesis import strategies as st

from fileindex.predicate.tree import And, Leaf, Or
from fileindex.types import column_type, parse_type
from fileindex.values import Timestamp, float32

TRICKY = [", ", ")", "(", "[", "]", "])", "\r\n", "\ufeff", "null", "é", "🏷", "列名", " ", ""]
tricky_text = st.lists(st.one_of(st.sampled_from(TRICKY), st.text(max_size=3)), max_size=5).map("".join)

TYPES = ["INT", "BIGINT", "STRING", "DOUBLE", "FLOAT", "DECIMAL(10, 2)", "TIMESTAMP(3)", "TIMESTAMP(9)",
         "DATE", "BOOLEAN", "MAP<STRING, INT>", "MAP<STRING, STRING>"]


def literals(data_type):
    root = data_type.root
    if data_type.is_string:
        return tricky_text
    if data_type.is_timestamp:
        return st.builds(Timestamp, st.integers(-62135596800000, 253402300799999),
                         st.integers(0, 999999) if data_type.precision > 3 else st.just(0))
    return {
        "INT": st.integers(-2**31, 2**31 - 1),
        "BIGINT": st.integers(-2**63, 2**63 - 1),
        "DOUBLE": st.floats(),
        "FLOAT": st.floats(width=32).map(float32),
        "DECIMAL": st.integers(-10**10 + 1, 10**10 - 1).map(lambda v: Decimal(v).scaleb(-2)),
        "DATE": st.integers(-700000, 2900000),
        "BOOLEAN": st.booleans(),
    }[root]


@st.composite
def schemas(draw):
    names = draw(st.lists(tricky_text.filter(bool), min_size=1, max_size=4, unique=True))
    return {name: parse_type(draw(st.sampled_from(TYPES))) for name in names}


@st.composite
def leaves(draw, schema):
    name = draw(st.sampled_from(sorted(schema)))
    column = f"{name}[{draw(tricky_text)}]" if schema[name].root == "MAP" else name
    data_type = column_type(schema, column)
    function = draw(st.sampled_from(["eq", "neq", "lt", "lte", "gt", "gte", "is_null", "is_not_null", "in",
                                     "not_in", "between", "not_between"]))
    count = {"is_null": 0, "is_not_null": 0, "between": 2, "not_between": 2}.get(function, 1)
    if function in ("in", "not_in"):  # PredicateBuilder makes IN leaves of more than one literal
        count = draw(st.integers(2, 4))
    return Leaf(function, column, tuple(draw(literals(data_type)) for _ in range(count)))


@st.composite
def predicates(draw, schema, depth=2):
    if depth == 0 or draw(st.booleans()):
        return draw(leaves(schema))
    kind = draw(st.sampled_from([And, Or]))
    return kind(tuple(draw(predicates(schema, depth - 1)) for _ in range(draw(st.integers(2, 3)))))


def same(a, b) -> bool:
    return repr(a) == repr(b)  # NaN literals and -0.0 compare by their spelling


def leaf_count(predicate) -> int:
    return 1 if isinstance(predicate, Leaf) else sum(leaf_count(c) for c in predicate.children)
