"""``--storage-option`` given for a table on local disk was ignored without a word: a warning on stderr names the
keys (never a value: often a secret) once the command has run; the kit refuses them without --tables-at."""
import pytest
from conftest import ROOT

from fileindex.cli import main

TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"
CONTAINER = ROOT / "fileindex" / "samples" / "container_12col.index"
FLAGS = ["--storage-option", "s3.endpoint=http://127.0.0.1:9", "--storage-option", "s3.secret-key=hunter2"]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv, command", [(["read", TABLE, "--where", "f1 = 10", "--count"], "read"),
                                           (["table", TABLE, "--indexes"], "table"),
                                           (["inspect", CONTAINER], "inspect")])
def test_options_no_store_used_are_named_in_a_warning(capsys, argv, command):
    code, out, err = run(capsys, *argv)
    flagged = run(capsys, *argv, *FLAGS)
    assert flagged[:2] == (code, out)  # the same answer
    assert flagged[2] == err + (f"fileindex {command}: warning: --storage-option s3.endpoint, s3.secret-key ignored: "
                                "nothing this command read or wrote is on an object store (they reach s3://, gs://, "
                                "abfs://, ... locations)\n")
    assert "hunter2" not in flagged[2]


def test_a_failed_command_is_not_told_its_options_went_unused(capsys):
    code, _, err = run(capsys, "read", TABLE, "--where", "nope = 1", *FLAGS)
    assert code == 2 and "ignored" not in err


def test_the_kit_refuses_storage_options_without_tables_at(capsys, tmp_path):
    code, _, err = run(capsys, "kit", "run", tmp_path, "--impl", "x", *FLAGS)
    assert code == 2 and "--storage-option goes with --tables-at" in err and "hunter2" not in err


def test_the_library_warns_as_the_command_line_does(recwarn):
    """``PaimonTable(local_path, options=...)`` ignored them without a word: a warning of a category a caller can
    filter, naming the keys (not a value); the command line's own pairs are named once, by the command line."""
    from fileindex import PaimonTable
    from fileindex.io.reach import StoreOptionsIgnoredWarning, reaching

    options = {"s3.endpoint": "http://127.0.0.1:9", "s3.secret-key": "hunter2"}
    with pytest.warns(StoreOptionsIgnoredWarning, match="^options s3.endpoint, s3.secret-key ignored: .* is on no "
                                                        "object store") as said:
        PaimonTable(TABLE, options=options)
    assert said[0].filename == __file__ and "hunter2" not in str(said[0].message)
    recwarn.clear()
    PaimonTable(TABLE)
    with reaching(options):
        PaimonTable(TABLE, options=dict(options))  # (read_table hands the command line's pairs on)
    assert not [w for w in recwarn if issubclass(w.category, StoreOptionsIgnoredWarning)]
