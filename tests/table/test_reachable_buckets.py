"""The buckets a predicate on the bucket key reaches: ``=``, ``IN`` and an OR of ``=`` (the parser's form of a
short IN list) fix them; anything else on the key reaches every bucket."""
from fileindex.predicate.parser import parse_predicate
from fileindex.table.buckets import bucket_of, reachable_buckets
from fileindex.table.metadata import Field, Schema
from fileindex.types import parse_type

SCHEMA = Schema(0, (Field(0, "id", parse_type("INT NOT NULL")), Field(1, "v", parse_type("INT"))), (), ("id",),
                {"bucket": "8"})


def reach(text: str):
    return reachable_buckets(parse_predicate(text, SCHEMA.types()), SCHEMA)


def test_an_in_list_reaches_the_buckets_of_its_values():
    wanted = frozenset(bucket_of([k], [parse_type("INT")], 8) for k in (1, 5, 12))
    assert reach("id IN (1, 5, 12)") == wanted
    assert reach("id = 1 OR id = 5 OR id = 12") == wanted
    assert reach("(id = 1 OR id = 5) AND v = 3") == frozenset(bucket_of([k], [parse_type("INT")], 8) for k in (1, 5))
    assert len(wanted) > 1


def test_other_predicates_on_the_key_reach_every_bucket():
    assert reach("id = 1 OR v = 5") is None
    assert reach("id < 3") is None
    assert reach("id = 1 OR id < 3") is None
