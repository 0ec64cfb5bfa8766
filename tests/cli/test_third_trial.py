"""Rough edges a third new-user trial found: a misspelt subcommand or choice answered with the one meant, whole
option names only (no silent prefixes), hints for a table or data file given where an index is expected."""
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

from fileindex import PaimonTable
from fileindex.cli import main

TABLES = ROOT / "tests" / "tables" / "parquet"
TABLE = TABLES / "append_with_bitmap.db" / "append_with_bitmap"
PK_TABLE = TABLES / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"


def refused(capsys, *argv) -> str:
    """What the command line printed when argparse refused ``argv`` (exit 2)."""
    with pytest.raises(SystemExit) as exited:
        main([str(a) for a in argv])
    assert exited.value.code == 2
    return capsys.readouterr().err


def test_a_misspelt_subcommand_is_answered_with_the_one_meant_in_a_real_process():
    done = subprocess.run([sys.executable, "-m", "fileindex", "raed", str(TABLE)], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 2 and done.stdout == ""
    assert "invalid choice: 'raed'" in done.stderr and done.stderr.strip().endswith("(did you mean read?)")


@pytest.mark.parametrize("argv, meant", [
    (["spark", "scna", TABLE], "scan"),
    (["kit", "adapter", "haed", "x.index"], "head"),
    (["table", TABLE, "--where", "f0 = 'Bob'", "--mode", "jav"], "java"),
    (["rewrite", TABLE, "--mode", "delt"], "delta"),
])
def test_a_misspelt_choice_is_answered_with_the_one_meant(capsys, argv, meant):
    assert refused(capsys, *argv).strip().endswith(f"(did you mean {meant}?)")


def test_a_choice_like_none_gets_no_guess(capsys):
    assert refused(capsys, "zzzz").strip().endswith("'samples') (see fileindex --help)")


@pytest.mark.parametrize("argv, meant", [
    (["table", TABLE, "--wher", "f0 = 'Bob'"], "--where"),
    (["read", TABLE, "--lim", "1"], "--limit"),
    (["table", TABLE, "--ind"], "--indexes"),
    (["spark", "scan", TABLE, "--where", "f0 = 'Bob'", "--comp"], "--compare"),
    (["kit", "adapter", "scan", TABLE, "--where", "{}", "--storage", "k=v"], "--storage-option"),
    (["--vers"], "--version"),  # (argparse said only that COMMAND is required)
])
def test_an_option_prefix_is_not_taken_for_the_option(capsys, argv, meant):
    """argparse would run ``--wher`` as ``--where``: a command line of a data format takes whole names only."""
    err = refused(capsys, *argv)
    assert "unrecognized arguments: " in err and err.strip().endswith(f"(did you mean {meant}?)")


def test_every_parser_takes_whole_option_names_only():
    sys.path.insert(0, str(ROOT / "tools"))
    from cli_reference import commands

    from fileindex.cli import build_parser

    parsers = list(commands(build_parser()))
    assert len(parsers) > 20 and [path for path, parser in parsers if parser.allow_abbrev] == []


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_set_refuses_file_index_options_rewrite_would_refuse_before_writing_anything(capsys, tmp_path):
    """A primary-key table: ``--set file-index...`` wrote schema-1, which ``fileindex rewrite`` then refused."""
    root = tmp_path / "pk"
    shutil.copytree(PK_TABLE, root)
    before = sorted(p.name for p in (root / "schema").iterdir())
    code, out, err = run(capsys, "table", root, "--set", "file-index.bloom-filter.columns=f0")
    assert code == 2 and out == "" and "a primary-key table" in err and "nothing written" in err
    assert sorted(p.name for p in (root / "schema").iterdir()) == before
    code, out, err = run(capsys, "table", root, "--set", "file-index.bloom-filter.columns=f0", "--force")
    assert code == 0 and "wrote schema/schema-1" in out  # for Java's writers, as asked
    code, _, err = run(capsys, "rewrite", root)
    assert code == 2 and "a primary-key table" in err


def test_a_data_file_whose_index_is_embedded_points_at_table_explain_in_a_real_process(capsys):
    """``inspect DATA_FILE`` (and ``verify DATA_FILE``) suggested ``build`` for a file whose index the table's
    manifest holds."""
    import json

    (entry, _), = PaimonTable(TABLE).live()
    data = TABLE / PaimonTable(TABLE).relative(entry)
    for command in (["inspect"], ["query", "--where", "f0 = 'Bob'", "--schema", "f0 STRING"], ["verify"]):
        done = subprocess.run([sys.executable, "-m", "fileindex", *command, data.name], capture_output=True,
                              text=True, cwd=data.parent, env={**os.environ, "PYTHONPATH": str(ROOT)})
        hint = f"its index is embedded in the table's manifest: fileindex table .. --explain bucket-0/{data.name}"
        assert done.returncode == 2 and done.stdout == "" and hint in done.stderr and "build" not in done.stderr
    # the command it names explains that index
    code, out, _ = run(capsys, "table", TABLE, "--explain", f"bucket-0/{data.name}", "--json")
    assert code == 0 and sum(f["length"] for f in json.loads(out)) == len(entry.embedded_index)


@pytest.mark.parametrize("table, snapshot, has", [(TABLE, 99, "it has snapshot 1"),
                                                  (PK_TABLE, 0, "it has snapshots 1 to 4")])
def test_a_snapshot_the_table_lacks_is_answered_with_those_it_has(capsys, table, snapshot, has):
    code, out, err = run(capsys, "read", table, "--snapshot", snapshot)
    assert code == 2 and out == "" and err.strip().endswith(f"no snapshot {snapshot} ({has})")


@pytest.mark.parametrize("where, hint", [
    ('f0 = "Bob"', "unexpected character '\"' (a string goes in single quotes: 'Bob')"),
    ("f0 = Bob", "expected a literal, found 'Bob' (a string goes in single quotes: 'Bob')"),
    ("f0 = f1", "expected a literal, found 'f1' (f1 is a column: a predicate compares a column with a literal)"),
])
def test_a_literal_written_as_sql_would_not_take_it_says_how_to_write_it(capsys, where, hint):
    code, out, err = run(capsys, "table", TABLE, "--where", where)
    assert code == 2 and out == "" and err.splitlines()[0] == f"fileindex table: {hint}" and \
        err.splitlines()[2] == "       ^ position 5"


@pytest.mark.parametrize("argv", [["table", TABLE, "--set", "file-index.bitmp.columns=f0"],
                                  ["build", "DATA", "-o", "OUT", "--option", "file-index.blom-filter.columns=f0"]])
def test_a_misspelt_index_type_is_answered_with_the_one_meant(capsys, tmp_path, argv):
    (entry, _), = PaimonTable(TABLE).live()
    data, out = TABLE / PaimonTable(TABLE).relative(entry), tmp_path / "out.index"
    argv = [data if a == "DATA" else out if a == "OUT" else a for a in argv]
    code, _, err = run(capsys, *argv)
    meant = "bitmap" if "bitmp" in str(argv) else "bloom-filter"
    ending = f"; did you mean {meant}?" + ("; nothing written" if argv[0] == "table" else "")
    assert code == 2 and err.strip().endswith(ending) and not out.exists()
