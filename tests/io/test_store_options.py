"""Endpoints and credentials as users give them: Paimon's option keys in every spelling Java Paimon and
pypaimon-rust accept, the standard environment, and pyarrow's filesystems built from them (against the servers)."""
import pickle
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from fileindex.errors import UsageError
from fileindex.io.locations import parse_location
from fileindex.io.object_store import arrow_filesystem, arrow_path
from fileindex.io.store_options import Secret, check_option_keys, scrub, store_options

S3 = parse_location("s3://bucket/w")


@pytest.mark.parametrize("options", [
    {"s3.endpoint": "http://h:9000", "s3.access-key": "A", "s3.secret-key": "S", "s3.path-style-access": "true"},
    {"s3.endpoint": "http://h:9000", "s3.access.key": "A", "s3.secret.key": "S", "s3.path.style.access": "true"},
    {"fs.s3a.endpoint": "h:9000", "fs.s3a.connection.ssl.enabled": "false", "fs.s3a.access.key": "A",
     "fs.s3a.secret.key": "S", "fs.s3a.path.style.access": "true"},
    {"s3a.endpoint": "http://h:9000/", "s3a.access-key": "A", "s3a.secret-key": "S", "s3a.path-style-access": "TRUE"},
])
def test_every_spelling_of_the_s3_keys(options):
    resolved = store_options(S3, {**options, "file-index.bloom-filter.columns": "id"}, environ={})
    assert (resolved.endpoint, resolved.path_style, resolved.allow_http) == ("http://h:9000", True, True)
    assert (resolved.access_key, resolved.secret_key) == (Secret("A"), Secret("S"))


def test_the_environment_fills_what_options_leave_open():
    environ = {"AWS_ENDPOINT_URL": "http://env:1", "AWS_DEFAULT_REGION": "eu-west-1"}
    assert store_options(S3, {}, environ).endpoint == "http://env:1"
    assert store_options(S3, {}, {**environ, "AWS_ENDPOINT_URL_S3": "http://s3only:2"}).endpoint == "http://s3only:2"
    assert store_options(S3, {"s3.endpoint": "http://opt:3"}, environ).endpoint == "http://opt:3"
    assert store_options(S3, {}, environ).region == "eu-west-1"
    gcs = store_options(parse_location("gs://b/w"), {}, {"STORAGE_EMULATOR_HOST": "http://127.0.0.1:4443"})
    assert (gcs.endpoint, gcs.anonymous) == ("http://127.0.0.1:4443", True)


def test_azure_keys_as_hadoop_and_pypaimon_rust_name_them():
    location = parse_location("abfs://c@acct.dfs.core.windows.net/w")
    per_account = store_options(location, {"fs.azure.account.key.acct.blob.core.windows.net": "K1"}, {})
    assert (per_account.account, per_account.account_key) == ("acct", Secret("K1"))
    other_account = store_options(location, {"fs.azure.account.key.other.blob.core.windows.net": "K1"}, {})
    assert other_account.account_key is None
    plain = store_options(parse_location("az://c/w"), {"azure.account-name": "acct", "azure.account-key": "K2",
                                                         "azure.sas-token": "sig=1"}, {})
    assert (plain.account, plain.account_key, plain.sas_token) == ("acct", Secret("K2"), Secret("sig=1"))
    from_environment = store_options(parse_location("az://c/w"), {}, {"AZURE_STORAGE_ACCOUNT_NAME": "envacct"})
    assert from_environment.account == "envacct"


def test_oss_and_gcs_keys():
    oss = store_options(parse_location("oss://b/w"), {"fs.oss.endpoint": "oss-cn-hangzhou.aliyuncs.com",
                                                      "fs.oss.accessKeyId": "A", "fs.oss.accessKeySecret": "S"}, {})
    assert (oss.endpoint, oss.s3_compatible, oss.access_key) == ("https://oss-cn-hangzhou.aliyuncs.com", "oss",
                                                                 Secret("A"))
    gcs = store_options(parse_location("gs://b/w"), {"gcs.endpoint": "http://e:1", "gcs.allow-anonymous": "true",
                                                     "fs.gs.project.id": "p", "gcs.token": "T"}, {})
    assert (gcs.endpoint, gcs.anonymous, gcs.project, gcs.token) == ("http://e:1", True, "p", Secret("T"))


def test_secrets_are_masked_but_travel_to_a_spark_task():
    resolved = store_options(S3, {"s3.access-key": "AKID123", "s3.secret-key": "verysecret"}, {})
    for text in (repr(resolved), str(resolved), f"{resolved}"):
        assert "verysecret" not in text and "AKID123" not in text and "***" in text
    assert pickle.loads(pickle.dumps(resolved)) == resolved
    assert pickle.loads(pickle.dumps(resolved)).secret_key.reveal() == "verysecret"
    assert scrub("GET http://h/b?sig=a%2Bb&x=verysecret", ["verysecret", "a+b"]) == "GET http://h/b?sig=***&x=***"


def test_a_short_secret_is_masked_where_it_stands_alone_not_inside_every_word():
    said = "Generic S3 error: Server returned 403 for key S at https://h/b?k=S&s=S"
    assert scrub(said, ["S"]) == "Generic S3 error: Server returned 403 for key *** at https://h/b?k=***&s=***"
    assert scrub("xverysecrety", ["verysecret"]) == "x***y"  # (a long one goes wherever it is)


def test_the_clients_timeouts_are_durations_as_paimon_writes_them():
    options = store_options(S3, {"fileindex.store.connect-timeout": "2s", "fileindex.store.read-timeout": "1500",
                                 "fileindex.store.request-timeout": "5 min"}, {})
    assert (options.connect_timeout, options.read_timeout, options.request_timeout) == (2, 1.5, 300)
    assert store_options(S3, {}, {}).read_timeout is None  # (the reader's default)


@pytest.mark.parametrize("options, message", [
    ({"s3.path-style-access": "maybe"}, "s3.path-style-access: 'maybe' is not true or false"),
    ({"s3.endpoint": "ftp://h"}, "give http"),
    ({"fileindex.store.read-timeout": "soon"}, "read-timeout: 'soon' is not a duration above zero"),
    ({"fileindex.store.request-timeout": "0s"}, "request-timeout: '0s' is not a duration above zero"),
    ({"fileindex.store.read-timout": "1s"}, "read-timout: not an option of this reader; the client's limits are "
                                            "fileindex.store.connect-timeout, fileindex.store.read-timeout"),
])
def test_unusable_values_are_one_line(options, message):
    with pytest.raises(UsageError, match=message):
        store_options(S3, options, {})


@pytest.mark.parametrize("key, meant", [
    ("s3.pathstyle", "did you mean s3.path-style-access?"),
    ("fs.s3a.path.style", "did you mean fs.s3a.path-style-access?"),
    ("s3.pathstyle-acess", "did you mean s3.path-style-access?"), ("s3a.reg", "did you mean s3a.region?"),
    ("s3.end", "did you mean one of s3.endpoint, s3.endpoint-region?")])
def test_a_key_cut_short_of_a_known_one_or_a_typo_from_it_is_refused(key, meant):
    with pytest.raises(UsageError, match=re.escape(f"option {key}: not a key of this store; {meant}")):
        store_options(S3, {key: "true"}, environ={})


@pytest.mark.parametrize("key, meant", [
    ("s3endpoint", "--storage-option s3endpoint: not a key of any store; did you mean s3.endpoint?"),
    ("gcs.endpont", "option gcs.endpont: not a key of this store; did you mean gcs.endpoint?"),
    ("azure.acount-name", "did you mean azure.account-name?"),
    ("fileindex.store.read-timout", "option fileindex.store.read-timout: not an option of this reader; the client's "
                                    "limits are fileindex.store.connect-timeout, fileindex.store.read-timeout, "
                                    "fileindex.store.request-timeout; did you mean fileindex.store.read-timeout?")])
def test_option_keys_are_checked_before_a_store_is_reached_whatever_store_they_name(key, meant):
    """The check ``--storage-option`` and the Spark data source's options get: any store's keys, and a key of no
    store (where store_options, reaching one store, ignores both)."""
    if not key.startswith("fileindex.store."):  # (the reader's own limits are refused there too)
        assert store_options(S3, {key: "x"}, environ={}).endpoint is None  # (ignored there)
    with pytest.raises(UsageError, match=re.escape(meant)):
        check_option_keys([key], given="--storage-option")
    with pytest.raises(UsageError, match="did you mean snapshot"):
        check_option_keys(["snapshto"], others=["path", "snapshot"])
    check_option_keys(["snapshot", "s3.endpoint", "fs.s3a.connection.maximum", "fileindex.commit.single-writer",
                       "fileindex.store.read-timeout", "fileindex.store.connect-timeout",
                       "fs.azure.account.key.acct.blob.core.windows.net"], others=["snapshot"])


def test_the_keys_hadoop_documents_pass_through():
    """Every fs.s3a. and fs.azure. key of Hadoop's core-default.xml (as pyspark ships it) is a store's key or left
    alone: none is taken for a misspelling of one of ours."""
    import zipfile

    pyspark = pytest.importorskip("pyspark")
    jars = sorted(Path(pyspark.__file__).parent.joinpath("jars").glob("hadoop-client-api-*.jar"))
    if not jars:
        pytest.skip("no hadoop-client-api jar beside pyspark")
    defaults = zipfile.ZipFile(jars[0]).read("core-default.xml").decode()
    keys = re.findall(r"<name>(fs\.(?:s3a|azure)\.[^<]+)</name>", defaults)
    assert len(keys) > 50
    for key in keys:
        location = S3 if key.startswith("fs.s3a.") else parse_location("abfs://c@acct.dfs.core.windows.net/t")
        try:
            store_options(location, {key: "x"}, environ={})
        except UsageError as err:
            assert "not a key of this store" not in str(err), key  # (a value "x" may be refused: not the key)
    check_option_keys(keys)  # (the check before any store is reached)


def test_pyarrow_reads_each_server_with_the_same_options(object_store):
    """pyarrow's own filesystem from the same Paimon keys (the S3 endpoint given explicitly: pyarrow's
    S3FileSystem() ignores AWS_ENDPOINT_URL, apache/arrow#49643)."""
    import io

    import pyarrow as pa

    out = io.BytesIO()
    pq.write_table(pa.table({"x": [1, 2, 3]}), out)
    uri = object_store.put("data.parquet", out.getvalue())
    location = parse_location(uri)
    filesystem = arrow_filesystem(location, store_options(location, object_store.options(), {}))
    assert pq.read_table(arrow_path(location), filesystem=filesystem)["x"].to_pylist() == [1, 2, 3]
    assert any(r.key == location.key and r.method == "GET" for r in object_store.proxy.requests)


def test_aws_endpoint_url_reaches_both_clients(s3_store, monkeypatch):
    """AWS_ENDPOINT_URL and the AWS credential variables alone, no option: obstore and pyarrow both reach the server."""
    from fileindex.io.object_store import ObjectStoreFileIO
    from store_fixtures import S3_ACCESS_KEY, S3_SECRET

    uri = s3_store.put("env/x", b"through the environment")
    for name, value in {"AWS_ENDPOINT_URL": s3_store.proxy.url, "AWS_ACCESS_KEY_ID": S3_ACCESS_KEY,
                        "AWS_SECRET_ACCESS_KEY": S3_SECRET, "AWS_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    file_io = ObjectStoreFileIO.at(s3_store.root)
    assert file_io.read_bytes(uri, limit=100) == b"through the environment"
    location = parse_location(uri)
    filesystem = arrow_filesystem(location)
    with filesystem.open_input_file(arrow_path(location)) as stream:
        assert stream.read() == b"through the environment"
    assert [r.method for r in s3_store.proxy.requests].count("GET") >= 2
