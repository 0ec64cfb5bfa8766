"""A counting reverse proxy in front of an object-store server (moto, Azurite, fake-gcs-server).

Every request passes through unchanged (headers included, the ``Content-Length`` of a HEAD answer too) and
is logged: method, object key, ``Range``, body bytes each way, status and the conditions of a conditional
write (``If-None-Match``, ``If-Match``, GCS's ``ifGenerationMatch``). Tests assert which keys a query
fetched and how many bytes, which stay the same on a busy machine where wall time does not. The bytes the server
answered (``sent``) are not always those the client took: a client that reads an answer as a stream and closes the
connection part way takes fewer, so the answer is written to the client a chunk at a time through a small send
buffer and ``delivered`` counts the bytes written before the client closed (what it received, its own socket's
buffer included: what a store would send before the connection ends; :meth:`CountingProxy.settle` waits for
every answer to be written or refused first). The proxy can
add latency to every request (a benchmark's stand-in for a real store's round trip) and to every new connection
(``handshake``: a real store's TCP and TLS handshakes, which a client pays again after ending an answer part way, as
the connection cannot be kept), counts connections, and can serialise writes, for a server whose conditional create
is not atomic (moto).
"""
from __future__ import annotations

import dataclasses
import http.client
import json
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# Headers of one connection, not of the request: never forwarded (RFC 9110 §7.6.1); Expect is answered here.
_HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
               "transfer-encoding", "upgrade", "expect"}
_WRITES = {"PUT", "POST", "PATCH", "DELETE"}
_CHUNK = 64 << 10  # bytes of an answer written to the client at a time (and its connection's send buffer)


@dataclass(frozen=True)
class Request:
    """One request as the proxy forwarded it, and its answer."""

    method: str
    path: str  # the URL path, decoded
    query: dict[str, str]
    key: str | None  # the object's name inside its bucket or container (None: a bucket-level request)
    range: str | None
    status: int
    sent: int  # body bytes the server answered with
    delivered: int | None  # of those, the bytes the client received before it closed (None: still being written)
    received: int  # body bytes the client sent
    if_none_match: str | None
    if_match: str | None
    if_generation_match: str | None  # GCS: the query parameter or the x-goog- header

    @property
    def is_data_read(self) -> bool:
        """A GET of an object's bytes (not a listing, not metadata)."""
        return self.method == "GET" and self.key is not None and self.key != "" and not _is_metadata(self)


def _is_metadata(request: Request) -> bool:
    # GCS's JSON API answers metadata at /storage/v1/b/B/o/NAME and the bytes with alt=media
    return request.path.startswith("/storage/v1/") and request.query.get("alt") != "media"


def object_key(kind: str, path: str, query: dict[str, str], body: bytes) -> str | None:
    """The object a request is about, from its path (S3 path style ``/bucket/key``, Azure
    ``/account/container/blob``, GCS's JSON API ``/b/BUCKET/o/NAME`` and uploads' ``name``)."""
    parts = path.lstrip("/").split("/")
    if kind == "s3":
        return "/".join(parts[1:]) if len(parts) > 1 else None
    if kind == "azure":
        return "/".join(parts[2:]) if len(parts) > 2 else None
    if "/o/" in path:  # /storage/v1/b/B/o/NAME, /download/storage/v1/b/B/o/NAME
        return path.split("/o/", 1)[1]
    if "name" in query:
        return query["name"]
    if path.startswith("/upload/") and b"{" in body:  # a multipart upload names the object in its JSON part
        start = body.index(b"{")
        try:
            return json.JSONDecoder().raw_decode(body[start:].decode("utf-8", "replace"))[0].get("name")
        except ValueError:
            return None
    if len(parts) > 1 and parts[0] not in ("storage", "upload", "download"):  # the XML API: /BUCKET/NAME
        return "/".join(parts[1:])
    return None


class CountingProxy:
    """A reverse proxy on a free port of 127.0.0.1 in front of ``upstream`` (``http://host:port``)."""

    def __init__(self, upstream: str, *, kind: str, latency: float = 0.0, handshake: float = 0.0,
                 serialise_writes: bool = False):
        parsed = urllib.parse.urlsplit(upstream)
        self.upstream = (parsed.hostname, parsed.port)
        self.kind = kind
        self.latency = latency
        self.handshake = handshake
        self.connections = 0  # accepted since the proxy started or was last cleared
        self.serialise_writes = serialise_writes
        self._log: list[Request] = []
        self._lock = threading.Lock()
        self._writing = 0  # answers being written to their client
        self._written = threading.Condition(self._lock)
        self._write_lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name="counting-proxy",
                                        daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def requests(self) -> list[Request]:
        with self._lock:
            return list(self._log)

    def clear(self) -> None:
        with self._lock:
            self._log.clear()
            self.connections = 0

    def connected(self) -> None:
        with self._lock:
            self.connections += 1
        if self.handshake:
            time.sleep(self.handshake)

    def settle(self, timeout: float = 10.0) -> None:
        """Wait until every answer is written to its client or refused by it (its ``delivered`` known)."""
        with self._written:
            self._written.wait_for(lambda: self._writing == 0, timeout)

    def writing(self, change: int) -> None:
        with self._written:
            self._writing += change
            self._written.notify_all()

    def delivered(self, request: Request, count: int) -> None:
        """Note that the client received ``count`` bytes of ``request``'s answer."""
        with self._lock:
            for position in range(len(self._log) - 1, -1, -1):
                if self._log[position] is request:
                    self._log[position] = dataclasses.replace(request, delivered=count)
                    break

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def record(self, request: Request) -> None:
        with self._lock:
            self._log.append(request)

    def write_lock(self, method: str):
        """The lock a request holds while forwarded: one lock for every write when writes are serialised."""
        return self._write_lock if self.serialise_writes and method in _WRITES else _NO_LOCK


class _NoLock:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_NO_LOCK = _NoLock()


def _handler_for(proxy: CountingProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(_ForwardingHandler):
        pass

    Handler.proxy = proxy
    return Handler


class _ForwardingHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive to the client, as a real store offers
    proxy: CountingProxy
    _upstream: http.client.HTTPConnection | None = None

    def log_message(self, format, *args):  # the log is self.proxy.requests, not stderr
        pass

    def setup(self):
        super().setup()
        # a small send buffer, so that the bytes written are about those the client received (see the module)
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, _CHUNK)
        self.proxy.connected()

    def finish(self):
        if self._upstream is not None:
            self._upstream.close()
        super().finish()

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):  # trailers
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _forward(self) -> None:
        body = self._body()
        headers = {name: value for name, value in self.headers.items()
                   if name.lower() not in _HOP_BY_HOP and name.lower() != "content-length"}
        if body or self.command in _WRITES or "Content-Length" in self.headers:
            headers["Content-Length"] = str(len(body))
        if self.proxy.latency:
            time.sleep(self.proxy.latency)
        with self.proxy.write_lock(self.command):
            response, answer = self._send_upstream(body, headers)
        self.proxy.writing(+1)
        try:
            # recorded before the client has its answer, so a test sees every request
            request = self._record(body, response, answer)
            self.send_response_only(response.status, response.reason)
            for name, value in response.getheaders():
                if name.lower() not in _HOP_BY_HOP and not (name.lower() == "content-length"
                                                            and self.command != "HEAD"):
                    self.send_header(name, value)
            if self.command != "HEAD":
                self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.proxy.delivered(request, self._write(answer) if self.command != "HEAD" else 0)
        finally:
            self.proxy.writing(-1)

    def _write(self, answer: bytes) -> int:
        """Write ``answer`` to the client a chunk at a time: the bytes it received before it closed the connection
        (a client that ended a streamed answer part way)."""
        written = 0
        try:
            for start in range(0, len(answer), _CHUNK):
                self.wfile.write(answer[start:start + _CHUNK])
                written = min(start + _CHUNK, len(answer))
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        return written

    def _send_upstream(self, body: bytes, headers: dict) -> tuple[http.client.HTTPResponse, bytes]:
        for attempt in (1, 2):  # a kept-alive upstream connection the server has closed: one retry on a new one
            if self._upstream is None:
                self._upstream = http.client.HTTPConnection(*self.proxy.upstream, timeout=120)
            try:
                self._upstream.request(self.command, self.path, body=body, headers=headers)
                response = self._upstream.getresponse()
                return response, response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self._upstream.close()
                self._upstream = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _record(self, body: bytes, response: http.client.HTTPResponse, answer: bytes) -> Request:
        split = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(split.path)
        query = dict(urllib.parse.parse_qsl(split.query, keep_blank_values=True))
        generation = query.get("ifGenerationMatch") or self.headers.get("x-goog-if-generation-match")
        request = Request(
            method=self.command, path=path, query=query, key=object_key(self.proxy.kind, path, query, body),
            range=self.headers.get("Range") or self.headers.get("x-ms-range"), status=response.status,
            sent=len(answer), delivered=None, received=len(body), if_none_match=self.headers.get("If-None-Match"),
            if_match=self.headers.get("If-Match"), if_generation_match=generation)
        self.proxy.record(request)
        return request

    do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = do_PATCH = _forward
