"""Differential tests against a live Java Paimon 0.9.0: bytes and answers, both directions.

Java 0.9.0 has the container, bloom-filter and bitmap V1. Where 0.9.0 and current Java (2.x, the
vectors' source) differ, this project follows current Java; the differences are asserted below.
"""
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from java_oracle import JavaOracle, to_json

from fileindex.container.writer import write_container
from fileindex.indexes import bitmap, bloom_filter
from fileindex.indexes.result import REMAIN, SKIP, Rows
from fileindex.types import parse_type
from fileindex.values import Timestamp, float32

RUNS = {"cases": 0}


@pytest.fixture(scope="module")
def java(tmp_path_factory):
    oracle = JavaOracle(tmp_path_factory.mktemp("oracle"))
    yield oracle
    print(f"\nJava oracle: {oracle.requests} requests, {RUNS['cases']} differential cases")
    oracle.close()


POOLS = {
    "INT": st.one_of(st.integers(-5, 5), st.sampled_from([16 * i for i in range(20)]), st.integers(-2**31, 2**31 - 1)),
    "BIGINT": st.one_of(st.integers(-3, 3), st.integers(0, 30).map(lambda x: (x << 32) | x),
                        st.integers(-2**63, 2**63 - 1)),
    "TINYINT": st.integers(-128, 127),
    "SMALLINT": st.integers(-32768, 32767),
    "DATE": st.integers(-1000, 1000),
    "STRING": st.one_of(st.sampled_from(["", "a", "b", "é", "\u0000", "😀", "key-1", "key-2"]), st.text(max_size=8)),
    "DOUBLE": st.sampled_from([0.0, -0.0, 1.5, -2.25, math.inf, -math.inf, math.nan, 1e300]),
    "FLOAT": st.sampled_from([0.0, -0.0, 1.5, -1.5, math.inf, math.nan, float32(0.1)]),
    "TIMESTAMP(3)": st.builds(Timestamp, st.integers(-10**12, 10**12), st.just(0)),
    "TIMESTAMP(6)": st.builds(Timestamp, st.integers(-10**6, 10**6), st.sampled_from([0, 1000, 999000])),
}
BLOOM_ONLY = {"BYTES": st.binary(max_size=6)}


@st.composite
def columns(draw, index: str):
    pools = {**POOLS, **(BLOOM_ONLY if index == "bloom-filter" else {})}
    type_name = draw(st.sampled_from(sorted(pools)))
    pool = draw(st.lists(pools[type_name], min_size=1, max_size=10))
    values = draw(st.lists(st.one_of(st.none(), st.sampled_from(pool)), max_size=50))
    probes = draw(st.lists(pools[type_name], max_size=3)) + pool[:2]
    if index == "bloom-filter":
        options = {"items": str(draw(st.integers(1, 100))), "fpp": draw(st.sampled_from(["0.5", "0.1", "0.01"]))}
    else:
        options = {"version": "1"}
    return type_name, values, probes, options


def queries_for(probes):
    queries = [{"name": "is_null"}, {"name": "is_not_null"}]
    for probe in probes:
        literal = to_json(probe)
        queries += [{"name": "eq", "literal": literal}, {"name": "neq", "literal": literal},
                    {"name": "lt", "literal": literal}]
    literals = [to_json(p) for p in probes]
    queries += [{"name": "in", "literals": literals + [None]}, {"name": "not_in", "literals": literals}]
    if literals:  # an empty IN list is where Java returns null (covered below)
        queries.append({"name": "in", "literals": literals})
    return queries


def python_answers(reader, probes):
    answers = [reader.visit_is_null(), reader.visit_is_not_null()]
    for probe in probes:
        answers += [reader.visit_equal(probe), reader.visit_not_equal(probe), reader.visit_less_than(probe)]
    answers += [reader.visit_in(list(probes) + [None]), reader.visit_not_in(list(probes))]
    if probes:
        answers.append(reader.visit_in(list(probes)))
    return answers


def same(python, java) -> bool:
    if isinstance(java, dict) and "rows" in java:
        return isinstance(python, Rows) and sorted(python.bitmap) == java["rows"]
    return (python is REMAIN and java == "REMAIN") or (python is SKIP and java == "SKIP")


MODULES = {"bloom-filter": (bloom_filter.build, bloom_filter.BloomFilterReader),
           "bitmap": (bitmap.build, bitmap.BitmapReader)}


@pytest.mark.java
@pytest.mark.parametrize("index", ["bloom-filter", "bitmap"])
def test_bytes_and_answers_match_java_both_ways(java, index):
    build, reader_class = MODULES[index]

    @settings(max_examples=120, deadline=None)
    @given(columns(index))
    def check(column):
        type_name, values, probes, options = column
        data_type = parse_type(type_name)
        java_bytes = java.build(type_name, index, options, values)
        ours = build(values, data_type, options)
        assert ours == java_bytes, (type_name, values)
        # Python bytes into Java's reader, Java bytes into ours: the same answers
        java_answers = java.query(type_name, index, ours, queries_for(probes))
        ours_answers = python_answers(reader_class(java_bytes, data_type), probes)
        for python, theirs in zip(ours_answers, java_answers, strict=True):
            assert same(python, theirs), (python, theirs)
        RUNS["cases"] += 1

    check()


@pytest.mark.java
def test_containers_match_java(java):
    @settings(max_examples=80, deadline=None)
    @given(st.lists(st.tuples(st.text(min_size=1, max_size=6), st.sampled_from(["bloom-filter", "bitmap", "bsi"]),
                              st.one_of(st.none(), st.binary(min_size=1, max_size=4))), max_size=12))
    def check(entries):
        payloads = {}
        for column, index, payload in entries:
            payloads.setdefault(column, {})[index] = payload
        flat = [(c, t, p) for c, types in payloads.items() for t, p in types.items()]
        assert write_container(payloads) == java.container(flat)
        RUNS["cases"] += 1

    check()


@pytest.mark.java
def test_where_java_0_9_differs_from_current_java(java):
    """Recorded differences; the project follows current Java (the shared vectors' source)."""
    # 1. A BOOLEAN bitmap crashed in 0.9 and 1.0 (fixed in 1.1): we write what current Java writes.
    crashed = java.build("BOOLEAN", "bitmap", {"version": "1"}, [True, False, None])
    assert "ClassCastException" in crashed
    assert bitmap.build([True, False, True, False, None], parse_type("BOOLEAN"), {"version": "1"}).hex() == \
        "01000000050000000201fffffffb000000000001000000143a300000010000000000010010000000010003003a30000001000000000001001000000000000200"
    # 2. 0.9 has no bitmap V2, bsi or range-bitmap: its reader refuses a V2 payload.
    v2 = bitmap.build([1, 2, 2], parse_type("INT"))
    (refused,) = java.query("INT", "bitmap", v2, [{"name": "eq", "literal": 2}])
    assert "error" in refused and "version" in refused["error"]
    no_bsi = java.ask({"op": "build", "type": "INT", "index": "bsi", "options": {}, "values": [1]})
    assert "error" in no_bsi
    # 3. An empty IN list on a bloom filter: Java returns null (an NPE for its callers); we answer REMAIN.
    payload = bloom_filter.build([1, 2], parse_type("INT"), {"items": "10", "fpp": "0.1"})
    assert java.query("INT", "bloom-filter", payload, [{"name": "in", "literals": []}]) == ["NULL"]
    assert bloom_filter.BloomFilterReader(payload, parse_type("INT")).visit_in([]) is REMAIN
