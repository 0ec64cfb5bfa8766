"""`fileindex build` from Parquet reproduces every Java-written container byte for byte."""
import json

import pytest
from conftest import JAVA_VECTORS
from vector_cases import all_cases, multi_table, parquet_file, table_options

from fileindex.cli import main
from fileindex.container.file import FileIndexContainer
from fileindex.errors import UsageError
from fileindex.types import parse_schema, parse_type
from fileindex.writing.options import parse_options

OK = [c for c in all_cases() if c.ok]


@pytest.mark.parametrize("case", OK, ids=lambda c: c.name)
def test_build_reproduces_the_java_container(case, tmp_path, capsys):
    data = parquet_file(tmp_path, case.record["dataset"], {"c": (case.values(), case.data_type)})
    output = tmp_path / "out.index"
    argv = ["build", str(data), "-o", str(output)]
    for option in table_options("c", case.record["index_type"], case.options):
        argv += ["--option", option]
    if case.data_type.root in ("TIME",):
        argv += ["--schema", f"c {case.data_type}"]
    assert main(argv) == 0, capsys.readouterr().err
    assert output.read_bytes() == (JAVA_VECTORS / case.record["file"]).read_bytes()
    report = capsys.readouterr().out
    assert ("embed" in report) == (len(output.read_bytes()) <= 500)


def test_build_reproduces_the_engine_layout(tmp_path, capsys):
    data, options = multi_table(tmp_path)
    merged = {}  # one table option per key: an index type's columns join into one list
    for option in options:
        key, value = option.split("=", 1)
        if key.endswith(".columns") and key in merged:
            merged[key] += "," + value
        else:
            merged[key] = value
    argv = ["build", str(data)] + [a for k, v in merged.items() for a in ("--option", f"{k}={v}")]
    assert main(argv) == 0, capsys.readouterr().err
    built = (tmp_path / "multi.parquet.index").read_bytes()
    assert built == (JAVA_VECTORS / "multi__engine_layout.index").read_bytes()
    assert "sidecar" in capsys.readouterr().out


SCHEMA = parse_schema("id INT, name STRING, attrs MAP<STRING, INT>, tags ARRAY<STRING>")


def test_options_are_parsed_like_file_index_options():
    parsed = parse_options({
        "file-index.bloom-filter.columns": " id , attrs[a],attrs[b] ",
        "file-index.bloom-filter.id.items": "100",
        "file-index.bloom-filter.attrs.fpp": "0.5",
        "file-index.bloom-filter.attrs[b].fpp": "0.25",
        "file-index.read.enabled": "true",
        "file-index.in-manifest-threshold": "1 KB",
        "file-index.bitmap.name.with.dots.version": "1",  # not exactly three parts: ignored
        "bucket": "4",
    }, SCHEMA)
    options = {(r.column, r.index_type): r.options for r in parsed.requests}
    assert options == {("id", "bloom-filter"): {"items": "100"}, ("attrs[a]", "bloom-filter"): {"fpp": "0.5"},
                       ("attrs[b]", "bloom-filter"): {"fpp": "0.25"}}
    assert parsed.in_manifest_threshold == 1024


@pytest.mark.parametrize("options, message", [
    ({"file-index.bloom-filter.columns": "id,,name"}, "empty column name"),
    ({"file-index.bloom-filter.columns": "nope"}, "no column 'nope'"),
    ({"file-index.bitmap.columns": "name[k]"}, "not a MAP"),
    ({"file-index.zorder.columns": "id"}, "unknown index type"),
    ({"file-index.bloom-filter.columns": "id", "file-index.bloom-filter.name.items": "5"}, "has no bloom-filter"),
])
def test_option_errors_say_what_to_fix(options, message):
    with pytest.raises(UsageError, match=message):
        parse_options(options, SCHEMA)


def test_build_usage_errors(tmp_path, capsys):
    data = parquet_file(tmp_path, "t", {"c": ([1, 2, None], parse_type("INT"))})
    assert main(["build", str(data)]) == 2
    assert "no index requested" in capsys.readouterr().err
    assert main(["build", str(data), "--option", "file-index.bsi.columns=c", "--option", "oops"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err
    assert main(["build", str(data), "--option", "file-index.bloom-filter.columns=c",
                 "--option", "file-index.bloom-filter.c.fpp=zero"]) == 2
    assert "fpp" in capsys.readouterr().err
    assert main(["build", str(tmp_path / "missing.parquet"), "--option", "file-index.bsi.columns=c"]) == 2


def test_built_container_answers_queries(tmp_path, capsys):
    values = [5, None, 7, 5, 9]
    data = parquet_file(tmp_path, "q", {"c": (values, parse_type("BIGINT"))})
    assert main(["build", str(data), "--option", "file-index.bitmap.columns=c",
                 "--option", "file-index.range-bitmap.columns=c"]) == 0
    capsys.readouterr()
    container = FileIndexContainer.open(str(data) + ".index")
    assert [e.index_type for e in container] == ["bitmap", "range-bitmap"]
    assert main(["query", str(data) + ".index", "--schema", "c BIGINT", "--where", "c = 5", "--where", "c > 6",
                 "--json"]) == 0
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert answers == [{"result": "ROWS", "cardinality": 2, "ranges": [[0, 0], [3, 3]]},
                       {"result": "ROWS", "cardinality": 2, "ranges": [[2, 2], [4, 4]]}]


def test_a_built_container_holds_its_bytes_unless_streamed():
    import io

    import pyarrow as pa

    from fileindex.writing.data_file import build_index

    schema = parse_schema("id INT")
    options = parse_options({"file-index.bloom-filter.columns": "id"}, schema)
    table = pa.table({"id": pa.array([1, 2, 3], pa.int32())})
    held = build_index(table.column, table.num_rows, schema, options).held
    assert FileIndexContainer.from_bytes(held).columns == ["id"]
    out = io.BytesIO()
    streamed = build_index(table.column, table.num_rows, schema, options, out=out)
    assert out.getvalue() == held
    with pytest.raises(UsageError, match="streamed"):
        assert streamed.held
