"""The object-store file access against real servers (moto, Azurite, fake-gcs-server) behind a counting proxy:
what each operation sends (requests, ranges, bytes, conditions) and what it answers."""
import base64
import io
import json
import pickle
import threading

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fileindex.errors import ConfinementError, UsageError
from fileindex.io.object_store import TAIL, ObjectChangedError, ObjectStoreFileIO, StoreError, coalesce


def parquet_bytes(rows: int = 40_000) -> bytes:
    table = pa.table({"id": pa.array(range(rows), pa.int64()), "name": [f"n{i % 97}" for i in range(rows)]})
    out = io.BytesIO()
    pq.write_table(table, out, row_group_size=10_000, compression="none")
    return out.getvalue()


def data_requests(proxy):
    return [r for r in proxy.requests if r.key is not None and r.key != ""]


def test_coalesce_merges_close_ranges_and_keeps_far_ones_apart():
    assert coalesce([(300, 10), (0, 100), (120, 100)], gap=50) == [(0, 220), (300, 10)]
    assert coalesce([(0, 100), (150, 100)], gap=10) == [(0, 100), (150, 100)]
    assert coalesce([(0, 100), (20, 10)], gap=0) == [(0, 100)]


def test_coalesce_keeps_apart_what_would_merge_past_the_limit():
    assert coalesce([(0, 100), (100, 100), (200, 100)], gap=0, limit=250) == [(0, 200), (200, 100)]
    assert coalesce([(0, 400), (100, 10)], gap=0, limit=250) == [(0, 400)]  # (overlapping: one range)


def test_read_bytes_is_one_whole_get(object_store):
    data = bytes(range(256)) * 40
    uri = object_store.put("snapshot/snapshot-1", data)
    file_io = object_store.file_io()
    assert file_io.read_bytes(uri, limit=1 << 20) == data
    (request,) = object_store.proxy.requests
    assert (request.method, request.key, request.range, request.sent) == (
        "GET", f"{object_store.prefix}/snapshot/snapshot-1", None, len(data))


def test_read_bytes_over_the_limit_is_refused_after_one_request(object_store):
    uri = object_store.put("manifest/big", b"x" * 5000)
    with pytest.raises(ConfinementError, match="holds 5,000 bytes, more than the limit of 4,999"):
        object_store.file_io().read_bytes(uri, limit=4999, what="manifest")
    assert len(object_store.proxy.requests) == 1


def test_a_parquet_footer_and_row_group_cost_one_request_each(object_store):
    data = parquet_bytes()
    uri = object_store.put("bucket-0/data-0.parquet", data)
    file_io = object_store.file_io()
    opened = file_io.open_input(uri)
    assert opened.size == len(data) and opened.identity[:2] == (uri, len(data))
    (first,) = object_store.proxy.requests
    if object_store.kind == "azure":  # no suffix ranges on Azure: a HEAD gives the size
        assert first.method == "HEAD"
    else:  # one GET of the tail gives the size, the ETag and the footer
        assert (first.method, first.range, first.sent) == ("GET", f"bytes=-{TAIL}", TAIL)
    parquet = pq.ParquetFile(opened.native())
    assert parquet.metadata.num_rows == 40_000
    footer_requests = len(object_store.proxy.requests) - 1
    assert footer_requests == (1 if object_store.kind == "azure" else 0)

    object_store.proxy.clear()
    column = parquet.metadata.row_group(1).column(0)
    start = column.dictionary_page_offset or column.data_page_offset
    assert parquet.read_row_group(1, columns=["id"])["id"].to_pylist() == list(range(10_000, 20_000))
    (read,) = object_store.proxy.requests  # the column chunk, and nothing else
    assert read.method == "GET" and read.range == f"bytes={start}-{start + column.total_compressed_size - 1}"
    assert read.sent == column.total_compressed_size


def test_pyarrow_pre_buffer_coalesces_column_chunks_into_one_get(object_store):
    """Two row groups, both columns, read with pre_buffer: pyarrow merges the four adjacent column chunks, and the
    file access sends them as one ranged GET."""
    uri = object_store.put("bucket-0/data-1.parquet", parquet_bytes())
    opened = object_store.file_io().open_input(uri)
    parquet = pq.ParquetFile(opened.native(), pre_buffer=True)
    object_store.proxy.clear()
    table = parquet.read_row_groups([1, 2], columns=["id", "name"])
    assert table["id"].to_pylist() == list(range(10_000, 30_000))
    first = parquet.metadata.row_group(1).column(0)
    last = parquet.metadata.row_group(2).column(1)
    start = first.dictionary_page_offset or first.data_page_offset
    end = (last.dictionary_page_offset or last.data_page_offset) + last.total_compressed_size
    assert [(r.method, r.range) for r in object_store.proxy.requests] == [("GET", f"bytes={start}-{end - 1}")]


def test_ranged_reads_are_coalesced_and_exact(object_store):
    data = bytes(i % 251 for i in range(300_000))
    uri = object_store.put("index/blob", data)
    opened = object_store.file_io().open_input(uri)
    object_store.proxy.clear()
    ranges = [(0, 100), (150, 100), (200_000, 10), (299_990, 10)]
    assert opened.read_ranges(ranges, gap=1000) == [data[o:o + n] for o, n in ranges]
    fetched = sorted(r.range for r in object_store.proxy.requests)
    # the last range lies in the object's last 64 KiB: fetched at open (S3, GCS) or by this first read into it
    tail = f"bytes={len(data) - TAIL}-{len(data) - 1}"
    assert fetched == ["bytes=0-249", "bytes=200000-200009"] + ([tail] if object_store.kind == "azure" else [])
    assert sum(r.sent for r in object_store.proxy.requests) == 250 + 10 + (TAIL if object_store.kind == "azure" else 0)
    object_store.proxy.clear()
    assert opened.read_range(len(data) - 5, 100) == data[-5:]
    assert object_store.proxy.requests == []  # served from the tail


def test_an_object_replaced_after_it_was_opened_is_an_error_not_a_mix(object_store):
    data = bytes(200_000)
    uri = object_store.put("bucket-0/data.parquet", data)
    opened = object_store.file_io().open_input(uri)
    object_store.put("bucket-0/data.parquet", b"\1" * 200_000)
    with pytest.raises(ObjectChangedError, match="data.parquet changed since it was opened"):
        opened.read_range(0, 100)
    last = object_store.proxy.requests[-1]  # the version opened, asked for by ETag or (GCS) by generation
    assert last.if_match == opened.identity[2] if object_store.kind != "gcs" else \
        last.query["generation"] == opened.identity[3]


def test_info_is_one_head_whose_identity_follows_the_object(object_store):
    uri = object_store.put("schema/schema-0", b"first")
    file_io = object_store.file_io()
    before = file_io.info(uri)
    assert (before.name, before.kind, before.size) == ("schema-0", "file", 5)
    assert [r.method for r in object_store.proxy.requests] == ["HEAD"]
    object_store.put("schema/schema-0", b"other")
    after = file_io.info(uri)
    assert after.size == before.size and after.identity != before.identity  # same size, new ETag/generation
    assert file_io.info(object_store.uri("schema/schema-9")) is None


def test_an_empty_object_opens(object_store):
    uri = object_store.put("empty", b"")
    opened = object_store.file_io().open_input(uri)
    assert (opened.size, opened.read_range(0, 10), opened.native().read()) == (0, b"", b"")


def test_a_missing_object_is_file_not_found_naming_it(object_store):
    missing = object_store.uri("bucket-0/gone.parquet")
    with pytest.raises(FileNotFoundError, match="gone.parquet"):
        object_store.file_io().open_input(missing)
    with pytest.raises(FileNotFoundError, match="gone.parquet"):
        object_store.file_io().read_bytes(missing, limit=100)


def test_create_is_conditional_and_never_overwrites(object_store):
    file_io = object_store.file_io()
    uri = object_store.uri("snapshot/snapshot-7")
    assert file_io.create(uri, b"winner") is True
    assert file_io.create(uri, b"loser") is False
    assert file_io.read_bytes(uri, limit=100) == b"winner"
    writes = [r for r in object_store.proxy.requests if r.method in ("PUT", "POST")]
    assert len(writes) == 2
    if object_store.kind == "gcs":
        assert [r.if_generation_match for r in writes] == ["0", "0"]
        assert [r.status for r in writes] == [200, 412]
    else:
        assert [r.if_none_match for r in writes] == ["*", "*"]
        assert [r.status for r in writes] == ([200, 412] if object_store.kind == "s3" else [201, 409])


def test_a_pickled_file_access_reaches_the_same_objects(object_store):
    """What a Spark task gets: the location and options (secrets included, unprinted), and its own client."""
    uri = object_store.put("shipped", b"to an executor")
    copy = pickle.loads(pickle.dumps(object_store.file_io()))
    assert copy.read_bytes(uri, limit=100) == b"to an executor"


def test_replace_and_delete(object_store):
    file_io = object_store.file_io()
    uri = object_store.uri("snapshot/LATEST")
    file_io.replace(uri, b"1")
    file_io.replace(uri, b"2")
    assert file_io.read_bytes(uri, limit=10) == b"2"
    file_io.delete(uri)
    assert file_io.info(uri) is None
    file_io.delete(uri)  # nothing there: not an error


def test_nothing_is_listed_unless_asked(object_store):
    file_io = object_store.file_io()
    for number in (1, 2):
        file_io.create(object_store.uri(f"snapshot/snapshot-{number}"), b"{}")
    file_io.read_bytes(object_store.uri("snapshot/snapshot-1"), limit=10)
    file_io.info(object_store.uri("snapshot/snapshot-2"))
    assert all(r.key for r in object_store.proxy.requests), "a bucket-level request (a LIST)"
    object_store.proxy.clear()
    entries = file_io.list(object_store.root)
    assert [(e.name, e.kind) for e in entries] == [("snapshot", "folder")]
    assert sorted(e.name for e in file_io.list(object_store.uri("snapshot"))) == ["snapshot-1", "snapshot-2"]
    assert len(object_store.proxy.requests) == 2


@pytest.mark.parametrize("stray", [{"objects": ["w/elsewhere/schema-5"]}, {"objects": ["w/schema/deeper/schema-5"]},
                                   {"common_prefixes": ["w/other/"]}])
def test_a_listing_naming_keys_outside_the_folder_is_refused_naming_one(monkeypatch, stray):
    """Taken by its last part, ``w/elsewhere/schema-5`` was schema 5 of this table."""
    import obstore

    def listing(store, prefix):
        assert prefix == "w/schema/"
        objects = [{"path": key, "size": 2} for key in ["w/schema/schema-0", *stray.get("objects", [])]]
        return {"common_prefixes": stray.get("common_prefixes", []), "objects": objects}

    monkeypatch.setattr(obstore, "list_with_delimiter", listing)
    file_io = ObjectStoreFileIO.at("s3://b/w", {"s3.endpoint": "http://127.0.0.1:9"}, environ={})
    with pytest.raises(StoreError, match=r"s3://b/w/schema: the store listed '[^']*(schema-5|other/)'"):
        file_io.list("s3://b/w/schema")


def test_paths_outside_the_bucket_or_the_given_folders_are_refused(object_store):
    file_io = object_store.file_io()
    other = object_store.root.replace("warehouse", "elsewhere", 1)
    with pytest.raises(ConfinementError, match="another bucket"):
        file_io.read_bytes(other + "/x", limit=10)
    with pytest.raises(ConfinementError, match="lies outside"):
        file_io.open_input(object_store.uri("b/x"), within=[object_store.uri("a")])
    with pytest.raises(ConfinementError, match="'..'"):
        file_io.join(object_store.root, "../escape")
    assert object_store.proxy.requests == []


def _race(file_io, uri: str, writers: int) -> list[bool]:
    barrier = threading.Barrier(writers)
    results: list = [None] * writers

    def write(number: int) -> None:
        barrier.wait()
        results[number] = file_io.create(uri, f"writer-{number}".encode())

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@pytest.mark.parametrize("kind", ["azure", "s3-serialised", "gcs"])
def test_racing_writers_create_each_snapshot_exactly_once(kind, store_servers):
    """Four writers create the same snapshot-N at once, 25 times: exactly one wins each time, and the object
    holds the winner's bytes. Azurite's and fake-gcs-server's checks are atomic; moto's is not (8 writers let two
    win 1 time in 100), so its PUTs are serialised in the proxy, as a real S3 bucket serialises them."""
    from store_fixtures import _store_under_test

    server_kind = kind.removesuffix("-serialised")
    fixture = _store_under_test(store_servers, server_kind, serialise_writes=kind.endswith("-serialised"))
    store = next(fixture)
    try:
        file_io = store.file_io()
        for trial in range(25):
            uri = store.uri(f"snapshot/snapshot-{trial}")
            results = _race(file_io, uri, 4)
            assert results.count(True) == 1, (trial, results)
            assert file_io.read_bytes(uri, limit=100) == f"writer-{results.index(True)}".encode()
    finally:
        fixture.close()


def test_a_store_without_conditional_create_commits_only_as_a_single_writer(s3_store):
    """OSS's S3 API is not known to honour If-None-Match: create is refused unless one writer is promised."""
    endpoint = s3_store.proxy.url
    options = {"fs.oss.endpoint": endpoint, "fs.oss.accessKeyId": "a", "fs.oss.accessKeySecret": "b",
               "oss.path.style.access": "true"}
    root = s3_store.root.replace("s3://", "oss://", 1)
    file_io = ObjectStoreFileIO.at(root, options, environ={})
    with pytest.raises(UsageError, match="fileindex.commit.single-writer=true"):
        file_io.create(root + "/snapshot/snapshot-1", b"x")
    single = ObjectStoreFileIO.at(root, {**options, "fileindex.commit.single-writer": "true"}, environ={})
    assert single.create(root + "/snapshot/snapshot-1", b"x") is True
    assert single.create(root + "/snapshot/snapshot-1", b"y") is False
    assert single.read_bytes(root + "/snapshot/snapshot-1", limit=10) == b"x"
    assert [r.method for r in s3_store.proxy.requests if r.method != "GET"] == ["HEAD", "PUT", "HEAD"]


def test_no_secret_in_any_error_or_repr(object_store, store_servers):
    """Every error and repr the file access gives, for good and bad credentials and an unreachable endpoint."""
    secrets = object_store.secrets()
    file_io = object_store.file_io()
    texts = [repr(file_io), repr(file_io.options), str(file_io.options)]
    uri = object_store.put("x", b"data")
    opened = file_io.open_input(uri)
    texts += [repr(opened), repr(opened.identity)]
    for failing in (lambda: file_io.read_bytes(object_store.uri("missing"), limit=10),
                    lambda: file_io.read_bytes(uri, limit=1)):
        with pytest.raises(Exception) as caught:
            failing()
        texts.append(str(caught.value))
    if object_store.kind != "gcs":  # wrong credentials: the server's refusal (fake-gcs-server checks none)
        wrong = {k: (base64.b64encode(b"another key of 64 bytes, still valid base64 and so accepted......").decode()
                     if "key" in k else v) for k, v in object_store.options().items()}
        with pytest.raises(StoreError) as refused:
            ObjectStoreFileIO.at(object_store.root, wrong, environ={}).read_bytes(uri, limit=100) if \
                object_store.kind == "azure" else _refused_by_moto(object_store, wrong)
        texts.append(str(refused.value))
    # a SAS token rides in every request's query: an unreachable endpoint's error shows the URL
    sas = "sv=2024&sig=Zm9vYmFyc2VjcmV0&se=2099"
    azure = ObjectStoreFileIO.at("abfs://c@devstoreaccount1.dfs.core.windows.net/t",
                                 {"azure.endpoint": "http://127.0.0.1:9/devstoreaccount1", "azure.sas-token": sas},
                                 environ={})
    with pytest.raises(StoreError) as unreachable:
        azure.read_bytes("abfs://c@devstoreaccount1.dfs.core.windows.net/t/x", limit=10)
    texts += [str(unreachable.value), repr(azure), repr(azure.options)]
    for text in texts:
        for secret in [*secrets, sas, "Zm9vYmFyc2VjcmV0"]:
            assert secret not in text, text


def _refused_by_moto(store, options):
    """moto checks no signatures by default; its IAM check is not on, so refuse through a closed port instead."""
    closed = {**options, "s3.endpoint": "http://127.0.0.1:9"}
    ObjectStoreFileIO.at(store.root, closed, environ={}).read_bytes(store.uri("x"), limit=100)


def test_an_azure_container_without_an_account_says_where_to_name_it():
    """``az://CONTAINER/path`` takes its account from the options or the environment: with none, the one line
    says so (the client library's own words were "Generic MicrosoftAzure error: Account must be specified")."""
    with pytest.raises(UsageError, match=r"no Azure account: .*azure\.account-name.*AZURE_STORAGE_ACCOUNT_NAME"):
        ObjectStoreFileIO.at("az://container/w/t", {"azure.endpoint": "http://127.0.0.1:1/acct"}, environ={})


def test_a_gcs_key_file_whose_private_key_is_garbage_is_said_naming_the_option_and_the_file(tmp_path):
    """trial20: "Generic AwsLcCryptoProvider error: Error reading pem file: no items found", naming neither."""
    key_file = tmp_path / "bad.json"
    key_file.write_text(json.dumps({"type": "service_account", "project_id": "p", "private_key_id": "k",
                                    "private_key": "garbage", "client_email": "a@p.iam.gserviceaccount.com",
                                    "token_uri": "http://127.0.0.1:9/token"}))
    with pytest.raises((UsageError, StoreError)) as refused:
        ObjectStoreFileIO.at("gs://lake/db/t1", {"gcs.credential-path": str(key_file)}).exists("gs://lake/db/t1/x")
    said = str(refused.value)
    assert f"the service-account key file {key_file} (gcs.credential-path) cannot be used" in said, said
    assert "pem" in said and "\n" not in said and "garbage" not in said


def test_an_azure_account_key_that_is_not_base64_is_said_so_without_the_key():
    """The client library's "Generic MicrosoftAzure error: Invalid Access Key: Invalid input length: 9"."""
    with pytest.raises(UsageError) as refused:
        ObjectStoreFileIO.at("abfs://c@acct.dfs.core.windows.net/t", {"azure.account-key": "notbase64"})
    said = str(refused.value)
    assert "account key" in said and "not valid base64" in said
    assert "notbase64" not in said and "Generic" not in said and "\n" not in said
