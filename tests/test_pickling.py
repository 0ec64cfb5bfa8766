"""What a Spark job ships to its executors pickles, and answers the same after the round trip.

Evaluators, schemas, predicates, options and results cross process boundaries; readers do not
(an executor opens them from the bytes it reads). REMAIN and SKIP stay singletons.
"""
import pickle

import pytest
from conftest import ROOT

from fileindex import errors
from fileindex.container.file import FileIndexContainer
from fileindex.indexes.bitmap.writer import BitmapOptions
from fileindex.indexes.bloom_filter.keys import bloom_parameters
from fileindex.indexes.bloom_filter.writer import BloomFilterWriter
from fileindex.indexes.result import REMAIN, SKIP, Rows
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.parser import parse_predicate
from fileindex.types import parse_schema, parse_type

SCHEMA = parse_schema("id INT, name STRING, ts TIMESTAMP(3), price DOUBLE, attrs MAP<STRING, STRING>")
CONTAINER = ROOT / "tests" / "vectors" / "java" / "multi__engine_layout.index"
PREDICATES = ["id = 1000", "id IN (1, 2, 3) OR name IS NULL", "name <> 'bob' AND price > 2.5",
              "attrs['color'] = 'red'", "NOT (id BETWEEN 5 AND 10)", "ts IS NOT NULL"]


def round_trip(value):
    return pickle.loads(pickle.dumps(value))


@pytest.mark.parametrize("kind", [errors.DecodeError, errors.TruncatedError, errors.SchemaMismatchError,
                                  errors.InvariantError, errors.UnsupportedIndexTypeError])
def test_a_decoding_error_raised_on_an_executor_unpickles_with_its_offset_and_field(kind):
    raised = kind("too short", offset=17, field="bitmap/header/row_count")
    back = round_trip(raised)
    assert type(back) is kind and (back.message, back.offset, back.field) == ("too short", 17, raised.field)
    assert str(back) == str(raised)


def test_remain_and_skip_stay_singletons():
    assert round_trip(REMAIN) is REMAIN and round_trip(SKIP) is SKIP
    assert round_trip(Rows([1, 5, 70000])) == Rows([1, 5, 70000])


@pytest.mark.parametrize("extended", [False, True])
@pytest.mark.parametrize("text", PREDICATES)
def test_an_unpickled_evaluator_and_predicate_answer_the_same(text, extended):
    evaluator, predicate = FileIndexEvaluator(SCHEMA, extended=extended), parse_predicate(text, SCHEMA)
    container = FileIndexContainer.open(CONTAINER)
    expected = evaluator.evaluate(container, predicate)
    shipped_evaluator, shipped_predicate = round_trip((evaluator, predicate))
    assert shipped_predicate == predicate
    got = shipped_evaluator.evaluate(FileIndexContainer.open(CONTAINER), shipped_predicate)
    assert got == expected if isinstance(expected, Rows) else got is expected
    answer = evaluator.evaluate_exact(container, predicate)
    assert round_trip(answer) == answer and round_trip(answer).result.kind == expected.kind
    assert shipped_evaluator.evaluate_exact(FileIndexContainer.open(CONTAINER), shipped_predicate) == answer


def test_options_types_and_a_half_built_writer_pickle():
    nested = "MAP<STRING, ARRAY<DECIMAL(10, 2)>>"
    assert round_trip(parse_type(nested)) == parse_type(nested)
    assert round_trip(BitmapOptions.parse({"version": "1", "index-block-size": "1 kb"})) == BitmapOptions(1, 1024)
    assert round_trip(bloom_parameters(1000, 0.01)) == bloom_parameters(1000, 0.01)
    writer = BloomFilterWriter(parse_type("BIGINT"), {"items": "100"})
    writer.write_column([1, 2, 3])
    shipped = round_trip(writer)
    shipped.write_column([4])
    writer.write_column([4])
    assert shipped.serialize() == writer.serialize()
