"""Java-written tables uploaded to each server (moto, Azurite, fake-gcs-server) and read through their URIs: the
same rows and the same ``explain()`` as the local copy, through ``PaimonTable`` and the commands; the requests
the counting proxy sees (nothing listed, no data file the index rules out touched); confinement to the
table's prefix."""
from __future__ import annotations

import pytest
from conftest import ROOT

from fileindex import PaimonTable

TABLES = ROOT / "tests" / "tables"
BITMAP = TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"


def upload(store, table, name: str | None = None) -> str:
    """``table``'s files under the test's prefix (past the proxy, not counted); the table's URI there."""
    name = name or f"warehouse/{table.parent.name}/{table.name}"
    for path in sorted(p for p in table.rglob("*") if p.is_file()):
        store.put(f"{name}/{path.relative_to(table).as_posix()}", path.read_bytes())
    return store.uri(name)


def test_scan_reads_the_same_rows_and_explain_as_the_local_copy(object_store):
    uri = upload(object_store, BITMAP)
    object_store.proxy.clear()
    remote = PaimonTable(uri, options=object_store.options())
    local = PaimonTable(BITMAP)
    where = "f0 = 'Bob'"
    got = remote.scan(where).to_arrow()
    assert got.equals(local.scan(where).to_arrow()) and got.num_rows > 0
    assert remote.scan().to_arrow().sort_by("f0").equals(local.scan().to_arrow().sort_by("f0"))
    ours, theirs = remote.scan(where).explain(), local.scan(where).explain()
    print(ours)
    assert str(ours).replace(uri, "ROOT") == str(theirs).replace(str(BITMAP), "ROOT")
    listed = [r for r in object_store.proxy.requests if not r.key]
    # only schema/ is listed, as Paimon's SchemaManager does
    assert len(listed) == 1 and "schema" in str(listed[0].query)


def test_a_query_the_index_rules_out_fetches_no_data_file(object_store):
    uri = upload(object_store, BITMAP)
    object_store.proxy.clear()
    table = PaimonTable(uri, options=object_store.options())
    assert table.scan("f0 = 'Nobody'").to_arrow().num_rows == 0
    fetched = [r.key for r in object_store.proxy.requests if r.key]
    assert fetched and not [key for key in fetched if "bucket-" in key]
    object_store.proxy.clear()
    assert table.scan("f0 = 'Bob'").to_arrow().num_rows == 2  # the manifests come from memory now
    fetched = [r.key.rsplit("/", 2)[-2] for r in object_store.proxy.requests if r.key]
    assert set(fetched) == {"bucket-0"}


def storage_flags(store) -> list[str]:
    return [flag for key, value in store.options().items() for flag in ("--storage-option", f"{key}={value}")]


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    from fileindex.cli.app import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", [
    ["read", "--where", "f0 = 'Bob'"], ["read", "--where", "f0 = 'Bob'", "--explain", "--json"],
    ["table", "--where", "f0 = 'Bob'", "--where", "f1 > 3"], ["table", "--indexes", "--json"]])
def test_commands_answer_as_on_the_local_copy(object_store, capsys, command):
    uri = upload(object_store, BITMAP)
    code, remote_out, remote_err = run_cli(capsys, command[0], uri, *command[1:], *storage_flags(object_store))
    assert code == 0, remote_err
    assert "--storage-option" not in remote_err  # (used: no warning that it was ignored)
    code, local_out, _ = run_cli(capsys, command[0], str(BITMAP), *command[1:])
    assert code == 0
    assert remote_out.replace(uri, "ROOT") == local_out.replace(str(BITMAP), "ROOT") and remote_out.strip()


def test_a_secret_is_never_shown(s3_store, capsys):
    """Errors (a wrong key, a missing table, a malformed option), explain and the table's repr name no secret."""
    uri = upload(s3_store, BITMAP)
    flags = storage_flags(s3_store)
    shown = []
    for argv in (["read", uri, "--explain", *flags], ["read", uri, "--progress", *flags],
                 ["read", s3_store.uri("nothing-here"), *flags],
                 ["read", uri.replace("s3://warehouse", "s3://no-such-bucket"), *flags],
                 ["table", uri, "--where", "f0 = 'Bob'", "--storage-option", f"{s3_store.secrets()[0]}", *flags]):
        code, out, err = run_cli(capsys, *argv)
        shown.append(out + err)
    assert [text for text in shown if any(secret in text for secret in s3_store.secrets())] == []
    assert "KEY=VALUE" in shown[-1]
    table = PaimonTable(uri, options=s3_store.options())
    texts = [repr(table), repr(table.store), repr(table.store.io), str(table.scan("f0 = 'Bob'").explain())]
    assert not [t for t in texts if any(secret in t for secret in s3_store.secrets())]


def test_a_manifest_naming_another_bucket_is_refused(s3_store):
    """A table's files are read inside its prefix only: a name that climbs out is refused before a request."""
    from fileindex.errors import ConfinementError
    from fileindex.table.errors import UnsafeNameError

    uri = upload(s3_store, BITMAP)
    table = PaimonTable(uri, options=s3_store.options())
    s3_store.proxy.clear()
    with pytest.raises((ConfinementError, UnsafeNameError)):
        table.store.open("s3://other-bucket/t/bucket-0/data.parquet", "data file")
    with pytest.raises((ConfinementError, UnsafeNameError)):
        table.store.read_bytes(table.store.root.parent / "elsewhere", "manifest", 1 << 20)
    assert s3_store.proxy.requests == []


def download(store, uri: str, target) -> None:
    """Every object under the table's URI, written under ``target`` (past the proxy)."""
    file_io = store.file_io_direct()
    prefix = uri[len(store.root) + 1:]

    def walk(folder: str) -> None:
        for found in file_io.list(store.uri(folder)):
            name = f"{folder}/{found.name}"
            if found.kind == "folder":
                walk(name)
            else:
                path = target / name[len(prefix) + 1:]
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(file_io.read_bytes(store.uri(name), limit=1 << 30))

    walk(prefix)


def test_alter_and_rewrite_on_s3_commit_by_conditional_create(s3_store, capsys, tmp_path):
    uri = upload(s3_store, BITMAP)
    flags = storage_flags(s3_store)
    code, out, err = run_cli(capsys, "table", uri, "--set", "file-index.bloom-filter.columns=f1", *flags)
    assert code == 0, err
    s3_store.proxy.clear()
    code, out, err = run_cli(capsys, "rewrite", uri, *flags)
    assert code == 0, err
    puts = [r for r in s3_store.proxy.requests if r.method == "PUT"]
    snapshot = [r for r in puts if r.key.endswith("/snapshot/snapshot-2")]
    assert len(snapshot) == 1 and snapshot[0].if_none_match == "*"
    assert all(r.if_none_match == "*" for r in puts if "/manifest/" in r.key)
    assert [r.key.rsplit("/", 1)[-1] for r in puts if r.if_none_match is None] == ["LATEST"]
    local = tmp_path / "t"
    download(s3_store, uri, local)
    remote, copy = PaimonTable(uri, options=s3_store.options()), PaimonTable(local)
    assert remote.snapshot.id == copy.snapshot.id == 2
    assert remote.scan("f1 = 3").to_arrow().equals(PaimonTable(BITMAP).scan("f1 = 3").to_arrow())
    assert str(remote.scan("f1 = 3").explain()).replace(uri, "R") == str(copy.scan("f1 = 3").explain()).replace(
        str(local), "R")


def test_two_writers_racing_a_commit_on_azurite_make_one_snapshot_per_number(azure_store):
    """Writer B commits snapshot-2 while writer A is about to: A's conditional create of snapshot-2 is refused
    (Azurite's If-None-Match: * is atomic), A rebases on B's snapshot, finds its files rewritten already and
    commits nothing; B's snapshot is never overwritten."""
    import json

    from fileindex.table.options_alter import alter_table
    from fileindex.table.rewrite import rewrite_file_index
    from fileindex.table.stages import Stage, watching
    from fileindex.io.reach import reaching

    uri = upload(azure_store, BITMAP)
    with reaching(azure_store.options()):
        alter_table(uri, set={"file-index.bloom-filter.columns": "f1"})
        results = []

        def writer_b_commits_first(stage: Stage) -> None:
            if stage == Stage.SNAPSHOT and not results:
                results.append(rewrite_file_index(uri))

        azure_store.proxy.clear()
        with watching(writer_b_commits_first):
            first = rewrite_file_index(uri)
    second = results[0]
    assert second.snapshot_id == 2 and first.snapshot_id is None and first.attempts == 2 and first.dropped
    creates = [r for r in azure_store.proxy.requests if r.method == "PUT" and r.key.endswith("/snapshot-2")]
    assert [(r.if_none_match, r.status) for r in creates] == [("*", 201), ("*", 409)]
    table = PaimonTable(uri, options=azure_store.options())
    assert table.snapshot.id == 2
    snapshot = json.loads(table.store.read_bytes(table.store.snapshot_file(2), "snapshot", 1 << 20))
    assert snapshot["commitKind"] == "COMPACT"
    assert table.scan("f1 = 3").to_arrow().equals(PaimonTable(BITMAP).scan("f1 = 3").to_arrow())


SIDECARS = TABLES / "parquet" / "append_with_bsi_bitmap_bloomfilter.db" / "append_with_bsi_bitmap_bloomfilter"


@pytest.mark.parametrize("command", [["inspect"], ["check"], ["query", "--where", "f1 = 3"]])
def test_a_sidecar_on_a_store_is_inspected_checked_and_queried_as_the_local_one(object_store, capsys, command):
    uri = upload(object_store, SIDECARS)
    local = next(SIDECARS.glob("bucket-0/*.index"))
    remote = f"{uri}/bucket-0/{local.name}"
    types = ["--table", uri] if command[0] != "inspect" else []
    local_types = ["--table", str(SIDECARS)] if command[0] != "inspect" else []
    code, remote_out, remote_err = run_cli(capsys, command[0], remote, *command[1:], *types,
                                           *storage_flags(object_store))
    assert code == 0, remote_err
    code, local_out, _ = run_cli(capsys, command[0], str(local), *command[1:], *local_types)
    assert code == 0
    assert remote_out.replace(remote, "F") == local_out.replace(str(local), "F") and remote_out.strip()


def test_sidecars_are_read_from_the_store_and_a_ruled_out_file_is_never_fetched(object_store):
    uri = upload(object_store, SIDECARS)
    remote, local = PaimonTable(uri, options=object_store.options()), PaimonTable(SIDECARS)
    for where in ("f1 = 3", "f1 = -12345"):
        object_store.proxy.clear()
        got = remote.scan(where).to_arrow()
        assert got.equals(local.scan(where).to_arrow())
        assert str(remote.scan(where).explain()).replace(uri, "R") == str(local.scan(where).explain()).replace(
            str(SIDECARS), "R")
        data = [r.key for r in object_store.proxy.requests if r.key and r.key.endswith(".parquet")]
        assert bool(data) == (got.num_rows > 0)


def test_on_a_store_a_second_predicate_sends_no_request_for_an_index(object_store):
    """On S3, Azure and GCS (behind the counting proxy): the first predicate fetches the sidecar's HEAD and the
    bodies it asks for; another predicate on the same table sends nothing for the index it opened, only the
    bodies of a column it had not asked before."""
    from fileindex.container import file as container_file

    uri = upload(object_store, SIDECARS)
    table = PaimonTable(uri, options=object_store.options())
    assert table.scan("f1 = 100").count() == 2
    object_store.proxy.clear()
    for shared in (container_file.SIDECARS, container_file.MAPPED_SIDECARS):  # (what the table keeps is left)
        shared.clear()
    assert [table.scan(where).count() for where in ("f1 = -12345", "f1 > 100")] == [0, 3]
    assert [r.key for r in object_store.proxy.requests if r.key and r.key.endswith(".index")] == []
    fresh = PaimonTable(uri, options=object_store.options())  # (a new table: its own requests)
    assert fresh.scan("f1 > 100").count() == 3
    assert [r.key for r in object_store.proxy.requests if r.key and r.key.endswith(".index")]


def test_an_unknown_scheme_is_one_line(capsys):
    code, out, err = run_cli(capsys, "read", "ftp://host/warehouse/t")
    assert code == 2 and err.count("\n") == 1 and "ftp://" in err and "s3://" in err



def test_a_filesystem_object_reads_and_commits_only_with_the_single_writer_promise(s3_store):
    """PaimonTable(uri, filesystem=...) reads through a pyarrow filesystem; it has no conditional create, so an
    ALTER's commit is refused in one line unless the single-writer option is given by name."""
    from fileindex.errors import UsageError
    from fileindex.io.locations import parse_location
    from fileindex.io.object_store import arrow_filesystem
    from fileindex.io.reach import reaching
    from fileindex.io.store_options import SINGLE_WRITER, store_options
    from fileindex.table.options_alter import alter_table

    uri = upload(s3_store, BITMAP)
    location = parse_location(uri)
    filesystem = arrow_filesystem(location, store_options(location, s3_store.options(), environ={}))
    table = PaimonTable(uri, filesystem=filesystem)
    assert table.scan("f0 = 'Bob'").to_arrow().equals(PaimonTable(BITMAP).scan("f0 = 'Bob'").to_arrow())
    with reaching(filesystem=filesystem), pytest.raises(UsageError, match=SINGLE_WRITER):
        alter_table(uri, set={"file-index.bloom-filter.columns": "f1"})
    with reaching({SINGLE_WRITER: "true"}, filesystem):
        assert alter_table(uri, set={"file-index.bloom-filter.columns": "f1"}).schema_id == 1


def test_a_primary_key_bucket_read_by_candidate_keys_opens_each_data_file_once(s3_store, monkeypatch):
    """A deduplicate bucket read by its candidate keys (each file given a bitmap index on ``score``, as
    ``test_java_pk_tables`` gives them): the keys of the records the indexes select and the merge of their
    records read from one opening of each data file (an opening is a GET of its last bytes), and the rows are
    the local copy's."""
    from dataclasses import replace

    from fileindex.writing.data_file import build_data_file_index

    local_root = TABLES / "primary-keys" / "deduplicate"
    local = PaimonTable(local_root)
    built = {entry.file_name: build_data_file_index(local.store.data_file(entry, local.schema), {
        "file-index.bitmap.columns": "score"}).held for entry, _ in local.live()}
    live = PaimonTable.live
    monkeypatch.setattr(PaimonTable, "live", lambda self, keep_manifest=None: [
        (replace(entry, embedded_index=built[entry.file_name]), vector) for entry, vector in live(self, keep_manifest)])
    uri = upload(s3_store, local_root)
    where = "score = 20"
    scan = PaimonTable(uri, options=s3_store.options()).scan(where)
    reads = [f for f in scan.explain().files if f.read in ("all", "merged")]
    assert any("only the keys of the" in f.reason for f in reads) and len(reads) > 1
    s3_store.proxy.clear()
    assert scan.to_arrow().equals(PaimonTable(local_root).scan(where).to_arrow())
    openings = [r.key.rsplit("/", 1)[-1] for r in s3_store.proxy.requests
                if r.method == "GET" and r.key and r.key.endswith(".parquet") and (r.range or "").startswith("bytes=-")]
    assert sorted(openings) == sorted(f.file.rsplit("/", 1)[-1] for f in reads)


def test_a_data_file_read_whole_is_fetched_whole_by_the_get_that_opens_it(s3_store, monkeypatch):
    """Every column of every row: each data file is one GET of its whole object (its size from the manifest), not a
    footer's GET then its chunks'. (The footer's GET asks for the object's last TAIL bytes; a smaller TAIL here
    tells the two apart on the small files of this table.)"""
    from fileindex.io import object_store

    monkeypatch.setattr(object_store, "TAIL", 64)
    uri = upload(s3_store, BITMAP)
    table = PaimonTable(uri, options=s3_store.options())
    table.scan("f0 = 'Nobody'").to_arrow()  # (the metadata fetched and kept)
    s3_store.proxy.clear()
    assert table.scan().to_arrow().num_rows == PaimonTable(BITMAP).scan().to_arrow().num_rows
    data = [r for r in s3_store.proxy.requests if r.key and r.key.endswith(".parquet")]
    sizes = {entry.file_name: entry.file_size for entry, _ in table.live()}
    assert data and len(data) == len({r.key for r in data})  # (one GET a file)
    assert all(r.range == f"bytes=-{sizes[r.key.rsplit('/', 1)[-1]]}" and r.sent == sizes[r.key.rsplit('/', 1)[-1]]
               for r in data)


ALTERED = TABLES / "parquet" / "append_with_bitmap_alter_table.db" / "append_with_bitmap_alter_table"


def test_the_snapshot_and_the_schema_are_fetched_side_by_side_with_the_same_requests_and_answers(s3_store):
    """Opening a table on a store sends what Paimon's managers send (the LATEST hint, a HEAD of the snapshot after
    it, that snapshot, one listing of schema/, the latest schema), the hint's snapshot and the schema fetched
    beside the HEAD and the snapshot's requests, each once; a hint that is not the latest still gives the latest
    snapshot (by listing, as Paimon does); time travel fetches no latest schema it does not read."""
    uri = upload(s3_store, ALTERED)
    local = PaimonTable(ALTERED)
    s3_store.proxy.clear()
    table = PaimonTable(uri, options=s3_store.options())
    assert (table.snapshot.id, table.schema) == (local.snapshot.id, local.schema) == (2, local.schema_by_id(1))
    requests = s3_store.proxy.requests
    assert sorted(r.key.rsplit("/", 1)[-1] for r in requests if r.key) == [
        "LATEST", "schema-1", "snapshot-2", "snapshot-3"]
    assert [r.method for r in requests if r.key and r.key.endswith("snapshot-3")] == ["HEAD"]
    assert len([r for r in requests if not r.key]) == 1  # (schema/ listed once, as Paimon's SchemaManager does)

    s3_store.put(f"warehouse/{ALTERED.parent.name}/{ALTERED.name}/snapshot/LATEST", b"1")
    s3_store.proxy.clear()
    with pytest.warns(UserWarning, match="is not the latest snapshot"):
        stale = PaimonTable(uri, options=s3_store.options())
    assert stale.snapshot.id == 2 and stale.schema == local.schema
    assert stale.scan().to_arrow().sort_by("f1").equals(local.scan().to_arrow().sort_by("f1"))

    s3_store.proxy.clear()
    travelled = PaimonTable(uri, snapshot_id=1, options=s3_store.options())
    assert travelled.schema == local.schema_by_id(0)
    assert sorted(r.key.rsplit("/", 1)[-1] for r in s3_store.proxy.requests if r.key) == ["schema-0", "snapshot-1"]
