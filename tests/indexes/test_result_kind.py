"""A result's kind names it in every serialized form: the vectors' JSON, `query --json`, Spark's verdict rows."""
import pickle

from fileindex.indexes.result import REMAIN, SKIP, Rows
from fileindex.reference.vector_format import result_to_json


def test_a_result_names_its_kind_once_for_every_serializer():
    from fileindex.indexes.result import result_json

    rows = Rows([1, 2, 3, 7])
    assert (REMAIN.kind, SKIP.kind, rows.kind) == ("REMAIN", "SKIP", "ROWS")
    assert [result_to_json(r) for r in (REMAIN, SKIP)] == ["REMAIN", "SKIP"]
    assert result_to_json(rows) == rows.to_json() == {"cardinality": 4, "ranges": [[1, 3], [7, 7]]}
    assert [result_json(r) for r in (REMAIN, SKIP, rows)] == [
        {"result": "REMAIN"}, {"result": "SKIP"}, {"result": "ROWS", "cardinality": 4, "ranges": [[1, 3], [7, 7]]}]
    assert repr(REMAIN) == "REMAIN" and pickle.loads(pickle.dumps(SKIP)) is SKIP


def test_remain_and_skip_are_the_units_of_and_and_or():
    rows = Rows([4])
    assert REMAIN.remain() and not SKIP.remain()
    assert REMAIN.and_(rows) is rows and SKIP.and_(rows) is SKIP and SKIP.and_(REMAIN) is SKIP
    assert REMAIN.or_(rows) is REMAIN and SKIP.or_(rows) is rows and SKIP.or_(SKIP) is SKIP
    assert rows.and_(SKIP) is SKIP and rows.or_(REMAIN) is REMAIN and rows.and_(REMAIN) is rows
