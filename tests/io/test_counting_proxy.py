"""The counting proxy passes requests through unchanged (a HEAD's Content-Length, a chunked upload) and logs
what the object-store tests assert on: of an answer the client ends part way, the bytes it received."""
import http.client
import socket

from counting_proxy import CountingProxy, object_key


def _send(url: str, method: str, path: str, body=None, headers=None) -> http.client.HTTPResponse:
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    chunked = (headers or {}).get("Transfer-Encoding") == "chunked"
    connection.request(method, path, body=body, headers=headers or {}, encode_chunked=chunked)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


def test_head_content_length_and_chunked_uploads_pass_through(store_servers):
    """Against fake-gcs-server, which takes anonymous requests: a chunked upload, a HEAD, a ranged GET."""
    server = store_servers("gcs")
    proxy = CountingProxy(server.endpoint, kind="gcs")
    try:
        chunks = iter([b"hello ", b"chunked ", b"world"])
        put = _send(proxy.url, "POST", f"/upload/storage/v1/b/{server.bucket}/o?uploadType=media&name=proxy/object",
                    body=chunks, headers={"Transfer-Encoding": "chunked"})
        assert put.status == 200
        head = _send(proxy.url, "HEAD", f"/{server.bucket}/proxy/object")
        assert head.status == 200 and head.getheader("Content-Length") == "19"
        ranged = _send(proxy.url, "GET", f"/{server.bucket}/proxy/object", headers={"Range": "bytes=6-12"})
        assert ranged.status == 206
        proxy.settle()
        logged = [(r.method, r.key, r.range, r.received, r.sent, r.delivered, r.status) for r in proxy.requests]
        assert logged[0][:4] == ("POST", "proxy/object", None, 19)
        assert logged[1:] == [("HEAD", "proxy/object", None, 0, 0, 0, 200),
                              ("GET", "proxy/object", "bytes=6-12", 0, 7, 7, 206)]
    finally:
        proxy.close()


def test_an_answer_the_client_ends_part_way_counts_the_bytes_it_received(store_servers):
    server = store_servers("gcs")
    proxy = CountingProxy(server.endpoint, kind="gcs")
    size = 32 << 20
    try:
        _send(proxy.url, "POST", f"/upload/storage/v1/b/{server.bucket}/o?uploadType=media&name=proxy/large",
              body=bytes(size))
        host, port = proxy.url.removeprefix("http://").split(":")
        client = socket.socket()
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 10)  # (a small window, as a slow reader's)
        client.connect((host, int(port)))
        client.sendall(f"GET /{server.bucket}/proxy/large HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        assert client.recv(4096).startswith(b"HTTP/1.1 200")
        client.close()  # (the rest unread)
        proxy.settle()
        answer = proxy.requests[-1]
        assert answer.sent == size and 0 < answer.delivered < size // 4, answer.delivered
    finally:
        proxy.close()


def test_object_keys_of_each_protocol():
    assert object_key("s3", "/bucket/a/b", {}, b"") == "a/b"
    assert object_key("s3", "/bucket", {"list-type": "2"}, b"") is None
    assert object_key("azure", "/devstoreaccount1/container/a/b", {}, b"") == "a/b"
    assert object_key("gcs", "/storage/v1/b/bucket/o/a/b", {}, b"") == "a/b"
    assert object_key("gcs", "/upload/storage/v1/b/bucket/o", {"uploadType": "media", "name": "a/b"}, b"") == "a/b"
    multipart = b'--x\r\nContent-Type: application/json\r\n\r\n{"name": "a/b"}\r\n--x\r\n\r\ndata\r\n--x--'
    assert object_key("gcs", "/upload/storage/v1/b/bucket/o", {"uploadType": "multipart"}, multipart) == "a/b"
    assert object_key("gcs", "/bucket/a/b", {}, b"") == "a/b"  # the XML API
