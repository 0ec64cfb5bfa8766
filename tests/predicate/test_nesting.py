"""A predicate nested deeper than MAX_NESTING (parentheses or NOT) is a one-line usage error at every entry that
takes predicate text, never a RecursionError; one nested exactly MAX_NESTING deep is answered, as its flat form."""
import pytest
from conftest import ROOT

from fileindex import PaimonTable
from fileindex.cli import main
from fileindex.errors import UsageError
from fileindex.predicate.parser import MAX_NESTING, parse_predicate
from fileindex.types import parse_schema

TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap_no_embedding.db" / "append_with_bitmap_no_embedding"
SIDECAR = next((TABLE / "bucket-0").glob("*.index"))
SCHEMA = parse_schema("f0 STRING, f1 INT, f2 INT, f3 DOUBLE")

TOO_DEEP = {
    "parentheses": "(" * 5000 + "f1 = 10" + ")" * 5000,
    "NOTs": "NOT " * 5000 + "f1 = 10",
    "one level too many": "(" * (MAX_NESTING + 1) + "f1 = 10" + ")" * (MAX_NESTING + 1),
}


def as_deep_as_allowed() -> str:
    """``f1 = 10``, MAX_NESTING levels deep: ORs and ANDs alternating (which no flattening collapses) and double
    NOTs, each wrapper adding the levels beside it."""
    wrappers = [("f1 = 10 OR ({})", 1), ("f1 = -1 AND ({})", 1), ("NOT (NOT ({}))", 4)]
    text, depth, step = "f1 = 10", 0, 0
    while depth < MAX_NESTING:
        wrapper, levels = wrappers[step % 3] if MAX_NESTING - depth >= 4 else wrappers[0]
        text, depth, step = wrapper.format(text), depth + levels, step + 1
    return text


def test_as_deep_as_allowed_is_the_deepest_the_parser_takes():
    for deepest, deeper in ((as_deep_as_allowed(), f"({as_deep_as_allowed()})"),
                            ("NOT " * MAX_NESTING + "f1 = 10", "NOT " * (MAX_NESTING + 1) + "f1 = 10")):
        parse_predicate(deepest, SCHEMA)
        with pytest.raises(UsageError, match="nested too deeply"):
            parse_predicate(deeper, SCHEMA)


@pytest.mark.parametrize("text", TOO_DEEP.values(), ids=TOO_DEEP.keys())
def test_a_predicate_nested_too_deeply_is_a_usage_error(text):
    with pytest.raises(UsageError, match=f"nested too deeply: more than {MAX_NESTING} levels") as raised:
        parse_predicate(text, SCHEMA)
    assert "\n" not in str(raised.value)  # one line: no caret under a text thousands of characters long


@pytest.mark.parametrize("text", TOO_DEEP.values(), ids=TOO_DEEP.keys())
def test_the_table_scan_refuses_it_too(text):
    with pytest.raises(UsageError, match="nested too deeply"):
        PaimonTable(TABLE).scan(where=text).to_arrow()


def test_a_predicate_as_deep_as_allowed_reads_the_rows_of_its_flat_form():
    table = PaimonTable(TABLE)
    rows = table.scan(where=as_deep_as_allowed()).to_arrow()
    assert rows.num_rows > 0 and rows.equals(table.scan(where="f1 = 10").to_arrow())
    assert table.scan(where=as_deep_as_allowed()).to_duckdb().fetchall() == \
        table.scan(where="f1 = 10").to_duckdb().fetchall()
    assert table.scan(where=as_deep_as_allowed()).to_polars().collect().equals(
        table.scan(where="f1 = 10").to_polars().collect())


COMMANDS = {
    "read": lambda where: ["read", TABLE, "--where", where],
    "table": lambda where: ["table", TABLE, "--where", where],
    "query": lambda where: ["query", SIDECAR, "--table", TABLE, "--where", where],
    "query extended": lambda where: ["query", SIDECAR, "--table", TABLE, "--mode", "extended", "--where", where],
}


@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS.keys())
def test_every_command_taking_a_predicate_says_it_in_one_line(capsys, command):
    for text in TOO_DEEP.values():
        code = main([str(a) for a in command(text)])
        out, err = capsys.readouterr()
        assert code == 2 and out == ""
        *notes, error = err.splitlines()  # (query first names where the column types came from)
        assert "nested too deeply" in error and not any("nested" in line for line in notes), err[-2000:]
    code = main([str(a) for a in command(as_deep_as_allowed())])
    out, err = capsys.readouterr()
    assert code == 0, err
    flat = main([str(a) for a in command("f1 = 10")])
    assert (flat, capsys.readouterr()[0]) == (0, out.replace(as_deep_as_allowed(), "f1 = 10"))


@pytest.mark.parametrize("command", [["spark", "scan", TABLE], ["spark", "scan", TABLE, "--explain"]],
                         ids=["spark scan", "spark scan --explain"])
def test_spark_scan_refuses_it_before_spark_starts(capsys, command):
    assert main([str(a) for a in command] + ["--where", TOO_DEEP["parentheses"]]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "nested too deeply" in err, err[-2000:]
