"""Every command with random bad arguments and files ends in a message and an exit code 0-4, never a traceback."""
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import JAVA_VECTORS, ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fileindex.cli import main

ENGINE = JAVA_VECTORS / "multi__engine_layout.index"
TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap_alter_table.db"


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("fuzz")
    engine = ENGINE.read_bytes()
    parquet = folder / "data.parquet"
    pq.write_table(pa.table({"c": pa.array(range(100), pa.int64()), "u": pa.array(range(100), pa.uint32())}), parquet)
    made = {
        "missing": folder / "missing.index",
        "folder": folder,
        "empty": folder / "empty.index",
        "truncated": folder / "truncated.index",
        "garbage": folder / "garbage.bin",
        "text": folder / "notes.txt",
        "container": ENGINE,
        "bsi": JAVA_VECTORS / "bigint_neg__bsi.index",
        "range_bitmap": JAVA_VECTORS / "double__range_bitmap.index",
        "parquet": parquet,
        "truncated_parquet": folder / "truncated.parquet",
        "table": next(TABLE.rglob("schema")).parent,
        "vectors": JAVA_VECTORS,
    }
    made["empty"].write_bytes(b"")
    made["truncated"].write_bytes(engine[:200])
    made["garbage"].write_bytes(bytes(range(256)) * 3)
    made["text"].write_text("not an index\n")
    made["truncated_parquet"].write_bytes(parquet.read_bytes()[:300])
    return {name: str(path) for name, path in made.items()}


FILE_NAMES = ["missing", "folder", "empty", "truncated", "garbage", "text", "container", "bsi", "range_bitmap",
              "parquet", "truncated_parquet", "table", "vectors"]
SCHEMAS = ["c INT", "c STRING", "c FLOAT", "c BIGINT", "id INT, name STRING", "", "c MAP<", "c UNKNOWN",
           "c DECIMAL(99, 2)"]
WHERES = ["c = 5", "c = 'x'", "id = 5", "c IS NULL", "garbage ((", "", "c BETWEEN 9 AND 1", "nope = 1",
          "c IN ()", "c = 1e999"]
OPTIONS = ["file-index.bloom-filter.columns=c", "file-index.bitmap.columns=c,u", "file-index.bsi.columns=c",
           "file-index.nope.columns=c", "file-index.bloom-filter.c.fpp=2", "=x", "file-index.bloom-filter.columns=",
           "file-index.range-bitmap.columns=zz", "file-index.bloom-filter.c.items=-1"]


def flag(name, values):
    return st.lists(st.sampled_from(values), max_size=2).map(lambda vs: [a for v in vs for a in (name, v)])


def command(files):
    file = st.sampled_from(FILE_NAMES).map(files.get)
    return st.one_of(
        st.tuples(st.just(["inspect"]), file, st.sampled_from([[], ["--json"]])),
        st.tuples(st.just(["explain"]), file, flag("--schema", SCHEMAS), flag("--data", [files["parquet"]]),
                  st.sampled_from([[], ["--json"], ["--column", "c"], ["--index", "bsi"]])),
        st.tuples(st.just(["check"]), st.lists(file, min_size=1, max_size=3).map(list), flag("--schema", SCHEMAS),
                  flag("--data", [files["parquet"], files["text"], files["missing"]]),
                  st.sampled_from([[], ["--json"]])),
        st.tuples(st.just(["query"]), file, flag("--schema", SCHEMAS), flag("--where", WHERES),
                  flag("--data", [files["parquet"], files["folder"]]), flag("--table", [files["table"], files["text"]]),
                  st.sampled_from([[], ["--lenient"], ["--mode", "extended"]])),
        st.tuples(st.just(["build"]), file, flag("--option", OPTIONS), flag("--schema", SCHEMAS),
                  flag("-o", [files["folder"], files["missing"], files["text"], "/nonexistent/x.index"]),
                  st.sampled_from([[], ["--force"]])),
        st.tuples(st.just(["table"]), file, flag("--where", WHERES), st.sampled_from([[], ["--snapshot", "99"],
                                                                                        ["--json"], ["--indexes"]])),
        st.tuples(st.just(["conformance"]), file),
    ).map(lambda parts: [str(a) for part in parts for a in (part if isinstance(part, list) else [part])])


@pytest.fixture(scope="module")
def argv_strategy(files):
    return command(files)


def test_random_bad_invocations_end_in_a_message_and_a_known_exit_code(argv_strategy, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("cwd")

    @settings(max_examples=250, deadline=None, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(argv=argv_strategy)
    def check(argv):
        import os
        import warnings

        before = os.getcwd()
        os.chdir(workdir)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    code = main(argv)
                except SystemExit as exit_:  # argparse: usage errors exit 2
                    code = exit_.code
        finally:
            os.chdir(before)
        assert code in (0, 1, 2, 3, 4), (argv, code)

    check()
