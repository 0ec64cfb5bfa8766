"""Mutated Java vectors: every mutant a body alone can expose is caught by ``check`` (issue #27 item 1).

tools/mutation_report.py does the work and prints the figures (python tools/mutation_report.py)."""
import importlib.util

import pytest
from conftest import JAVA_VECTORS, ROOT

spec = importlib.util.spec_from_file_location("mutation_report", ROOT / "tools" / "mutation_report.py")
mutation_report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mutation_report)


@pytest.mark.slow
def test_every_detectable_mutation_of_the_java_vectors_is_caught():
    counts, missed = mutation_report.run(JAVA_VECTORS, divisor=12)
    print("\n" + mutation_report.render(counts))
    assert not missed, "\n".join(missed[:20])
    assert set(counts) == {"bitmap v1", "bitmap v2", "bloom-filter", "bsi", "range-bitmap"}
    for layout, row in counts.items():  # a bloom filter's bits: most flips only add or drop a false positive
        assert row["caught"] > (0.2 if layout == "bloom-filter" else 0.8) * sum(row.values()), (layout, row)
    # what the body alone cannot tell, each of its kind
    assert counts["bloom-filter"]["bloom-undetectable"] > 0 and counts["bloom-filter"]["harmless"] > 0
    assert counts["bitmap v2"]["java-writable"] > 0


def test_the_classification_sees_what_check_misses(monkeypatch):
    from fileindex.indexes.deep_check import Checked

    """Without the deep checks, mutants the oracle judges malformed are reported MISSED."""
    names = {"int_nulls__bitmap_v1", "int_nulls__bitmap_v2", "int_nulls__range_bitmap", "int_nulls__bsi"}
    counts, missed = mutation_report.run(JAVA_VECTORS, divisor=12, names=names)
    assert sum(sum(row.values()) for row in counts.values()) > 30 and not missed

    def parse_only(container, schema):
        from fileindex.indexes.registry import INDEX_TYPES

        for entry in container:
            INDEX_TYPES[entry.index_type].reader(container.body(entry), schema["c"]).validate()
        return Checked(1, ())

    monkeypatch.setattr(mutation_report, "check_container_bodies", parse_only)
    counts, missed = mutation_report.run(JAVA_VECTORS, divisor=12, names=names)
    assert len(missed) >= 5
