"""Every implemented index type against the Java vectors: byte-identical writers, identical answers."""
import pytest
from vector_cases import all_cases, current_java_answer

from fileindex.errors import FileIndexError
from fileindex.indexes.registry import INDEX_TYPES
from fileindex.reference.vector_format import result_matches, result_to_json

IMPLEMENTED = [c for c in all_cases() if c.record["index_type"] in INDEX_TYPES]
OK = [c for c in IMPLEMENTED if c.ok]
REFUSED = [c for c in IMPLEMENTED if not c.ok]


def test_every_implemented_index_type_has_vectors():
    assert {c.record["index_type"] for c in OK} == set(INDEX_TYPES)


@pytest.mark.parametrize("case", OK, ids=lambda c: c.name)
def test_writer_reproduces_java_bytes(case):
    index = INDEX_TYPES[case.record["index_type"]]
    assert index.build(case.values(), case.data_type, case.options) == case.payload()


@pytest.mark.parametrize("case", OK, ids=lambda c: c.name)
def test_reader_reproduces_java_answers(case):
    index = INDEX_TYPES[case.record["index_type"]]
    reader = index.reader(case.payload(), case.data_type)
    mismatches = []
    for method, args, recorded, op in case.queries():
        expected = current_java_answer(case, op, recorded)
        result = getattr(reader, method)(*args)
        if not result_matches(result, expected):
            mismatches.append((op, expected, result_to_json(result)))
    assert not mismatches


@pytest.mark.parametrize("case", REFUSED, ids=lambda c: c.name)
def test_combinations_java_refuses_are_refused(case):
    index = INDEX_TYPES[case.record["index_type"]]
    with pytest.raises(FileIndexError):
        index.build(case.values(), case.data_type, case.options)


def test_the_timestamp9_deviation_from_the_recorded_vectors_is_exercised():
    deviating = [(c.name, op) for c in OK for _, _, recorded, op in c.queries()
                 if current_java_answer(c, op, recorded) != recorded]
    assert len(deviating) >= 18
    assert {name for name, _ in deviating} >= {"timestamp9__bitmap_v1", "timestamp9__bitmap_v2"}
