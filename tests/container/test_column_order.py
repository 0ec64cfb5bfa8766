"""The container column order of Paimon's writer (spec §11) against the same map operations on the real JDK."""
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jdk import JavaProgram

from fileindex.container.column_order import (
    FOR_EACH_INDEX,
    RELEASED,
    Column,
    writer_layout,
)
from fileindex.java.hash import string_hash_code

TYPES = ["bloom-filter", "bitmap", "bsi", "range-bitmap"]
COUNTS = {"cases": 0, "ties": 0}


@pytest.fixture(scope="module")
def jdk_order(tmp_path_factory):
    program = JavaProgram("ColumnOrder", tmp_path_factory.mktemp("column-order"))
    yield program
    program.close()


def ask(program, rule: str, options: dict) -> list[tuple[str, list[str]]]:
    tokens = [rule] + [t.encode().hex() for kv in options.items() for t in kv]
    answer = program.ask(" ".join(tokens))
    layout = []
    for item in answer.split(" ") if answer else []:
        name, _, types = item.partition(":")
        layout.append((bytes.fromhex(name).decode(), types.split(",")))
    return layout


# "Aa" and "BB" have the same String.hashCode, so any sequence of them collides with all others of
# its length; the other blocks land in few buckets of a small table.
BLOCKS = ["Aa", "BB", "C#", "x", "p", "é", "😀"]
names = st.lists(st.sampled_from(BLOCKS), min_size=1, max_size=4).map("".join)


@st.composite
def table_options(draw):
    plain = draw(st.lists(names, max_size=10, unique=True))
    maps = draw(st.lists(names.map(lambda n: "m" + n), max_size=3, unique=True))
    keyed = [f"{m}[{k}]" for m in maps for k in draw(st.lists(names, min_size=1, max_size=5, unique=True))]
    declared = {t: [] for t in TYPES}
    for column in [c for c in plain if not c.startswith("m")] + keyed:
        for index_type in draw(st.lists(st.sampled_from(TYPES), min_size=1, max_size=4, unique=True)):
            declared[index_type].append(column)
    options = {f"file-index.{t}.columns": ",".join(draw(st.permutations(cs))) for t, cs in declared.items() if cs}
    extra = draw(st.lists(names, max_size=20, unique=True))  # other table options change the options map's size
    options.update({f"option.{e}": "x" for e in extra})
    for column in keyed[:3]:
        options[f"file-index.bitmap.{column}.version"] = "2"
    items = draw(st.permutations(list(options.items())))
    return dict(items)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(options=table_options(), rule=st.sampled_from([RELEASED, FOR_EACH_INDEX]))
def test_writer_layout_matches_the_jdk(jdk_order, options, rule):
    expected = ask(jdk_order, rule, options)
    assert writer_layout(options, rule=rule) == expected
    COUNTS["cases"] += 1
    buckets = [string_hash_code(name) for name, _ in expected]
    COUNTS["ties"] += len(buckets) - len(set(buckets))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(options=table_options())
def test_the_per_column_layout_of_paimon_0_9_to_1_1_matches_the_jdk(jdk_order, options):
    expected = ask(jdk_order, "per-column", options)
    assert writer_layout(options, per_column=True) == expected
    assert all(len(types) == 1 for _, types in expected)


def test_the_rules_agree_on_map_keys_that_tie(jdk_order):
    # Names that share a bucket of the final map share one in the (never larger) fresh map too, where
    # put keeps the key map's order: the released rule and PR #10101's direct walk give one order.
    keys = ["AaAa", "BBBB", "AaBB", "x", "p", "é"]
    options = {"file-index.bitmap.columns": ",".join(f"m[{k}]" for k in keys),
               "file-index.bloom-filter.columns": ",".join(f"m[{k}]" for k in reversed(keys))}
    released, for_each = (writer_layout(options, rule=r) for r in (RELEASED, FOR_EACH_INDEX))
    assert released == ask(jdk_order, RELEASED, options) == for_each == ask(jdk_order, FOR_EACH_INDEX, options)


def test_column_hash_is_arrays_hash_code():
    # Arrays.hashCode(new Object[] {"a", null, false}) = 31 * (31 * (31 + 97) + 0) + 1237
    assert Column("a").java_hash() == 31 * (31 * (31 + 97)) + 1237
    assert Column.parse("m[k]") == Column("m", "k")
