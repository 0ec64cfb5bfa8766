"""Rough edges left by the third trial: a table without indexes says why nothing is skipped, a file that is no
file index says so in words, a prefix of a required option is answered with the option meant."""
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT
from test_third_trial import run

from fileindex import PaimonTable
from fileindex.cli import main
from fileindex.container.file import FileIndexContainer
from fileindex.errors import BadMagicError, TruncatedError, UsageError

TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"
PK_TABLE = ROOT / "tests" / "tables" / "primary-keys" / "deduplicate"
MAGIC_HEX = "00 05 4e 4e d0 1a 35 ae"


def test_a_table_without_indexes_says_how_to_declare_and_build_one(capsys, tmp_path):
    root = tmp_path / "t"
    shutil.copytree(TABLE, root)
    code, _, err = run(capsys, "table", root, "--where", "f0 = 'Bob'")
    assert code == 0 and "no file index" not in err and "has an index" not in err  # (the Java-written index)
    assert run(capsys, "table", root, "--drop-index", "bitmap")[0] == 0 and run(capsys, "rewrite", root)[0] == 0
    code, out, err = run(capsys, "table", root, "--where", "f0 = 'Bob'", "--json")
    assert code == 0 and '"index": "none"' in out and len(err.splitlines()) == 1
    assert err.startswith(f"fileindex table: {root} declares no file index, so every file remains: declare one with "
                          f"fileindex table {root} --set file-index.bloom-filter.columns=COLUMN")
    assert err.strip().endswith(f"then build it with fileindex rewrite {root}")
    # declared, not yet built
    assert run(capsys, "table", root, "--set", "file-index.bitmap.columns=f0")[0] == 0
    code, _, err = run(capsys, "table", root, "--where", "f0 = 'Bob'")
    assert code == 0 and err == ("fileindex table: no live data file has an index (the schema declares "
                                 "file-index.bitmap.columns, added after the files were written?): fileindex "
                                 f"rewrite {root} builds them\n")
    # built: no hint
    assert run(capsys, "rewrite", root)[0] == 0
    code, out, err = run(capsys, "table", root, "--where", "f0 = 'Bob'")
    assert code == 0 and "index=embedded" in out and err == ""


def test_a_primary_key_table_without_indexes_says_rewrite_cannot_add_one(capsys):
    code, out, err = run(capsys, "table", PK_TABLE, "--where", "id = 1", "--where", "id = 2")
    assert code == 0 and out.count("index=none") == 2 * len(PaimonTable(PK_TABLE).live())
    assert err.splitlines() == [f"fileindex table: {PK_TABLE} has no file index (its schema declares none), so every "
                                "file remains; fileindex rewrite cannot add one (a primary-key table: Paimon does not "
                                "use file indexes of primary-key tables the way rewrite builds them; only append "
                                "tables are rewritten)"]


def test_a_file_that_is_no_file_index_says_so_in_a_real_process():
    done = subprocess.run([sys.executable, "-m", "fileindex", "inspect", "README.md"], capture_output=True, text=True,
                          cwd=ROOT)
    first = open(ROOT / "README.md", "rb").read(8)
    assert done.returncode == 3 and done.stdout == ""
    assert done.stderr == (f"fileindex inspect: README.md: file_index_format/magic at offset 0: not a Paimon "
                           f"file-index file: it starts with {first.hex(' ')} ({repr(first)[1:]}), not the file-index "
                           f"magic {MAGIC_HEX}\n")


@pytest.mark.parametrize("suffix, kind", [("parquet", "a Parquet data file"), ("orc", "an ORC data file")])
def test_a_data_file_read_from_standard_input_is_named_as_one(suffix, kind):
    data = next((ROOT / "tests" / "tables" / suffix / "append_with_bitmap.db").rglob(f"*.{suffix}"))
    with open(data, "rb") as stdin:
        done = subprocess.run([sys.executable, "-m", "fileindex", "inspect", "-"], stdin=stdin, capture_output=True,
                              text=True, cwd=ROOT)
    assert done.returncode == 3 and done.stdout == "" and len(done.stderr.splitlines()) == 1
    assert done.stderr.strip().endswith(f"not the file-index magic {MAGIC_HEX}: {kind}'s magic, not its index's")


@pytest.mark.parametrize("data, error, said", [
    (b"# Paimon\n", BadMagicError, "not a Paimon file-index file: it starts with 23 20 50 61 69 6d 6f 6e"),
    (b"abc", BadMagicError, "not a Paimon file-index file: it starts with 61 62 63 ('abc')"),
    (b"", TruncatedError, "an empty file, not a Paimon file-index file"),
    (bytes.fromhex("00054e4e"), TruncatedError, "input ends inside the field"),  # an index cut short
])
def test_what_a_file_starts_with_instead_of_the_magic(tmp_path, data, error, said):
    path = tmp_path / "x.index"
    path.write_bytes(data)
    for source in (path, open(path, "rb")):  # (a stream is read whole; a path's bytes are parsed as they are)
        with pytest.raises(error) as caught:
            FileIndexContainer.open(source)
        assert caught.value.offset == 0 and caught.value.field == "file_index_format/magic"
        assert said in str(caught.value)


def test_explain_says_it_too(capsys):
    code, out, err = run(capsys, "explain", ROOT / "README.md")
    assert code == 3 and "not a Paimon file-index file" in out and "not a Paimon file-index file" in err


@pytest.mark.parametrize("argv, meant", [
    (["kit", "adapter", "scan", "T", "--wh", "{}"], "--where"),
    (["query", "x.index", "--wh", "a = 1"], "--where"),
    (["read", "T", "--se", "f0"], "--select"),  # (a prefix of one option alone)
])
def test_a_prefix_of_a_required_option_is_answered_with_the_one_meant(capsys, argv, meant):
    """argparse said "the following arguments are required: --where" for ``--wh``."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    err = capsys.readouterr().err
    assert exited.value.code == 2 and "required" not in err
    assert f"error: unrecognized arguments: {argv[-2]}" in err and err.strip().endswith(f"(did you mean {meant}?)")


def test_an_unknown_column_of_a_primary_key_table_is_answered_with_the_one_meant(capsys):
    with pytest.raises(UsageError, match="cannot select unknown column 'nme'.*did you mean name\\?"):
        PaimonTable(PK_TABLE).scan(columns=["id", "nme"]).to_arrow()
    code, out, err = run(capsys, "read", PK_TABLE, "--select", "nme")
    assert code == 2 and out == "" and "(did you mean name? the schema has: " in err


@pytest.mark.parametrize("command", ["read", "table"])
@pytest.mark.parametrize("inside", ["bucket-0", "snapshot"])
def test_a_folder_inside_a_table_names_the_table_root(capsys, monkeypatch, command, inside):
    monkeypatch.chdir(TABLE.parent.parent)  # (the path given is relative: the root named is too)
    given = f"{TABLE.parent.name}/{TABLE.name}/{inside}"
    code, out, err = run(capsys, command, given, *(["--indexes"] if command == "table" else []))
    assert code == 2 and out == ""
    assert err == f"fileindex {command}: {given} is a folder inside a table: give the table's root, " \
                  f"{TABLE.parent.name}/{TABLE.name}\n"


def test_a_warehouse_folder_names_tables_in_its_databases(capsys, tmp_path):
    for name in ("b", "a"):
        shutil.copytree(TABLE, tmp_path / f"{name}.db" / name)
    (tmp_path / "notes").mkdir()
    code, out, err = run(capsys, "read", tmp_path)
    assert code == 2 and out == ""
    assert err == (f"fileindex read: {tmp_path} is not a table but holds folders of tables (a warehouse?): give a "
                   f"table, e.g. {tmp_path / 'a.db' / 'a'}, {tmp_path / 'b.db' / 'b'}\n")


def test_a_file_inside_a_table_names_the_table_root(capsys):
    code, out, err = run(capsys, "table", TABLE / "snapshot" / "snapshot-1", "--indexes")
    assert code == 2 and out == ""
    assert err == f"fileindex table: {TABLE / 'snapshot' / 'snapshot-1'} is a file inside a table: give the " \
                  f"table's root, {TABLE}\n"


@pytest.mark.parametrize("given, meant", [("file:{table}", "file://{table}"), ("s3:/bucket/t", "s3://bucket/t")])
def test_a_uri_with_one_slash_is_answered_with_the_uri_meant(capsys, given, meant):
    """Hadoop prints local paths as file:/tmp/t, which named a relative folder ``file:``."""
    given, meant = given.format(table=TABLE), meant.format(table=TABLE)
    code, out, err = run(capsys, "read", given, "--count")
    assert code == 2 and out == "" and err.strip().endswith(f"(a URI takes two slashes: {meant})")
    if meant.startswith("file:"):  # (the URI meant reads the table)
        assert run(capsys, "read", meant, "--count")[:2] == (0, "8\n")


@pytest.mark.parametrize("argv, choices", [
    (["kit"], "KIT_COMMAND (one of: export, run, adapter)"),
    (["spark"], "JOB (one of: build, verify, scan, rewrite)"),
    ([], "COMMAND (one of: inspect, explain, check, query, build, verify, table, read, rewrite, conformance, kit, "
         "spark, demo, samples)"),
])
def test_a_missing_subcommand_is_answered_with_the_ones_there_are(capsys, argv, choices):
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    command = " ".join(["fileindex", *argv])
    assert capsys.readouterr().err.strip().endswith(f"error: the following arguments are required: {choices} "
                                                    f"(see {command} --help)")


def test_a_comparison_with_null_in_read_says_how_to_ask_for_null_rows(capsys):
    code, out, err = run(capsys, "read", TABLE, "--where", "f0 = NULL OR f0 = 'Bob'", "--count")
    assert code == 0 and out == "2\n"
    assert err == ("fileindex read: f0 = NULL OR f0 = 'Bob': comparing f0 with NULL matches no row (never true in "
                   "SQL); for the null rows of f0, write f0 IS NULL (IS NOT NULL for the others)\n")
    code, out, err = run(capsys, "read", TABLE, "--where", "f0 IN ('Bob', NULL)", "--count")
    assert code == 0 and out == "2\n" and "comparing f0 with NULL matches no row" in err  # that part, not the IN
    assert run(capsys, "read", TABLE, "--where", "f0 IS NULL", "--count")[2] == ""
    code, out, err = run(capsys, "read", TABLE, "--where", "f0 IN ('Bob', NULL) OR f0 IS NULL", "--count")
    assert code == 0 and out == "2\n"  # (what is there is not suggested)
    assert err == ("fileindex read: f0 IN ('Bob', NULL) OR f0 IS NULL: comparing f0 with NULL matches no row (never "
                   "true in SQL)\n")


@pytest.mark.parametrize("argv", [["read", ""], ["table", "", "--indexes"], ["rewrite", ""]])
def test_an_empty_table_path_is_refused_not_read_as_the_current_folder(capsys, monkeypatch, argv):
    """``fileindex read "$TABLE"`` with TABLE unset read the table the shell stood in."""
    monkeypatch.chdir(TABLE)
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and err.endswith(": the table's path is empty: give a Paimon table's root folder\n")
    with pytest.raises(UsageError, match="the table's path is empty"):
        PaimonTable("")
    assert PaimonTable(".").scan().count() == 8


def test_kit_adapter_where_in_paimon_text_is_answered_with_the_json_form(capsys):
    code, out, err = run(capsys, "kit", "adapter", "scan", TABLE, "--where", "f0 = 'Bob'")
    assert code == 2 and out == "" and "--where is not JSON" in err and "(docs/kit.md)" in err
    example = err[err.index("e.g. ") + 5:err.rindex(" (docs/kit.md)")]
    code, out, _ = run(capsys, "kit", "adapter", "scan", TABLE, "--where", example)  # (the example given runs)
    assert code == 0 and '"result": "ROWS"' in out
