"""Index options parsed as Java parses them: bloom-filter items (Integer.parseInt) and fpp
(Double.parseDouble) against a live Java Paimon 0.9.0; the same bytes, or a refusal where Java throws."""
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from java_oracle import JavaOracle

from fileindex.errors import UsageError
from fileindex.indexes import bloom_filter
from fileindex.types import parse_type


@pytest.fixture(scope="module")
def java(tmp_path_factory):
    oracle = JavaOracle(tmp_path_factory.mktemp("oracle"))
    yield oracle
    oracle.close()


def ours(options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return bloom_filter.build([1, 2, 3], parse_type("INT"), options)
        except UsageError as err:
            return f"UsageError: {err}"


def agree(java, options) -> None:
    theirs = java.build("INT", "bloom-filter", options, [1, 2, 3])
    mine = ours(options)
    if isinstance(theirs, bytes):
        assert mine == theirs, (options, theirs.hex()[:40], mine)
    else:  # Java throws: a refusal with a message here
        assert isinstance(mine, str), (options, theirs)


ITEMS = ["100", "+100", "0", "１２", "٣", " 100", "100 ", "\t100", "1_000", "0x10", "1e2", "100L", "-5",
         "2147483647", "2147483648", "-0", ""]
FPPS = ["0.1", " 0.1", "0.1\n", "1e-2", "1E-2", "0.01d", "0.01F", "0x1p-7", "0x1.8p-3", "NaN", "nan", "inf",
        "Infinity", "-Infinity", "1_0", ".5", "5.", "+0.1", "1", "0", "-0.1", "-0", "1.5", "0,1", "١", "1e-400",
        "1e400", "4.9e-324", ""]


@pytest.mark.java
@pytest.mark.parametrize("items", ITEMS)
def test_items_parse_as_integer_parse_int(java, items):
    agree(java, {"items": items, "fpp": "0.1"})


@pytest.mark.java
@pytest.mark.parametrize("fpp", FPPS)
def test_fpp_parses_as_double_parse_double(java, fpp):
    agree(java, {"items": "100", "fpp": fpp})


DIGITS = st.text(alphabet="0123456789", min_size=1, max_size=4)
DOUBLE_TEXT = st.one_of(
    st.builds(lambda s, a, b, e, t: f"{s}{a}.{b}{e}{t}", st.sampled_from(["", "+", "-"]), DIGITS,
              st.text(alphabet="0123456789", max_size=3), st.sampled_from(["", "e-2", "E1", "e+0", "e"]),
              st.sampled_from(["", "d", "f", "D", " ", "x"])),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(alphabet="0123456789.eE+-dfxXpPaN ", max_size=6),
)


@pytest.mark.java
@settings(max_examples=150, deadline=None)
@given(items=st.one_of(DIGITS, st.text(alphabet="0123456789+- _", max_size=5)), fpp=DOUBLE_TEXT)
def test_any_option_text_agrees_with_java(java, items, fpp):
    agree(java, {"items": items, "fpp": fpp})
