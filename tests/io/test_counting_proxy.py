"""The counting proxy passes requests through unchanged (a HEAD's Content-Length, a chunked upload) and logs
what the object-store tests assert on."""
import http.client

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
        logged = [(r.method, r.key, r.range, r.received, r.sent, r.status) for r in proxy.requests]
        assert logged[0][:4] == ("POST", "proxy/object", None, 19)
        assert logged[1:] == [("HEAD", "proxy/object", None, 0, 0, 200),
                              ("GET", "proxy/object", "bytes=6-12", 0, 7, 206)]
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
