"""``build``, ``verify`` and ``table --orphans/--explain`` on files and tables named by a store's URI: the same
answers as on the local copy; ``build`` creates its output on a store only if absent (a conditional PUT), and
refuses the outputs it refuses locally before sending one."""
from __future__ import annotations

import shutil

import pytest
from test_tables_on_stores import BITMAP, SIDECARS, run_cli, storage_flags, upload

from fileindex import PaimonTable

DATA = next(SIDECARS.glob("bucket-0/*.parquet"))
BITMAP_SIDECARS = BITMAP.parent.parent / "append_with_bitmap_no_embedding.db" / "append_with_bitmap_no_embedding"
BLOOM = ["--option", "file-index.bloom-filter.columns=f1", "--option", "file-index.bloom-filter.f1.items=10"]


def test_build_and_verify_take_uris_for_input_and_output(object_store, capsys, tmp_path):
    uri = upload(object_store, SIDECARS)
    flags = storage_flags(object_store)
    remote_data = f"{uri}/bucket-0/{DATA.name}"
    local_built = tmp_path / "local.index"
    assert run_cli(capsys, "build", str(DATA), "-o", str(local_built), *BLOOM)[0] == 0

    code, out, err = run_cli(capsys, "build", remote_data, "-o", str(tmp_path / "from-store.index"), *BLOOM, *flags)
    assert code == 0, err
    assert (tmp_path / "from-store.index").read_bytes() == local_built.read_bytes()

    output = object_store.uri("built", "data.parquet.index")
    object_store.proxy.clear()
    code, out, err = run_cli(capsys, "build", str(DATA), "-o", output, *BLOOM, *flags)
    assert code == 0, err
    assert object_store.file_io_direct().read_bytes(output, limit=1 << 20) == local_built.read_bytes()
    puts = [r for r in object_store.proxy.requests if r.method in ("PUT", "POST")]
    assert len(puts) == 1 and (puts[0].if_none_match == "*" or puts[0].if_generation_match == "0")

    code, out, err = run_cli(capsys, "build", str(DATA), "-o", output, "--option",
                             "file-index.bitmap.columns=f1", *flags)  # never replaced, even by a container
    assert code == 2 and "exists" in err and err.count("\n") == 1
    assert object_store.file_io_direct().read_bytes(output, limit=1 << 20) == local_built.read_bytes()

    local_verify = run_cli(capsys, "verify", str(DATA), str(local_built), "--json")
    for data, index in ((remote_data, output), (remote_data, str(local_built)), (str(DATA), output)):
        code, out, err = run_cli(capsys, "verify", data, index, "--json", *flags)
        assert (code, out.replace(data, "DATA")) == (0, local_verify[1].replace(str(DATA), "DATA")), err
    code, out, err = run_cli(capsys, "verify", remote_data, *flags)  # its sidecar, beside it on the store
    assert code == 0 and run_cli(capsys, "verify", str(DATA))[1] == out and "0 violations" in out
    code, out, err = run_cli(capsys, "verify", remote_data, object_store.uri("built", "nothing.index"), *flags)
    assert code == 2 and "no such index" in err


def test_build_refuses_on_a_store_what_it_refuses_locally_before_any_write(s3_store, capsys):
    uri = upload(s3_store, SIDECARS)
    flags = storage_flags(s3_store)
    remote_data = f"{uri}/bucket-0/{DATA.name}"
    s3_store.put("other/data-2.parquet", DATA.read_bytes())
    s3_store.proxy.clear()
    for output, says in ((remote_data, "the data file itself"), (remote_data.replace("s3://", "s3a://"), "itself"),
                         (s3_store.uri("other", "data-2.parquet.index"), "is the index of data file"),
                         (s3_store.uri("other") + "/", "is a folder"),
                         (f"{remote_data}.index", "exists")):  # the sidecar the table's snapshot names
        code, out, err = run_cli(capsys, "build", remote_data, "-o", output, *BLOOM, *flags)
        assert code == 2 and says in err and err.count("\n") == 1, (output, err)
    assert [r for r in s3_store.proxy.requests if r.method == "PUT"] == [r for r in s3_store.proxy.requests
                                                                         if r.if_none_match == "*"]
    assert s3_store.file_io_direct().read_bytes(f"{remote_data}.index", limit=1 << 24) == \
        (SIDECARS / "bucket-0" / f"{DATA.name}.index").read_bytes()


def test_table_orphans_and_explain_answer_as_on_the_local_copy(s3_store, capsys, tmp_path):
    local = tmp_path / "t"
    shutil.copytree(SIDECARS, local)
    for name in ("bucket-0/stale.parquet.index", "manifest/manifest-left-behind", "bucket-0/.x.tmp"):
        (local / name).write_bytes(b"left behind")
    uri = upload(s3_store, local)
    flags = storage_flags(s3_store)
    for command in (["--orphans"], ["--orphans", "--json"], ["--explain", DATA.name],
                    ["--explain", f"bucket-0/{DATA.name}.index", "--json"]):
        code, remote_out, err = run_cli(capsys, "table", uri, *command, *flags)
        assert code == 0, err
        code, local_out, _ = run_cli(capsys, "table", str(local), *command)
        assert code == 0
        assert remote_out.replace(uri, "ROOT") == local_out.replace(str(local), "ROOT") and remote_out.strip()
    assert run_cli(capsys, "table", uri, "--orphans", *flags)[1].split() == [
        "bucket-0/.x.tmp", "bucket-0/stale.parquet.index", "manifest/manifest-left-behind"]


def test_folder_markers_are_no_orphans(s3_store, capsys):
    """Hadoop's S3A, pyarrow and the consoles make a folder as an empty object ``folder/``, which a listing
    returns under the folder's own name: ``manifest/``'s marker is not a manifest nobody names."""
    from pyarrow import fs

    from store_fixtures import S3_ACCESS_KEY, S3_SECRET

    uri = upload(s3_store, SIDECARS)
    s3 = fs.S3FileSystem(endpoint_override=s3_store.server.endpoint, access_key=S3_ACCESS_KEY,
                         secret_key=S3_SECRET, region="us-east-1")
    table = uri.removeprefix("s3://")
    for folder in ("", "/manifest", "/bucket-0", "/schema", "/snapshot"):
        s3.create_dir(table + folder)  # (the folder's marker: an empty object named with a trailing slash)
    code, out, err = run_cli(capsys, "table", uri, "--orphans", *storage_flags(s3_store))
    assert (code, out) == (0, "") and err.startswith("0 orphan file(s)"), out + err
    assert PaimonTable(uri, options=s3_store.options()).scan().count() == PaimonTable(SIDECARS).scan().count()


@pytest.mark.parametrize("missing", ["data", "index"])
def test_verify_names_a_missing_object(s3_store, capsys, missing):
    uri = upload(s3_store, SIDECARS)
    data = f"{uri}/bucket-0/{DATA.name}" if missing == "index" else s3_store.uri("no-such.parquet")
    code, out, err = run_cli(capsys, "verify", data, s3_store.uri("none.index"), *storage_flags(s3_store))
    assert code == 2 and err.count("\n") == 1 and ("no-such.parquet" if missing == "data" else "none.index") in err


class RefusingEndpoint:
    """A port that takes each connection and closes it at once: an endpoint out of reach, whose tries are
    counted (the client's retries are bounded: a handful of tries, not a storm)."""

    def __init__(self):
        import socket
        import threading

        self.tries = 0
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            self.tries += 1
            self.answer(connection)

    def answer(self, connection) -> None:
        connection.close()

    def close(self) -> None:
        self._socket.close()


class SilentEndpoint(RefusingEndpoint):
    """A port that takes each connection and never answers: a request waits for its read timeout (20 s)."""

    def __init__(self):
        import threading

        self.connected = threading.Event()
        self._held: list = []
        super().__init__()

    def answer(self, connection) -> None:
        self._held.append(connection)
        self.connected.set()


class Answering(RefusingEndpoint):
    """An HTTP server that answers every request with one status and body: a web server that is not the store
    (404 and a web page), a store that throttles (S3's 503 Slow Down)."""

    def __init__(self, status: str, content_type: str, body: bytes):
        self._answer = (f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
                        "Connection: close\r\n\r\n").encode() + body
        super().__init__()

    def answer(self, connection) -> None:
        with connection:
            connection.recv(65536)
            connection.sendall(self._answer)


def read_at(endpoint: RefusingEndpoint, store, capsys) -> tuple[int, str, str]:
    """``fileindex read`` of a table of ``store`` with ``endpoint`` as its endpoint (closed after)."""
    try:
        flags = [f for key, value in store.options(endpoint.url).items()
                 for f in ("--storage-option", f"{key}={value}")]
        return run_cli(capsys, "read", store.uri("warehouse/t"), *flags)
    finally:
        endpoint.close()


def test_a_store_that_stays_busy_is_tried_a_few_times_then_said_busy(s3_store, capsys):
    """Not "is it the store's endpoint?", which a 404 from a web server earns: the store answered, and is busy."""
    from fileindex.io.object_store import MAX_RETRIES

    endpoint = Answering("503 Slow Down", "application/xml",
                         b"<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>")
    code, out, err = read_at(endpoint, s3_store, capsys)
    # (the LATEST hint and the schema/ listing are sent side by side, each tried the bounded number of times)
    assert code == 2 and err.count("\n") == 1 and 1 + MAX_RETRIES <= endpoint.tries <= 2 * (1 + MAX_RETRIES), \
        (endpoint.tries, err)
    assert f"the store at {endpoint.url} answered 503" in err and "try again later" in err, err
    assert "check s3.endpoint" not in err


def test_ctrl_c_ends_a_read_waiting_on_a_store_that_never_answers(s3_store):
    """The client library's call blocks the signal until its request times out (20 s); the read is ended at
    once, in one line."""
    import os
    import signal
    import subprocess
    import sys

    endpoint = SilentEndpoint()
    flags = [f for key, value in s3_store.options(endpoint.url).items() for f in ("--storage-option", f"{key}={value}")]
    command = subprocess.Popen([sys.executable, "-m", "fileindex", "read", s3_store.uri("warehouse/t"), *flags],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert endpoint.connected.wait(60), "the read never reached the endpoint"
        os.killpg(command.pid, signal.SIGINT)
        out, err = command.communicate(timeout=20)  # (a read held by its request ends only after its timeout)
    finally:
        if command.poll() is None:
            command.kill()
            command.wait()
        endpoint.close()
    assert command.returncode == 130 and err == "fileindex: interrupted\n" and out == "", err


@pytest.mark.parametrize("timeout", [[], ["--storage-option", "fileindex.store.read-timeout=1s"]])
def test_a_store_that_takes_the_connection_and_never_answers_is_given_up_on(s3_store, timeout):
    """A server that sends nothing is given up on after the read timeout (20 s, or the option's), not the whole
    request's (a minute, for a server that trickles): one line naming the object."""
    import subprocess
    import sys

    endpoint = SilentEndpoint()
    flags = [f for key, value in s3_store.options(endpoint.url).items() for f in ("--storage-option", f"{key}={value}")]
    try:  # (the bound is a hang's, not a speed: a read waiting for its minute fails it)
        done = subprocess.run([sys.executable, "-m", "fileindex", "read", s3_store.uri("warehouse/t"), *flags,
                               *timeout], capture_output=True, text=True, timeout=50)
    finally:
        endpoint.close()
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert "warehouse/t/" in done.stderr and f"cannot reach the store at {endpoint.url}" in done.stderr


def test_an_endpoint_that_is_not_the_store_is_named_in_one_line(s3_store, capsys):
    endpoint = Answering("404 Not Found", "text/html", b"<!DOCTYPE HTML><html>not here</html>")
    code, out, err = read_at(endpoint, s3_store, capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert f"the server at {endpoint.url} answered 404 Not Found" in err and "check s3.endpoint" in err, err
    assert "DOCTYPE" not in err


def test_a_missing_bucket_an_endpoint_out_of_reach_and_refused_credentials_are_one_line(object_store, capsys):
    from fileindex.io.object_store import MAX_RETRIES
    from store_fixtures import AZURITE_KEY

    uri = upload(object_store, SIDECARS)
    flags = storage_flags(object_store)
    bucket = object_store.server.bucket
    missing = uri.replace(f"//{bucket}", "//no-such-bucket", 1)
    code, out, err = run_cli(capsys, "read", missing, "--where", "f1 = 3", *flags)
    assert code == 2 and err.count("\n") == 1 and "no-such-bucket does not exist" in err, err
    assert err.startswith(f"fileindex read: {missing}/")

    endpoint = RefusingEndpoint()
    try:
        options = {**object_store.options(endpoint.url)}
        unreachable = [f for key, value in options.items() for f in ("--storage-option", f"{key}={value}")]
        code, out, err = run_cli(capsys, "read", uri, "--where", "f1 = 3", *unreachable)
    finally:
        endpoint.close()
    assert code == 2 and err.count("\n") == 1 and f"cannot reach the store at {endpoint.url}" in err, err
    # the first requests failed (the LATEST hint and the schema/ listing, sent side by side), each tried again a
    # bounded number of times
    assert 1 <= endpoint.tries <= 2 * (1 + MAX_RETRIES)

    if object_store.kind == "azure":  # (moto takes any credentials; the GCS emulator is anonymous)
        wrong = AZURITE_KEY[:-12] + "AAAAAAAAAAA="
        denied = [f.replace(AZURITE_KEY, wrong) for f in flags]
        code, out, err = run_cli(capsys, "read", uri, "--where", "f1 = 3", *denied)
        assert code == 2 and err.count("\n") == 1 and "access denied" in err and wrong not in err, err
    assert not [s for s in object_store.secrets() if s in out + err]


def test_an_http_server_given_as_an_endpoint_without_a_scheme_is_told_to_write_http(object_store, capsys):
    """An endpoint without a scheme is https (as Hadoop's S3A, unless connection.ssl.enabled=false); a plain-http
    server's answer to the TLS handshake is not "no answer": the line says to write http://."""
    uri = upload(object_store, SIDECARS)
    plain = object_store.proxy.url.removeprefix("http://")
    flags = [flag.replace(object_store.proxy.url, plain) for flag in storage_flags(object_store)]
    code, out, err = run_cli(capsys, "read", uri, *flags)
    assert code == 2 and err.count("\n") == 1, err
    assert f"the server at https://{plain}" in err and "does not speak TLS" in err and f"=http://{plain}" in err, err


CREDENTIALS = {"s3": ("s3.access-key", "s3.secret-key"), "azure": ("fs.azure.account.key.",),
               "gcs": ("gcs.allow-anonymous",)}


def test_no_credentials_names_the_options_of_the_store_at_hand(object_store, capsys, monkeypatch):
    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
                     "AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_SAS_TOKEN", "GOOGLE_APPLICATION_CREDENTIALS"):
        monkeypatch.delenv(variable, raising=False)
    uri = upload(object_store, SIDECARS)
    options = {key: value for key, value in object_store.options().items()
               if not key.startswith(CREDENTIALS[object_store.kind])}
    flags = [flag for key, value in options.items() for flag in ("--storage-option", f"{key}={value}")]
    code, out, err = run_cli(capsys, "read", uri, *flags)
    assert code == 2 and err.count("\n") == 1 and "no credentials" in err, err
    named = {"s3": "s3.access-key", "azure": "azure.account-key", "gcs": "gcs.credential-path"}
    assert named[object_store.kind] in err and not [other for kind, other in named.items()
                                                     if kind != object_store.kind and other in err], err


def test_a_query_sends_one_request_per_sidecar_wherever_its_columns_bodies_lie(object_store):
    """Per sidecar still in play: one GET of its first ``FIRST_BYTES`` read as a stream as far as the predicate's
    column's bodies (this 3 MB sidecar's ``f0`` runs past the first 512 KiB, ``f2`` lies wholly beyond them),
    whichever column is asked: no GET more for a body beyond the first bytes."""
    from fileindex import PaimonTable
    from fileindex.container.file import FIRST_BYTES, SIDECARS as SHARED

    uri = upload(object_store, SIDECARS)
    assert (SIDECARS / "bucket-0" / f"{DATA.name}.index").stat().st_size <= FIRST_BYTES
    for where in ("f0 = 'Bob'", "f2 = 1.0"):
        SHARED.clear()  # (a sidecar shared already is opened by its HEAD_BYTES: see the test below)
        table = PaimonTable(uri, options=object_store.options())  # (a new one: a table keeps the indexes it opened)
        object_store.proxy.clear()
        assert table.scan(where).to_arrow().equals(PaimonTable(SIDECARS).scan(where).to_arrow())
        fetched = [r for r in object_store.proxy.requests if r.key and r.key.endswith(".index")]
        assert [(r.method, r.range) for r in fetched] == [("GET", f"bytes=0-{FIRST_BYTES - 1}")], (where, fetched)


def test_a_second_plan_opens_a_shared_sidecar_by_its_head_bytes_alone(object_store):
    """A sidecar whose container the process shares already is opened again (a new table, a new plan) by a GET of
    its first HEAD_BYTES, which tells whether the object is still that version: not FIRST_BYTES again for each
    file; the bodies the first plan fetched are not fetched again."""
    from fileindex.container.file import FIRST_BYTES, HEAD_BYTES, SIDECARS as SHARED

    uri = upload(object_store, SIDECARS)
    SHARED.clear()
    where = "f0 = 'Bob'"
    expected = PaimonTable(SIDECARS).scan(where).to_arrow()
    sizes = []
    for _ in range(2):
        object_store.proxy.clear()
        assert PaimonTable(uri, options=object_store.options()).scan(where).to_arrow().equals(expected)
        fetched = [r for r in object_store.proxy.requests if r.key and r.key.endswith(".index")]
        assert all(r.method == "GET" and r.range for r in fetched), fetched
        sizes.append([int(r.range.removeprefix("bytes=0-")) + 1 if r.range.startswith("bytes=0-") else r.range
                      for r in fetched])
    assert sizes[0][0] == FIRST_BYTES and sizes[1] == [HEAD_BYTES], sizes


def test_a_query_sends_one_request_per_small_sidecar(object_store):
    """A sidecar no larger than its first GET (most are) is read by that GET alone, whichever column is asked, and
    a second query on the same table sends none (its container is kept)."""
    from fileindex import PaimonTable
    from fileindex.container.file import SIDECARS as SHARED

    uri = upload(object_store, BITMAP_SIDECARS)
    for where in ("f0 = 'Alice'", "f1 = 20", "f2 = 0"):
        SHARED.clear()
        table = PaimonTable(uri, options=object_store.options())
        object_store.proxy.clear()
        assert table.scan(where).to_arrow().equals(PaimonTable(BITMAP_SIDECARS).scan(where).to_arrow())
        fetched = [r for r in object_store.proxy.requests if r.key and r.key.endswith(".index")]
        assert [r.method for r in fetched] == ["GET"], (where, fetched)
        object_store.proxy.clear()
        table.scan("f0 = 'Bob' OR f1 = 10").to_arrow()
        assert not [r for r in object_store.proxy.requests if r.key and r.key.endswith(".index")]


def test_a_data_file_under_an_external_path_on_a_store_is_read_only_where_allowed(s3_store, capsys, tmp_path):
    """The table's one data file and its sidecar moved to another prefix, named by an s3:// external path: planned
    REMAIN with a note and never fetched until the caller allows that prefix, then read through the store as the
    local copy reads; an external path in another bucket is not read; rewrite refuses to write there."""
    from table_edits import copy_table, data_manifests, edit_rows

    from fileindex import PaimonTable

    root = copy_table("parquet", SIDECARS.name, tmp_path)
    (data,) = (root / "bucket-0").glob("*.parquet")
    external = s3_store.uri("elsewhere", "bucket-0")
    for path in (data, data.with_name(data.name + ".index")):
        s3_store.put(f"elsewhere/bucket-0/{path.name}", path.read_bytes())
        path.unlink()

    def name_external(value: str) -> None:
        edit_rows(data_manifests(root)[0], lambda rows: rows[0]["_FILE"].__setitem__("_EXTERNAL_PATH", value))

    name_external(f"{external}/{data.name}")
    uri = upload(s3_store, root, "warehouse/t")
    where, local = "f0 = 'Bob'", PaimonTable(SIDECARS)
    s3_store.proxy.clear()
    refused = PaimonTable(uri, options=s3_store.options())
    (verdict,) = refused.plan(where)
    assert verdict.result.kind == "REMAIN" and "allow its folder" in verdict.note
    assert not [r for r in s3_store.proxy.requests if "elsewhere" in r.path]
    code, out, err = run_cli(capsys, "read", uri, "--where", where, *storage_flags(s3_store))
    assert code == 2 and "--allow-external-paths" in err and err.count("\n") == 1

    allowed = PaimonTable(uri, options=s3_store.options(), external_roots=[s3_store.uri("elsewhere")])
    assert allowed.scan(where).to_arrow().equals(local.scan(where).to_arrow())
    explained = str(allowed.scan(where).explain()).replace(f"{external}/", "").replace(uri, "ROOT")
    assert "(external path)" in explained
    assert explained.replace("  (external path)", "") == str(local.scan(where).explain()).replace(
        "bucket-0/", "").replace(str(SIDECARS), "ROOT")
    fetched = {r.key.rsplit("/", 1)[-1] for r in s3_store.proxy.requests if "elsewhere" in r.path}
    assert fetched == {data.name, f"{data.name}.index"}
    code, out, err = run_cli(capsys, "read", uri, "--where", where, "--allow-external-paths", s3_store.uri("elsewhere"),
                             "--json", *storage_flags(s3_store))
    assert code == 0 and [line.count("Bob") for line in out.splitlines()] == [1, 1], err
    code, out, err = run_cli(capsys, "rewrite", uri, "--allow-external-paths", *storage_flags(s3_store))
    assert code == 2 and "object store" in err and err.count("\n") == 1

    name_external(f"s3://another-bucket/elsewhere/bucket-0/{data.name}")  # allowed prefix, another bucket
    uri = upload(s3_store, root, "warehouse/t2")
    s3_store.proxy.clear()
    (verdict,) = PaimonTable(uri, options=s3_store.options(), external_roots=[s3_store.uri("elsewhere")]).plan(where)
    assert verdict.result.kind == "REMAIN" and "outside the folders allowed" in verdict.note
    assert not [r for r in s3_store.proxy.requests if "another-bucket" in r.path]


def test_the_kit_runs_a_tier_2_table_that_lives_on_a_store(s3_store, kit_folder, tmp_path):
    """``kit run --tables-at URI``: Tier 2 requests name the tables under the URI their ``tables/`` folder was
    copied to (with the options that reach it); this project's adapter answers them from the store, as it
    answers the corpus's own copy, and a URI where the table is not fails the checks (it is read from there)."""
    from kit_fixtures import ADAPTER

    from fileindex.kit.runner import run

    case = "append_with_bitmap"
    for path in sorted(p for p in (kit_folder / "tables" / case).rglob("*") if p.is_file()):
        s3_store.put(f"kit/{path.relative_to(kit_folder / 'tables').as_posix()}", path.read_bytes())
    s3_store.proxy.clear()
    results = run(kit_folder, [ADAPTER], tmp_path / "work", only=[case], tables_at=s3_store.uri("kit"),
                  storage_options=s3_store.options())
    assert results.ok and {(o.check, o.status) for o in results.outcomes} == {("scan", "pass"), ("rows", "pass")}
    assert len(results.outcomes) == len(run(kit_folder, [ADAPTER], tmp_path / "local", only=[case]).outcomes)
    fetched = {r.key.split("/kit/", 1)[-1].split("/", 2)[1] for r in s3_store.proxy.requests if r.key}
    assert fetched == {"table"}  # every request went to the table's copy on the store
    elsewhere = run(kit_folder, [ADAPTER], tmp_path / "work2", only=[case], tables_at=s3_store.uri("nothing-here"),
                    storage_options=s3_store.options())
    assert not elsewhere.ok and {o.status for o in elsewhere.outcomes} == {"fail"}


@pytest.mark.parametrize("output", [[], ["--output-dir", "s3://warehouse/sidecars"]])
def test_spark_build_writes_no_sidecar_beside_a_file_on_a_store(capsys, output):
    """Its sidecars go to the local disk: for a table on a store only into a local --output-dir, refused in one
    line before Spark starts otherwise (a path made from the URI would be a local folder named s3:)."""
    code, out, err = run_cli(capsys, "spark", "build", "s3://warehouse/w/db.db/t", *output)
    assert code == 2 and err.count("\n") == 1 and "--output-dir" in err


@pytest.mark.parametrize("command", [["spark", "verify"], ["spark", "build", "--output-dir", "OUT"]])
def test_spark_verify_and_build_refused_credentials_are_one_line_before_spark_starts(azure_store, capsys, tmp_path,
                                                                                      command):
    """The driver opens the table before it starts Spark: credentials the store refuses are one line, the key
    not in it (a Spark session would take seconds, and its failure many lines)."""
    from store_fixtures import AZURITE_KEY

    uri = upload(azure_store, SIDECARS)
    wrong = AZURITE_KEY[:-12] + "AAAAAAAAAAA="
    denied = [f.replace(AZURITE_KEY, wrong) for f in storage_flags(azure_store)]
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in command]
    code, out, err = run_cli(capsys, *argv, uri, *denied)
    assert code == 2 and err.count("\n") == 1 and "access denied" in err, err
    assert wrong not in out + err and AZURITE_KEY not in out + err
    assert not (tmp_path / "out").exists()


def test_a_table_folder_or_data_file_on_a_store_given_for_an_index_gets_the_local_hints(s3_store, capsys):
    """``inspect s3://.../table`` said only "no such object"; a data file only that its magic is wrong."""
    flags = storage_flags(s3_store)
    sidecars, embedded = upload(s3_store, SIDECARS), upload(s3_store, BITMAP)
    (entry, _), = PaimonTable(BITMAP).live()
    cases = [(["inspect", embedded], f"a Paimon table's folder, not a file index: list its indexes with fileindex "
                                     f"table {embedded} --indexes"),
             (["check", f"{embedded}/"], "a Paimon table's folder"),
             (["query", embedded, "--where", "f0 = 'Bob'", "--schema", "f0 STRING"], "a Paimon table's folder"),
             (["inspect", f"{embedded}/bucket-0"], "is a folder, not a file index"),
             (["inspect", f"{embedded}/{PaimonTable(BITMAP).relative(entry)}"],
              f"its index is embedded in the table's manifest: fileindex table {embedded} --explain bucket-0/"),
             (["explain", f"{sidecars}/bucket-0/{DATA.name}"], f"did you mean {sidecars}/bucket-0/{DATA.name}.index?"),
             (["inspect", s3_store.uri("nothing")], "no such object")]
    for argv, says in cases:
        code, out, err = run_cli(capsys, *argv, *flags)
        assert code == 2 and says in out + err and (out + err).count("\n") == 1, (argv, out, err)  # (check: on stdout)
