"""What a new user hits first: data safety, schemas that fit, errors instead of tracebacks."""
import json
import os
import shutil
import subprocess
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import JAVA_VECTORS, ROOT
from vector_cases import all_cases, parquet_file

from fileindex.cli import main
from fileindex.container.file import FileIndexContainer
from fileindex.predicate.literals import sql_literal

BLOOM_A = ["--option", "file-index.bloom-filter.columns=a"]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def odd_columns(tmp_path):
    """A Parquet file with columns Paimon has no type for, beside ordinary ones."""
    n = 1000
    table = pa.table({
        "a": pa.array(range(n), pa.int64()),
        "s": pa.array([str(i % 50) for i in range(n)]),
        "u": pa.array([2**63 - 500 + i for i in range(n)], pa.uint64()),
        "n": pa.nulls(n),
        "d": pa.array(range(n), pa.duration("s")),
        "sv": pa.array([f"v{i % 7}" for i in range(n)], pa.string_view()),
        "ls": pa.array([f"v{i % 7}" for i in range(n)], pa.large_string()),
    })
    path = tmp_path / "odd.parquet"
    pq.write_table(table, path)
    return path


# -- build never destroys data ------------------------------------------------------------------

def test_build_refuses_to_overwrite_its_input(odd_columns, capsys):
    before = odd_columns.read_bytes()
    for output in (odd_columns, odd_columns.parent / "." / odd_columns.name):
        for force in ([], ["--force"]):
            code, _, err = run(capsys, "build", odd_columns, "-o", output, *BLOOM_A, *force)
            assert code == 2 and "the data file itself" in err
    assert odd_columns.read_bytes() == before


def test_build_overwrites_a_container_but_not_other_files_without_force(odd_columns, tmp_path, capsys):
    other = tmp_path / "notes.txt"
    other.write_text("keep me")
    code, _, err = run(capsys, "build", odd_columns, "-o", other, *BLOOM_A)
    assert code == 2 and "--force" in err and other.read_text() == "keep me"
    assert run(capsys, "build", odd_columns, "-o", other, *BLOOM_A, "--force")[0] == 0
    assert FileIndexContainer.open(other).columns == ["a"]
    assert run(capsys, "build", odd_columns, "-o", other, "--option", "file-index.bitmap.columns=s")[0] == 0
    assert FileIndexContainer.open(other).columns == ["s"]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("output, says", [(".", "is a folder"), ("missing/x.index", "does not exist")])
def test_build_output_problems_are_one_line(odd_columns, capsys, output, says):
    code, _, err = run(capsys, "build", odd_columns, "-o", odd_columns.parent / output, *BLOOM_A)
    assert code == 2 and says in err and "Traceback" not in err


def test_build_of_a_file_that_is_not_parquet(tmp_path, capsys):
    """Exit 2 (usage: a file that cannot be read as data), as verify; it was 3 (malformed) before trial19."""
    text = tmp_path / "t.txt"
    text.write_text("hello")
    code, _, err = run(capsys, "build", text, "-o", tmp_path / "t.index", *BLOOM_A)
    assert code == 2 and err.count("t.txt") == 1 and "not a Parquet or ORC data file" in err


# -- build types only what it indexes, as declared -------------------------------------------------

def test_untyped_columns_that_no_index_reads_do_not_stop_the_build(odd_columns, capsys):
    assert run(capsys, "build", odd_columns, *BLOOM_A)[0] == 0
    code, _, err = run(capsys, "build", odd_columns, "--option", "file-index.bloom-filter.columns=d")
    assert code == 2 and "duration" in err and "--schema" in err


def test_schema_overrides_only_the_columns_it_names(odd_columns, capsys):
    code, out, err = run(capsys, "build", odd_columns, "--option", "file-index.bitmap.columns=a,s", "--schema", "a INT")
    assert code == 0, err
    container = FileIndexContainer.open(f"{odd_columns}.index")
    code, out, _ = run(capsys, "query", container.source, "--schema", "a INT, s STRING", "--where", "s = '7'",
                       "--where", "a = 7", "--json")
    assert [json.loads(line)["cardinality"] for line in out.splitlines()] == [20, 1]
    code, _, err = run(capsys, "build", odd_columns, *BLOOM_A, "--schema", "zz INT")
    assert code == 2 and "'zz'" in err


@pytest.mark.parametrize("arrow_type, declared, value", [
    (pa.uint64(), "BIGINT", 2**63), (pa.uint32(), "INT", 2**31), (pa.uint8(), "TINYINT", 200),
    (pa.int64(), "INT", -(2**31) - 1)])
def test_a_value_that_does_not_fit_the_declared_type_is_named(tmp_path, capsys, arrow_type, declared, value):
    path = tmp_path / "v.parquet"
    pq.write_table(pa.table({"c": pa.array([1, 2, 3, value, 5], arrow_type)}), path)
    code, _, err = run(capsys, "build", path, "--option", "file-index.bloom-filter.columns=c", "--schema",
                       f"c {declared}")
    assert code == 2 and f"column 'c', row 3: value {value} does not fit {declared}" in err


def test_a_schema_the_data_cannot_take(odd_columns, capsys):
    code, _, err = run(capsys, "build", odd_columns, "--option", "file-index.bloom-filter.columns=s",
                       "--schema", "s INT")
    assert code == 2 and "holds Arrow string, not INT" in err


def test_string_view_and_large_string_build_like_string(odd_columns, tmp_path, capsys):
    assert run(capsys, "build", odd_columns, "--option", "file-index.bloom-filter.columns=sv,ls",
               "--option", "file-index.bitmap.columns=sv,ls")[0] == 0
    container = FileIndexContainer.open(f"{odd_columns}.index")
    for kind in ("bloom-filter", "bitmap"):
        assert bytes(container.body(container.entry("sv", kind))) == bytes(container.body(container.entry("ls", kind)))


# -- options Paimon would ignore ---------------------------------------------------------------------

@pytest.mark.parametrize("key, suggestion", [
    ("file-index.bloom-filter.colums", "file-index.bloom-filter.columns"),
    ("file-index.bloom-filter.items", "file-index.bloom-filter.a.items"),
    ("file-index.in-manifest-treshold", "file-index.in-manifest-threshold")])
def test_ignored_option_keys_warn_with_the_closest_valid_key(odd_columns, tmp_path, key, suggestion):
    plain = tmp_path / "plain.index"
    assert main(["build", str(odd_columns), "-o", str(plain), *BLOOM_A]) == 0
    with pytest.warns(UserWarning, match=f"option {key} is ignored.*did you mean {suggestion}"):
        assert main(["build", str(odd_columns), "-o", str(tmp_path / "typo.index"), *BLOOM_A,
                     "--option", f"{key}=5"]) == 0
    assert (tmp_path / "typo.index").read_bytes() == plain.read_bytes()  # ignored, as Java does


# -- column types for query and check ------------------------------------------------------------------

def timestamp6_bsi_case():
    return next(c for c in all_cases() if c.name == "timestamp6__bsi")


def test_query_takes_types_from_the_data_file_beside_a_sidecar(tmp_path, capsys):
    case = timestamp6_bsi_case()
    data = parquet_file(tmp_path, "ts", {"c": (case.values(), case.data_type)})
    sidecar = tmp_path / "ts.parquet.index"
    shutil.copy(JAVA_VECTORS / case.record["file"], sidecar)
    probe = next(v for v in case.values() if v is not None)
    where = f"c >= {sql_literal(probe)}"
    expected = sum(1 for v in case.values() if v is not None and v >= probe)
    code, out, err = run(capsys, "query", sidecar, "--where", where, "--json")
    assert code == 0 and "column types from" in err and "beside the index" in err
    assert json.loads(out)["cardinality"] == expected
    code, out, err = run(capsys, "query", JAVA_VECTORS / case.record["file"], "--data", data, "--where", where,
                         "--json")
    assert code == 0 and json.loads(out)["cardinality"] == expected
    code, _, err = run(capsys, "query", JAVA_VECTORS / case.record["file"], "--where", where)
    assert code == 2 and "--schema" in err and "--data" in err


def test_check_takes_types_from_a_table(capsys):
    index = next((ROOT / "tests" / "tables" / "parquet" / "append_with_bloomfilter.db").rglob("*.index"))
    root = index.parent.parent  # the table root holds bucket-0/
    code, out, err = run(capsys, "check", "--table", root, index, "--json")
    assert code == 0 and "column types from table" in err
    assert json.loads(out)["bodies_decoded"] > 0


# -- check --json, pipes, close -------------------------------------------------------------------------

def test_check_json_is_one_object_per_file(capsys, tmp_path):
    broken = tmp_path / "broken.index"
    broken.write_bytes((JAVA_VECTORS / "multi__engine_layout.index").read_bytes()[:100])
    code, out, _ = run(capsys, "check", "--json", JAVA_VECTORS / "multi__engine_layout.index", broken,
                       tmp_path / "missing.index")
    outcomes = [json.loads(line) for line in out.splitlines()]
    assert [o["status"] for o in outcomes] == ["OK", "MALFORMED", "ERROR"]
    assert outcomes[1]["offset"] > 0 and code == 2


def test_commands_read_a_container_from_a_pipe():
    data = (JAVA_VECTORS / "multi__engine_layout.index").read_bytes()
    for path in ("-", "/dev/stdin"):
        result = subprocess.run([sys.executable, "-m", "fileindex", "query", path, "--schema", "id INT",
                                 "--where", "id = 5", "--json"], input=data, capture_output=True)
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["cardinality"] == 1


def test_a_container_closes_its_memory_map(monkeypatch):
    from fileindex.container import file as container_file

    monkeypatch.setattr(container_file, "SMALL_FILE", 0)  # (a file of at most SMALL_FILE bytes is read whole)
    with FileIndexContainer.open(JAVA_VECTORS / "multi__engine_layout.index") as container:
        body = container.body(next(iter(container)))
        assert container._mapped is not None
    assert container._mapped is None and len(body) == 173
    with open(JAVA_VECTORS / "multi__engine_layout.index", "rb") as file:
        assert FileIndexContainer.open(file).columns == FileIndexContainer.open(file.name).columns


def test_help_loads_no_numpy_or_pyarrow_and_is_fast():
    probe = ("import sys, time; t = time.perf_counter(); from fileindex.cli.app import build_parser; build_parser(); "
             "print(time.perf_counter() - t, 'numpy' in sys.modules or 'pyarrow' in sys.modules)")
    seconds, heavy = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                                    check=True).stdout.split()
    assert heavy == "False"
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "fileindex", "--help"], capture_output=True, check=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    print(f"--help: {1000 * (time.perf_counter() - started):.0f} ms (parser {1000 * float(seconds):.0f} ms)")
