"""Rough edges a second new-user trial found: an unknown option answered with its subcommand's usage and the
option meant, a misspelt storage-option key named, a table folder given to an index command pointed at
``fileindex table``, and ``PaimonTable``'s repr."""
import pickle

import pytest
from conftest import ROOT

from fileindex import PaimonTable
from fileindex.cli import main
from fileindex.errors import UsageError
from fileindex.io.locations import parse_location
from fileindex.io.store_options import store_options

TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"


def refused(capsys, *argv) -> str:
    """What the command line printed when it refused ``argv`` with exit 2 (argparse exits by SystemExit)."""
    with pytest.raises(SystemExit) as exited:
        main([str(a) for a in argv])
    assert exited.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize("argv, usage, meant", [
    (["read", TABLE, "--wehre", "f0 = 'Bob'"], "fileindex read: ", "--where"),
    (["read", TABLE, "--limt=3"], "fileindex read: ", "--limit"),
    (["table", TABLE, "--indexs"], "fileindex table: ", "--indexes"),
    (["spark", "scan", TABLE, "--where", "f0 = 'Bob'", "--comapre"], "fileindex spark scan: ", "--compare"),
])
def test_an_unknown_option_is_named_by_its_subcommand_with_the_option_meant(capsys, argv, usage, meant):
    err = refused(capsys, *argv)
    assert err.startswith(usage) and len(err.splitlines()) == 1
    assert f"error: unrecognized arguments: {meant[:3]}" in err
    assert err.strip().endswith(f"(did you mean {meant}?)")


def test_an_option_like_none_gets_no_guess(capsys):
    err = refused(capsys, "read", TABLE, "--zzzzzz")
    assert err.startswith("fileindex read: ") and err.strip().endswith(
        "unrecognized arguments: --zzzzzz (see fileindex read --help)")


@pytest.mark.parametrize("key, meant", [
    ("s3.endpont", "s3.endpoint"), ("fs.s3a.acess.key", "fs.s3a.access-key"), ("s3.secret-kye", "s3.secret-key"),
    ("s3.pathstyle-access", "s3.path-style-access")])
def test_a_misspelt_storage_option_is_named_with_the_key_meant(key, meant):
    with pytest.raises(UsageError, match=f"option {key}: .*did you mean {meant}\\?$"):
        store_options(parse_location("s3://bucket/t"), {key: "http://127.0.0.1:1"}, environ={})
    with pytest.raises(UsageError, match=f"did you mean {meant}"):  # the Python API, as it opens the table
        PaimonTable("s3://bucket/t", options={key: "http://127.0.0.1:1"})


@pytest.mark.parametrize("location, key, meant", [
    ("gs://bucket/t", "gcs.endpont", "gcs.endpoint"), ("oss://bucket/t", "oss.acesskeyid", "oss.accesskeyid"),
    ("abfs://c@acct.dfs.core.windows.net/t", "azure.acount-name", "azure.account-name")])
def test_each_store_names_its_own_misspelt_keys(location, key, meant):
    with pytest.raises(UsageError, match=f"did you mean {meant}"):
        store_options(parse_location(location), {key: "x"}, environ={})


def test_keys_a_catalog_passes_for_hadoop_or_other_stores_are_left_alone():
    options = {"fs.s3a.connection.maximum": "100", "fs.s3a.fast.upload": "true", "fs.s3a.impl": "x",
               "fs.s3a.aws.credentials.provider": "x", "s3.endpoint-url": "x", "fs.s3a.connection.timeout": "1",
               "fs.s3a.server-side-encryption-algorithm": "x", "gcs.endpont": "x", "file-index.bitmap.columns": "a",
               "s3.endpoint": "http://h:9000"}
    assert store_options(parse_location("s3://bucket/t"), options, environ={}).endpoint == "http://h:9000"
    gcs = {"fs.gs.auth.service.account.email": "x", "fs.gs.auth.client.secret": "x", "fs.gs.project.id": "p"}
    assert store_options(parse_location("gs://bucket/t"), gcs, environ={}).project == "p"
    azure = {"fs.azure.account.oauth2.client.secret": "x", "fs.azure.account.oauth2.client.id": "x",
             "fs.azure.account.auth.type": "SharedKey"}
    store_options(parse_location("abfs://c@acct.dfs.core.windows.net/t"), azure, environ={})


def test_the_command_line_names_a_misspelt_storage_option_in_one_line(capsys):
    code = main(["read", "s3://bucket/t", "--storage-option", "s3.endpont=http://127.0.0.1:1",
                 "--storage-option", "s3.secret-key=hunter2"])
    err = capsys.readouterr().err
    assert code == 2 and err == ("fileindex read: option s3.endpont: not a key of this store; did you mean "
                                 "s3.endpoint?\n")


def test_the_command_line_names_the_key_meant_by_a_storage_option_of_no_store(capsys):
    """``s3endpoint`` (no store's key, which reaching the store would ignore) is refused before anything is read."""
    code = main(["read", "s3://bucket/t", "--storage-option", "s3endpoint=http://127.0.0.1:1"])
    err = capsys.readouterr().err
    assert code == 2 and err == ("fileindex read: --storage-option s3endpoint: not a key of any store; did you mean "
                                 "s3.endpoint?\n"), err


@pytest.mark.parametrize("command", [["inspect"], ["explain"], ["check"], ["query", "--where", "f0 = 'Bob'"]])
def test_a_table_folder_given_for_an_index_points_at_fileindex_table(capsys, command):
    code = main([command[0], str(TABLE), *command[1:]])
    out, err = capsys.readouterr()
    assert code == 2 and f"fileindex table {TABLE} --indexes" in out + err and "Is a directory" not in out + err


def test_a_folder_of_tables_or_another_folder_is_named_as_such(capsys):
    assert main(["inspect", str(TABLE.parent)]) == 2
    assert "a folder of tables, not a file index" in capsys.readouterr().err
    assert main(["inspect", str(ROOT / "tests" / "cli")]) == 2
    assert "is a folder, not a file index" in capsys.readouterr().err


def test_a_table_shows_where_it_is_and_a_pinned_snapshot():
    latest = PaimonTable(TABLE)
    assert repr(latest) == f"PaimonTable({str(TABLE)!r})"
    pinned = PaimonTable(TABLE, latest.snapshot.id, options={"s3.secret-key": "hunter2"})
    assert repr(pinned) == f"PaimonTable({str(TABLE)!r}, snapshot_id={latest.snapshot.id})"
    assert repr(pickle.loads(pickle.dumps(pinned))) == repr(pinned)


def test_a_bloom_filter_under_a_wrong_type_answers_wrongly_as_the_readme_warns(capsys, tmp_path):
    """The README's exception to "a type that does not fit is named": a bloom filter keeps hashes only; a --schema
    that types its column otherwise than the data file beside it is warned about."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = tmp_path / "x.parquet"
    pq.write_table(pa.table({"a": pa.array(range(100), pa.int32())}), data)
    assert main(["build", str(data), "--option", "file-index.bloom-filter.columns=a",
                 "--option", "file-index.bloom-filter.a.items=100"]) == 0
    answers, warned = {}, {}
    for type_name in ("INT", "BIGINT", "DOUBLE"):
        assert main(["query", f"{data}.index", "--schema", f"a {type_name}", "--where", "a = 5"]) == 0
        out, err = capsys.readouterr()
        answers[type_name] = out.split("=>")[1].strip()
        warned[type_name] = f"a {type_name} (the data: INT); a bloom filter keeps only hashes" in err
    assert answers == {"INT": "REMAIN", "BIGINT": "REMAIN", "DOUBLE": "SKIP"}
    assert warned == {"INT": False, "BIGINT": True, "DOUBLE": True}  # --schema against the data file beside it
    assert "INT column queried as DOUBLE answers SKIP" in " ".join((ROOT / "README.md").read_text().split())


WITHOUT_OBSTORE = """
import runpy, sys
class Unavailable:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "obstore":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Unavailable())
sys.argv = ["fileindex", "read", "s3://lake/w/db.db/orders", "--storage-option", "s3.endpoint=http://127.0.0.1:9"]
runpy.run_module("fileindex", run_name="__main__")
"""


def test_a_table_on_a_store_without_obstore_installed_says_what_to_install():
    """The README's setup installs no obstore: a URI read says in one line what to install (it printed a
    traceback, ``No module named 'obstore'``, in a third new-user trial)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", WITHOUT_OBSTORE], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "fileindex read: object stores need obstore: pip install 'paimon-fileindex[object-stores]'"], done.stderr


DV_TABLE = ROOT / "tests" / "tables" / "orc" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"


def test_a_file_whose_indexed_rows_are_all_deleted_is_skipped_by_the_deletion_vector(capsys):
    """Lucy's row is in the bitmap and deleted at snapshot 4: the index kept the file (1 row), the deletion
    vector ruled it out (the explanation blamed the index, in a third new-user trial)."""
    assert main(["read", str(DV_TABLE), "--where", "f0 = 'Lucy'", "--explain"]) == 0
    lines = capsys.readouterr().out.splitlines()
    stages = {line[:19].strip(): line[19:].split() for line in lines[2:6]}  # (a stage's name is words)
    assert stages["file index"] == ["files", "1", "->", "1", "rows", "8", "->", "1"]
    assert stages["deletion vectors"] == ["files", "1", "->", "0", "rows", "1", "->", "0"]
    assert "skipped by deletion vectors" in lines[-1]
    assert main(["read", str(DV_TABLE), "--where", "f0 = 'Lucy'", "--snapshot", "2"]) == 0
    assert "Lucy" in capsys.readouterr().out
