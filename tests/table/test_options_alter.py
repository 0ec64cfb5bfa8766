"""ALTER of file-index options: dropping an index takes its per-column options with it (``--drop-index``,
or a RESET of the columns key), listed in the output; a change that would leave options without their
index is refused, pointing at ``--drop-index``."""
import shutil
from pathlib import Path

import pytest
from conftest import ROOT

from fileindex.cli.app import main
from fileindex.errors import UsageError
from fileindex.table.metadata import load_schema
from fileindex.table.options_alter import alter_table, alter_table_options, drop_index
from fileindex.table.store import TableStore

TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"
PER_COLUMN = {"file-index.bloom-filter.columns": "f0,f1", "file-index.bloom-filter.f0.items": "100",
              "file-index.bloom-filter.f1.fpp": "0.01"}


@pytest.fixture
def root(tmp_path) -> Path:
    target = tmp_path / "t"
    shutil.copytree(TABLE, target)
    alter_table_options(target, set=PER_COLUMN)
    return target


def index_options(root: Path) -> dict:
    options = load_schema(TableStore(root), TableStore(root).latest_schema_id()).options
    return {k: v for k, v in options.items() if k.startswith("file-index.") and k != "file-index.read.enabled"}


def test_resetting_the_columns_key_removes_its_per_column_options_and_lists_them(root):
    altered = alter_table(root, reset=["file-index.bloom-filter.columns"])
    assert altered.removed == ["file-index.bloom-filter.f0.items", "file-index.bloom-filter.f1.fpp"]
    assert index_options(root) == {"file-index.bitmap.columns": "f0,f1,f2"}


def test_dropping_one_column_keeps_the_others_and_their_options(root):
    altered = alter_table(root, drop=["bloom-filter:f0"])
    assert altered.removed == ["file-index.bloom-filter.f0.items"]
    assert index_options(root) == {"file-index.bitmap.columns": "f0,f1,f2", "file-index.bloom-filter.columns": "f1",
                                   "file-index.bloom-filter.f1.fpp": "0.01"}
    assert alter_table(root, drop=["bloom-filter:f1"]).removed == ["file-index.bloom-filter.f1.fpp"]
    assert index_options(root) == {"file-index.bitmap.columns": "f0,f1,f2"}


def test_dropping_a_type_drops_every_column_and_option_of_it_only(root):
    alter_table(root, drop=["bloom-filter", "bitmap:f2"])
    assert index_options(root) == {"file-index.bitmap.columns": "f0,f1"}


def test_dropping_a_map_key_keeps_the_maps_options_while_another_key_is_indexed():
    options = {"file-index.bloom-filter.columns": "m[a],m[b]", "file-index.bloom-filter.m.items": "9",
               "file-index.bloom-filter.m[a].fpp": "0.1"}
    assert drop_index(options, "bloom-filter:m[a]") == {"file-index.bloom-filter.columns": "m[b]",
                                                        "file-index.bloom-filter.m[a].fpp": None}
    assert drop_index({"file-index.bloom-filter.columns": "m[b]", "file-index.bloom-filter.m.items": "9"},
                      "bloom-filter:m[b]") == {"file-index.bloom-filter.columns": None,
                                               "file-index.bloom-filter.m.items": None}


@pytest.mark.parametrize(("spec", "message"), [
    ("bsi", "declares no bsi index (file-index.bsi.columns is not set); its index types: bitmap, bloom-filter"),
    ("bloom-filter:f3", "file-index.bloom-filter.columns does not list f3 (it lists f0, f1)"),
])
def test_a_drop_of_what_the_table_does_not_index_is_refused(root, spec, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        alter_table(root, drop=[spec])


def test_narrowing_a_list_under_a_columns_option_points_at_drop_index(root):
    with pytest.raises(UsageError) as caught:
        alter_table(root, set={"file-index.bloom-filter.columns": "f1"})
    assert str(caught.value) == (
        "file-index.bloom-filter.f0.items is an option of the bloom-filter index on f0, which this change no "
        "longer declares: --drop-index bloom-filter:f0 drops the index with its options (or --reset "
        "file-index.bloom-filter.f0.items as well); nothing written")


def test_the_cli_drops_and_says_what_went_with_the_index(root, capsys):
    assert main(["table", str(root), "--drop-index", "bloom-filter"]) == 0
    out = capsys.readouterr().out
    assert "removed with their index: file-index.bloom-filter.f0.items, file-index.bloom-filter.f1.fpp" in out
    assert "wrote schema/schema-2" in out
    assert main(["table", str(root), "--drop-index", "bloom-filter"]) == 2
    assert "declares no bloom-filter index" in capsys.readouterr().err


def test_set_warns_in_rewrites_words_about_what_rewrite_refuses_and_what_writers_cannot_write(tmp_path, capsys):
    from fileindex.table.rewrite import rewrite_file_index

    target = tmp_path / "t"
    shutil.copytree(TABLE, target)
    schemas = sorted(p.name for p in (target / "schema").iterdir())
    # an index type the table's writers cannot write breaks every append of theirs: only with --force
    assert main(["table", str(target), "--set", "file-index.range-bitmap.columns=f1"]) == 2
    assert capsys.readouterr().err == (
        "fileindex table: file-index.range-bitmap.columns: the table's writers (Paimon 1.1, from its manifests) "
        "cannot write range-bitmap indexes, so each of their appends fails (\"Can't find file index for type: "
        "range-bitmap\"); Paimon 1.3 is the first that can; nothing written (--force sets it all the same)\n")
    assert sorted(p.name for p in (target / "schema").iterdir()) == schemas
    assert main(["table", str(target), "--set", "file-index.range-bitmap.columns=f1", "--force"]) == 0
    out, err = capsys.readouterr()
    with pytest.raises(UsageError) as refused:
        rewrite_file_index(target)
    assert f"fileindex rewrite cannot rebuild the existing files' indexes here ({refused.value})" in out
    assert "run fileindex rewrite" not in out
    assert ("warning: file-index.range-bitmap.columns: the table's writers (Paimon 1.1, from its manifests) cannot "
            "write range-bitmap indexes, so each of their appends fails (\"Can't find file index for type: "
            "range-bitmap\"); Paimon 1.3 is the first that can") in err
    # what rewrite then prints (with --compat none) is the same line
    assert main(["rewrite", str(target), "--compat", "none", "--dry-run"]) == 0
    assert err.split("warning: ", 1)[1] in capsys.readouterr().err


def test_set_of_what_rewrite_and_the_writers_accept_warns_nothing(root, capsys):
    assert main(["table", str(root), "--set", "file-index.bitmap.columns=f0,f1"]) == 0
    out, err = capsys.readouterr()
    assert "run fileindex rewrite" in out and "warning" not in err


def make_branch(root: Path, name: str) -> Path:
    """A branch as Paimon's createBranch lays it out: the schemas and snapshots copied under branch/."""
    folder = root / "branch" / f"branch-{name}"
    for part in ("schema", "snapshot"):
        shutil.copytree(root / part, folder / part)
    return folder


def test_alter_of_a_branch_writes_its_schema_only(root, capsys):
    folder = make_branch(root, "b")
    main_options = index_options(root)
    assert alter_table(root, drop=["bloom-filter"], branch="b").removed == ["file-index.bloom-filter.f0.items",
                                                                            "file-index.bloom-filter.f1.fpp"]
    assert sorted(p.name for p in (folder / "schema").iterdir()) == ["schema-0", "schema-1", "schema-2"]
    assert index_options(root) == main_options and "file-index.bloom-filter.columns" not in index_options(folder)
    assert alter_table(root, set={"file-index.bitmap.columns": "f0,f1,f2"}, branch="main").schema_id is None


@pytest.mark.parametrize(("argv", "message"), [
    (["table", "{root}", "--branch", "x", "--set", "file-index.bitmap.columns=f0"],
     "--branch x: {root} has no branch x (its branches: main, b)"),
    (["table", "{root}", "--branch", "../b", "--set", "file-index.bitmap.columns=f0"],
     "--branch '../b': not a branch name"),
    (["table", "{root}", "--branch", "b", "--indexes"], "--branch goes with --set, --reset or --drop-index"),
    (["rewrite", "{root}", "--branch", "b"], "--branch b: rewrite commits to the main branch only"),
    (["rewrite", "{root}", "--writer-version", "0.x"], "--writer-version 0.x: give a Paimon release such as 0.9, "
                                                       "1.1 or 1.2, or latest (or auto: the release the table's "
                                                       "manifests name)"),
])
def test_a_branch_or_writer_the_code_cannot_handle_is_refused_in_one_line(root, capsys, argv, message):
    make_branch(root, "b")
    assert main([a.format(root=root) for a in argv]) == 2
    err = capsys.readouterr().err
    assert message.format(root=root) in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("key, value, refusal", [
    ("file-index.bsi.columns", "f0", "file-index.bsi.columns lists f0: bsi does not support STRING"),
    ("file-index.bloom-filter.f1.fpp", "abc", "file-index.bloom-filter.columns lists f1: option fpp='abc' must be a "
                                              "number"),
    ("file-index.bloom-filter.f0.size", "9", "file-index.bloom-filter.columns lists f0: unknown bloom-filter option"),
    ("file-index.bitmap.f1.version", "7", "file-index.bitmap.columns lists f1: bitmap option version='7': use 1 or 2"),
])
def test_set_refuses_an_index_its_writer_refuses_before_writing_a_schema(root, capsys, key, value, refusal):
    """What the next rewrite would fail on at its first file is refused by the ALTER, as an unknown column is."""
    schemas = sorted(p.name for p in (root / "schema").iterdir())
    assert main(["table", str(root), "--set", f"{key}={value}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fileindex table: {refusal}") and err.rstrip().endswith("; nothing written")
    assert sorted(p.name for p in (root / "schema").iterdir()) == schemas
    assert alter_table_options(root, set={"file-index.bitmap.f1.version": "2"}) is not None  # one it takes


@pytest.mark.parametrize("argv", [
    ["--set", "file-index.bloom-filter.columns=nope"],  # a column the schema lacks
    ["--set", "file-index.bitmap.f9.version=1"],  # an option of an index the table does not declare
    ["--set", "path=x"],
    ["--reset", "foo"],
    ["--drop-index", "bitmap:zz"],
    ["--reset", "file-index.bloom-filter.columns", "--set", "file-index.bloom-filter.f0.items=5"],
])
def test_every_refusal_of_a_change_says_nothing_was_written(root, capsys, argv):
    schemas = sorted(p.name for p in (root / "schema").iterdir())
    assert main(["table", str(root), *argv]) == 2
    err = capsys.readouterr().err
    assert err.rstrip().endswith("; nothing written") and err.count("nothing written") == 1
    assert sorted(p.name for p in (root / "schema").iterdir()) == schemas


@pytest.mark.parametrize("key", ["file-index.read.enabled", "deletion-vectors.enabled"])
def test_a_boolean_option_set_to_neither_true_nor_false_is_refused(root, key):
    """(Written, the next read of the table refused its schema, and so would Java.)"""
    before = TableStore(root).latest_schema_id()
    with pytest.raises(UsageError, match=f"--set {key}=nope: not a boolean: write true or false"):
        alter_table(root, set={key: "nope"})
    assert TableStore(root).latest_schema_id() == before
    assert alter_table(root, set={key: "FALSE"}).schema_id == before + 1
