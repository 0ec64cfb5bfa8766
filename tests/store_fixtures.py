"""Fixtures of the object-store tests: one server of each kind per session (started on first use, stopped at
the end), and per test a counting proxy in front of it and a fresh prefix in its bucket.

Loaded for every session (tests/conftest.py's pytest_plugins). A server that cannot start fails the test in
CI (tools/setup.sh --test installs all three) and skips it elsewhere, saying how to install it.
"""
from __future__ import annotations

import os
import uuid
from dataclasses import dataclass

import pytest

from conftest import unavailable
from counting_proxy import CountingProxy
from store_servers import AZURITE_ACCOUNT, AZURITE_KEY, STARTERS, Server, ServerUnavailable

KINDS = ("s3", "azure", "gcs")
# what the tests give as credentials: any value works on moto; the tests grep errors and reprs for them
S3_ACCESS_KEY = "AKIDFILEINDEXTEST"
S3_SECRET = "s3-secret-9f2c7d1e"


@pytest.fixture(scope="session")
def _no_instance_metadata():
    """No client library may look for cloud credentials beyond this machine (instance metadata servers)."""
    saved = {name: os.environ.get(name) for name in ("AWS_EC2_METADATA_DISABLED", "NO_GCE_CHECK")}
    os.environ.update(AWS_EC2_METADATA_DISABLED="true", NO_GCE_CHECK="true")
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="session")
def store_servers(tmp_path_factory, _no_instance_metadata):
    """``start(kind)``: the session's server of that kind, started on first use."""
    running: dict[str, Server] = {}

    def start(kind: str) -> Server:
        if kind not in running:
            try:
                running[kind] = STARTERS[kind](tmp_path_factory.mktemp(f"{kind}-server"))
            except ServerUnavailable as err:
                unavailable(f"the {kind} test server", str(err))
        return running[kind]

    yield start
    for server in running.values():
        server.stop()


@dataclass
class StoreUnderTest:
    """A server behind a fresh counting proxy, and a prefix of its bucket no other test uses."""

    kind: str
    server: Server
    proxy: CountingProxy
    prefix: str

    @property
    def root(self) -> str:
        """The URI of this test's prefix."""
        bucket = self.server.bucket
        authority = f"{bucket}@{AZURITE_ACCOUNT}.dfs.core.windows.net" if self.kind == "azure" else bucket
        scheme = {"s3": "s3", "azure": "abfs", "gcs": "gs"}[self.kind]
        return f"{scheme}://{authority}/{self.prefix}"

    def uri(self, *names: str) -> str:
        return "/".join([self.root, *names])

    def options(self, endpoint: str | None = None) -> dict[str, str]:
        """Paimon's option keys for this store through the proxy (or ``endpoint``)."""
        endpoint = endpoint or self.proxy.url
        if self.kind == "s3":
            return {"s3.endpoint": endpoint, "s3.access-key": S3_ACCESS_KEY, "s3.secret-key": S3_SECRET,
                    "s3.region": "us-east-1", "s3.path-style-access": "true"}
        if self.kind == "azure":
            return {"azure.endpoint": f"{endpoint}/{AZURITE_ACCOUNT}",
                    f"fs.azure.account.key.{AZURITE_ACCOUNT}.blob.core.windows.net": AZURITE_KEY}
        return {"gcs.endpoint": endpoint, "gcs.allow-anonymous": "true"}

    def secrets(self) -> list[str]:
        return {"s3": [S3_SECRET, S3_ACCESS_KEY], "azure": [AZURITE_KEY], "gcs": []}[self.kind]

    def file_io(self):
        from fileindex.io.object_store import ObjectStoreFileIO

        return ObjectStoreFileIO.at(self.root, self.options(), environ={})

    def put(self, name: str, data: bytes) -> str:
        """Upload ``data`` under this test's prefix, past the proxy (not counted); its URI."""
        self.file_io_direct().replace(self.uri(name), data)
        return self.uri(name)

    def file_io_direct(self):
        from fileindex.io.object_store import ObjectStoreFileIO

        return ObjectStoreFileIO.at(self.root, self.options(self.server.endpoint), environ={})


def _store_under_test(store_servers, kind: str, **proxy_options):
    server = store_servers(kind)
    proxy = CountingProxy(server.endpoint, kind=kind, **proxy_options)
    try:
        yield StoreUnderTest(kind, server, proxy, f"t-{uuid.uuid4().hex[:12]}")
    finally:
        proxy.close()


@pytest.fixture(params=KINDS)
def object_store(request, store_servers):
    """Each of the three servers in turn, behind a counting proxy."""
    yield from _store_under_test(store_servers, request.param)


@pytest.fixture
def s3_store(store_servers):
    yield from _store_under_test(store_servers, "s3")


@pytest.fixture
def azure_store(store_servers):
    yield from _store_under_test(store_servers, "azure")
