"""What a primary-key table's merge is, from its schema, and what this reader refuses in one line; Java 0.9.0's
aggregators where Python's arithmetic differs from Java's."""
from __future__ import annotations

import math
import re

import pytest

from fileindex.errors import UsageError
from fileindex.merge.aggregators import make_aggregator
from fileindex.merge.errors import MergeError
from fileindex.merge.spec import deciding_columns, merge_spec
from fileindex.table.errors import TableError
from fileindex.table.metadata import Field, Schema
from fileindex.types import parse_type


def schema(options: dict, fields: str = "k INT NOT NULL, v INT, s STRING, f DOUBLE", keys=("k",),
           partitions=()) -> Schema:
    parsed = [item.strip().split(" ", 1) for item in fields.split(",")]
    return Schema(0, tuple(Field(i, name, parse_type(t)) for i, (name, t) in enumerate(parsed)), tuple(partitions),
                  tuple(keys), options)


def test_the_spec_reads_java_s_options():
    spec = merge_spec(schema({"merge-engine": "aggregation", "fields.v.aggregate-function": "sum",
                              "fields.default-aggregate-function": "max", "partial-update.ignore-delete": "true",
                              "sequence.field": "s"}, "p STRING, k INT, v INT, s STRING", ("p", "k"), ("p",)))
    assert spec.keys == ("k",) and spec.ignore_delete and spec.sequence_fields == ("s",)
    functions = {name: a.function for name, a in spec.aggregates}
    assert functions == {"p": "primary-key", "k": "primary-key", "v": "sum", "s": "max"}
    groups = merge_spec(schema({"merge-engine": "partial-update", "fields.v.sequence-group": "s"})).groups
    assert [(g.sequence_fields, g.fields) for g in groups] == [(("v",), ("v", "s"))]
    assert merge_spec(schema({"merge-engine": "partial-update"})).aggregates == ()


@pytest.mark.parametrize(("options", "fields", "message"), [
    ({"merge-engine": "lookup"}, None, "merge-engine=lookup"),
    ({"merge-engine": "aggregation", "fields.v.aggregate-function": "count"}, None, "aggregate-function=count"),
    ({"merge-engine": "aggregation", "fields.v.aggregate-function": "collect"}, None, "collect"),
    ({"merge-engine": "aggregation", "fields.s.aggregate-function": "sum"}, None, "sum over STRING"),
    ({"merge-engine": "aggregation", "fields.v.aggregate-function": "bool_and"}, None, "bool_and over INT"),
    ({"sequence.field.sort-order": "descending"}, None, "sequence.field.sort-order=descending"),
    ({"aggregation.remove-record-on-delete": "true"}, None, "aggregation.remove-record-on-delete"),
    ({"partial-update.remove-record-on-sequence-group": "v"}, None, "remove-record-on-sequence-group"),
    ({"fields.s.distinct": "true"}, None, "distinct"),
    ({}, "k DOUBLE NOT NULL, v INT", "DOUBLE"),
    ({"sequence.field": "f"}, None, "sequence field f is DOUBLE"),
    ({"sequence.field": "nope"}, None, "nope is not a field"),
    ({"merge-engine": "first-row", "sequence.field": "v"}, None, "Java refuses it too"),
    ({"merge-engine": "partial-update", "fields.v.aggregate-function": "sum"}, None, "no sequence group"),
    ({"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true",
      "ignore-delete": "true"}, None, "refuses the combination"),
])
def test_what_is_not_implemented_is_refused_in_one_line(options, fields, message):
    with pytest.raises(UsageError, match=message) as refused:
        merge_spec(schema(options, fields or "k INT NOT NULL, v INT, s STRING, f DOUBLE"))
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("key", ["ignore-delete", "partial-update.ignore-delete", "fields.v.ignore-retract",
                                 "partial-update.remove-record-on-delete", "deletion-vectors.enabled"])
def test_a_boolean_java_refuses_is_a_table_error_naming_the_option(key):
    engine = {"merge-engine": "aggregation"} if "retract" in key else {"merge-engine": "partial-update"}
    with pytest.raises(TableError, match=rf"^the table's schema: option {re.escape(key)}='yes' is not a boolean"):
        merge_spec(schema({**engine, key: "yes"}))
    assert merge_spec(schema({**engine, key: "FALSE"})) == merge_spec(schema(engine))


def test_the_columns_deciding_a_merge_are_those_whose_values_can_make_it_fail():
    fields = "k INT NOT NULL, v INT, s STRING, f DOUBLE, n BIGINT"
    aggregates = {"merge-engine": "aggregation", "fields.v.aggregate-function": "min", "fields.s.aggregate-function":
                  "last_value", "fields.f.aggregate-function": "product", "fields.n.aggregate-function": "product"}
    assert deciding_columns(merge_spec(schema(aggregates, fields))) == ("v", "n")  # (a long product divides by 0)
    ignoring = {**aggregates, "fields.v.ignore-retract": "true"}
    assert deciding_columns(merge_spec(schema(ignoring, fields))) == ("n",)
    grouped = {"merge-engine": "partial-update", "fields.s.sequence-group": "v,f", "fields.v.aggregate-function": "min",
               "fields.f.aggregate-function": "sum"}
    assert deciding_columns(merge_spec(schema(grouped, fields))) == ("v",)  # (groups: taken by the table's)
    for plain in ({}, {"merge-engine": "first-row"}, {"merge-engine": "partial-update"}):
        assert deciding_columns(merge_spec(schema(plain, fields))) == ()


def test_integers_wrap_and_floats_round_as_in_java():
    assert make_aggregator("sum", parse_type("INT")).agg(2**31 - 1, 1) == -(2**31)
    assert make_aggregator("product", parse_type("TINYINT")).agg(100, 3) == 44  # (byte) 300
    assert make_aggregator("sum", parse_type("FLOAT")).agg(16777216.0, 1.0) == 16777216.0  # binary32
    assert make_aggregator("sum", parse_type("DOUBLE")).agg(16777216.0, 1.0) == 16777217.0
    assert make_aggregator("sum", parse_type("BIGINT")).retract(None, -(2**63)) == -(2**63)  # -MIN_VALUE wraps
    assert make_aggregator("product", parse_type("INT")).retract(-7, 2) == -3  # truncated toward zero
    assert math.isinf(make_aggregator("product", parse_type("DOUBLE")).retract(1.0, 0.0))
    with pytest.raises(MergeError, match="zero"):
        make_aggregator("product", parse_type("INT")).retract(1, 0)


def test_min_and_max_compare_as_java_compares():
    smaller = make_aggregator("min", parse_type("DOUBLE"))
    assert math.copysign(1, smaller.agg(0.0, -0.0)) == -1  # Double.compare: -0.0 < 0.0
    assert math.isnan(make_aggregator("max", parse_type("DOUBLE")).agg(1.0, float("nan")))  # NaN is largest
    assert make_aggregator("max", parse_type("STRING")).agg("z", "é") == "é"  # UTF-8 bytes
    assert make_aggregator("max", parse_type("BYTES")).agg(b"\x7f", b"\x80") == b"\x80"  # unsigned


def test_first_values_remember_a_key_and_forget_it_on_reset():
    first = make_aggregator("first_non_null_value", parse_type("INT"), ignore_retract=True)
    assert first.agg(None, None) is None and first.agg(None, 3) == 3 and first.agg(3, 4) == 3
    assert first.retract(3, 3) == 3
    first.reset()
    assert first.agg(None, 5) == 5
    with pytest.raises(MergeError, match="'first_value' does not support retraction"):
        make_aggregator("first_value", parse_type("INT")).retract(1, 1)
