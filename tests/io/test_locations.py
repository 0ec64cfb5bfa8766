"""Parsing where a table lives: every scheme Paimon tables live under, and a one-line refusal for the rest."""
import os

import pytest

from fileindex.errors import ConfinementError, UsageError
from fileindex.io.locations import parse_location


@pytest.mark.parametrize("uri, store, bucket, key, account", [
    ("s3://bucket/warehouse/db.db/t", "s3", "bucket", "warehouse/db.db/t", None),
    ("s3a://bucket/w/", "s3", "bucket", "w", None),
    ("oss://bucket/w/t", "s3", "bucket", "w/t", None),
    ("gs://bucket", "gcs", "bucket", "", None),
    ("abfs://container@account.dfs.core.windows.net/w/t", "azure", "container", "w/t", "account"),
    ("abfss://container@account.dfs.core.windows.net/w", "azure", "container", "w", "account"),
    ("wasbs://container@account.blob.core.windows.net/w", "azure", "container", "w", "account"),
    ("az://container/w/t", "azure", "container", "w/t", None),
    ("S3://bucket/a%20b", "s3", "bucket", "a b", None),
])
def test_object_store_uris(uri, store, bucket, key, account):
    location = parse_location(uri)
    assert (location.store, location.bucket, location.key, location.account) == (store, bucket, key, account)
    assert location.is_object_store
    assert parse_location(location.uri) == location  # written back, read again: the same place


def test_local_paths_and_file_uris(tmp_path):
    assert parse_location(str(tmp_path)).key == str(tmp_path)
    assert parse_location(f"file://{tmp_path}").key == str(tmp_path)
    assert parse_location("relative/t").key == os.path.abspath("relative/t")
    assert parse_location(tmp_path).store == "local"
    with pytest.raises(UsageError, match="names a local path"):
        parse_location("file://host/t")


def test_hdfs():
    location = parse_location("hdfs://namenode:8020/warehouse/t")
    assert (location.store, location.host, location.key) == ("hdfs", "namenode:8020", "warehouse/t")


@pytest.mark.parametrize("uri, message", [
    ("ftp://host/t", "the scheme ftp:// is not supported; give s3://, s3a://, oss://, gs://, abfs://"),
    ("s3:///no-bucket", "no bucket name"),
    ("abfs://@account.dfs.core.windows.net/t", "no container name"),
    ("s3://bucket/w/../other", "has a part '..'"),
    ("s3://bucket/w?versionId=1", "no ?query"),
    ("", "is not a location"),
])
def test_what_is_refused_is_one_line(uri, message):
    with pytest.raises(UsageError, match=message.replace("?", r"\?")) as refused:
        parse_location(uri)
    assert "\n" not in str(refused.value)


def test_children_stay_inside():
    root = parse_location("s3://bucket/warehouse/t")
    child = root.child("manifest", "manifest-list-1")
    assert child.uri == "s3://bucket/warehouse/t/manifest/manifest-list-1"
    assert root.contains(child) and not child.contains(root)
    assert not root.contains(parse_location("s3://bucket/warehouse/t2/x"))  # a sibling sharing the prefix
    assert not root.contains(parse_location("s3://other/warehouse/t/x"))
    assert not root.contains(parse_location("gs://bucket/warehouse/t/x"))
    for name in ("../t2", "a/../../b", "."):
        with pytest.raises(ConfinementError):
            root.child(name)
