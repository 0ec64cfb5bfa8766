"""Live Java-written tables: Java Paimon 0.9.0 writes append tables with bloom-filter and bitmap (V1)
indexes, embedded and in sidecars, over several data files; every verdict of `PaimonTable.plan` must
contain every row a brute-force filter of the Parquet data selects (and be exact where a bitmap can be).

Paimon 0.9's quirk, one index type per column surviving its writer, is avoided by giving each column
at most one index type; this project does not copy it.
"""
import math
import random

import pyarrow.parquet as pq
import pytest
from java_oracle import JavaOracle

from fileindex.indexes.result import REMAIN, SKIP
from fileindex.predicate.tree import Leaf
from fileindex import PaimonTable

COLUMNS = [("f0", "STRING"), ("f1", "INT"), ("f2", "BIGINT"), ("f3", "DOUBLE")]
POOLS = {"f0": ["Alice", "Bob", "Emily", "é", ""], "f1": [10, 20, 30, -1, 2**31 - 1],
         "f2": [0, -5, 2**40, 7], "f3": [1.5, -0.0, 0.0, 2.25]}


@pytest.fixture(scope="module")
def java(tmp_path_factory):
    oracle = JavaOracle(tmp_path_factory.mktemp("oracle-tables"), tables=True)
    yield oracle
    oracle.close()


def random_table(rng: random.Random):
    index_of = {}
    for name, _ in COLUMNS:
        choice = rng.choice([None, "bloom-filter", "bitmap"])
        if choice:
            index_of[name] = choice
    options = {"bucket": "-1"}
    for kind in ("bloom-filter", "bitmap"):
        chosen = [c for c, k in index_of.items() if k == kind]
        if chosen:
            options[f"file-index.{kind}.columns"] = ",".join(chosen)
    if rng.random() < 0.5:
        options["file-index.in-manifest-threshold"] = "1B"  # sidecars; otherwise small ones are embedded
    commits = [[[rng.choice(POOLS[c] + [None]) for c, _ in COLUMNS] for _ in range(rng.randint(1, 12))]
               for _ in range(rng.randint(2, 4))]
    return index_of, options, commits


def predicates(rng: random.Random):
    out = []
    for _ in range(12):
        column = rng.choice([c for c, _ in COLUMNS])
        value = rng.choice(POOLS[column] + ["zzz" if column == "f0" else 123])
        function = rng.choice(["eq", "neq", "is_null", "is_not_null", "in", "not_in"])
        literals = () if function in ("is_null", "is_not_null") else \
            ((value, rng.choice(POOLS[column])) if function in ("in", "not_in") else (value,))
        out.append(Leaf(function, column, literals))
    return out


def truth(rows: list[dict], leaf: Leaf) -> set[int]:
    def same(a, b):
        if isinstance(a, float) and isinstance(b, float):
            return math.copysign(1, a) == math.copysign(1, b) and a == b
        return a == b

    out = set()
    for i, row in enumerate(rows):
        value = row[leaf.column]
        f = leaf.function
        if f == "is_null":
            ok = value is None
        elif f == "is_not_null":
            ok = value is not None
        elif value is None:
            ok = False
        elif f == "eq":
            ok = same(value, leaf.literals[0])
        elif f == "neq":
            ok = not same(value, leaf.literals[0])
        elif f == "in":
            ok = any(same(value, v) for v in leaf.literals)
        else:
            ok = not any(same(value, v) for v in leaf.literals)
        if ok:
            out.add(i)
    return out


@pytest.mark.java
@pytest.mark.parametrize("seed", range(6))
def test_verdicts_on_java_written_tables(java, tmp_path, seed):
    rng = random.Random(seed)
    index_of, options, commits = random_table(rng)
    root = java.write_table(tmp_path, f"t{seed}", COLUMNS, options, commits)
    table = PaimonTable(root)
    files = 0
    for leaf in predicates(rng):
        for verdict in table.plan(leaf):
            rows = pq.read_table(root / verdict.file).to_pylist()
            expected = truth(rows, leaf)
            exact = index_of.get(leaf.column) == "bitmap" and leaf.function in ("eq", "in", "is_null",
                                                                                  "is_not_null")
            if verdict.result is SKIP:
                assert not expected, (leaf, verdict)
            elif verdict.result is REMAIN:
                assert not exact or expected == set(range(len(rows))), (leaf, verdict, expected)
            else:
                got = set(verdict.result.bitmap)
                assert expected <= got, (leaf, verdict, expected)
                assert not exact or got == expected, (leaf, verdict, expected)
            files += 1
    assert files >= 2 * 12
    where = {v.index for v in table.plan(Leaf("is_null", "f0"))}
    if not index_of:
        assert where == {"none"}
    elif options.get("file-index.in-manifest-threshold") == "1B" or "bloom-filter" in index_of.values():
        assert where == {"sidecar"}  # forced, or a default-sized bloom filter (599,071 bytes) is too big
    else:
        assert where == {"embedded"}
