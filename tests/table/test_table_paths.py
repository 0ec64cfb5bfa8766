"""Table metadata never steers a read or a write outside the table.

Every name field a table's metadata holds is given path-shaped values (traversal, absolute paths,
separators, NUL and control characters, overlong names) in Avro and ORC metadata, and every command
that opens a table refuses with the metadata file, the entry and the field named (exit 3): an audit
hook on ``open`` shows that nothing outside the table was opened, and the folder beside the table
(holding a real data file and index where the traversal points) is left as it was. External paths,
the one legitimate way out, are read, shown and (with a flag) rewritten beside.
"""
from __future__ import annotations

import io
import json
import os
import shutil
import sys
import tracemalloc
import zlib
from contextlib import contextmanager
from pathlib import Path

import fastavro
import pytest
from table_edits import copy_table, data_manifests, edit_json, edit_rows, snapshot_of

from fileindex.cli.app import main
from fileindex.table.store import TableStore
from fileindex.table.avro_blocks import uncompressed_container
from fileindex.table.errors import TableError, UnsafeNameError
from fileindex.table.metadata import MAX_JSON_BYTES, read_rows
from fileindex.table.names import external_path, inside, local_external_path, name_problem, plain_name
from fileindex import PaimonTable

# ------------------------------------------------------------------------------------- the rule


@pytest.mark.parametrize("name,problem", [
    ("", "is empty"), (".", "is '.'"), ("..", "is '..'"), ("a/b", "separator"), ("/etc/passwd", "separator"),
    ("a\\b", "separator"), ("a\x00b", "control"), ("a\nb", "control"), ("a\x7fb", "control"),
    ("x" * 256, "longer than 255"), ("é" * 128, "longer than 255"),
])
def test_a_name_with_a_path_in_it_is_refused(name, problem):
    assert problem in name_problem(name)
    with pytest.raises(UnsafeNameError, match="manifest/m row 3 _FILE: _FILE_NAME"):
        plain_name(name, "manifest/m row 3 _FILE", "_FILE_NAME")


@pytest.mark.parametrize("name", ["data-1.parquet", "data-1.parquet.index", "x" * 255, "..data", "a.b.c", "é"])
def test_plain_names_pass(name):
    assert name_problem(name) is None and plain_name(name, "w", "f") == name


@pytest.mark.parametrize("value", ["file:/data/x.parquet", "file:///data/x.parquet", "oss://bucket/x.parquet",
                                   "/data/x.parquet", "s3a://b/p/x.parquet"])
def test_external_paths_are_absolute_uris(value):
    assert external_path(value, "w", "_EXTERNAL_PATH") == value


@pytest.mark.parametrize("value", ["x.parquet", "../x.parquet", "file:x.parquet", "file:../x", "c:/x",
                                   "file:/a/../../etc/passwd", "/a/b\x00", "oss://b/" + "x" * 5000])
def test_relative_or_odd_external_paths_are_refused(value):
    with pytest.raises(UnsafeNameError, match="_EXTERNAL_PATH"):
        external_path(value, "w", "_EXTERNAL_PATH")


def test_only_local_external_paths_are_opened():
    assert local_external_path("file:/data/x%20y.parquet") == Path("/data/x y.parquet")
    assert local_external_path("/data/x.parquet") == Path("/data/x.parquet")
    with pytest.raises(UnsafeNameError, match="oss:// storage is not readable here"):
        local_external_path("oss://bucket/x.parquet")


def test_a_symlink_out_of_the_root_is_refused(tmp_path):
    (tmp_path / "root").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "root" / "link").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "root" / "inner").symlink_to(tmp_path / "root")
    assert inside(tmp_path / "root", tmp_path / "root" / "inner" / "x", "f")
    with pytest.raises(UnsafeNameError, match="leads outside the table"):
        inside(tmp_path / "root", tmp_path / "root" / "link" / "x", "data file")


# ------------------------------------------------------------------------------------- hostile tables

class OpenedFiles:
    """Files opened while recording (``sys.addaudithook``: hooks stay for the process, so this one
    records only inside ``recording()``)."""

    def __init__(self):
        self.active = False
        self.paths: list[str] = []
        sys.addaudithook(self._hook)

    def _hook(self, event, args):
        if self.active and event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            self.paths.append(os.fsdecode(args[0]))

    @contextmanager
    def recording(self):
        self.paths, self.active = [], True
        try:
            yield self.paths
        finally:
            self.active = False


OPENED = OpenedFiles()


@pytest.fixture
def outside(tmp_path):
    """A folder beside the table holding a real data file and its index, where traversals point."""
    folder = tmp_path / "outside"
    source = copy_table("parquet", "append_with_bitmap_no_embedding", tmp_path / "source")
    folder.mkdir()
    for path in (source / "bucket-0").iterdir():
        shutil.copy(path, folder / ("evil.parquet" + (".index" if path.name.endswith(".index") else "")))
    return folder


def hostile_names(outside: Path) -> dict[str, str]:
    return {"traversal": "../../outside/evil.parquet", "absolute": str(outside / "evil.parquet"),
            "separator": "bucket-0/evil.parquet", "nul": "evil\x00.parquet", "control": "evil\r.parquet",
            "dot-dot": "..", "overlong": "e" * 300 + ".parquet"}


def _first(rows, edit):
    edit(rows[0])


def _set_file(field):
    def edit(root: Path, value: str) -> str:
        manifest = data_manifests(root)[0]
        edit_rows(manifest, lambda rows: _first(rows, lambda row: row["_FILE"].__setitem__(
            field, [value] if field == "_EXTRA_FILES" else value)))
        return manifest.name
    return edit


def _set_manifest_list_entry(root: Path, value: str) -> str:
    listing = root / "manifest" / json.loads(snapshot_of(root).read_text())["deltaManifestList"]
    edit_rows(listing, lambda rows: _first(rows, lambda row: row.__setitem__("_FILE_NAME", value)))
    return listing.name


def _set_snapshot(key):
    def edit(root: Path, value: str) -> str:
        edit_json(snapshot_of(root), lambda document: document.__setitem__(key, value))
        return snapshot_of(root).name
    return edit


def _set_index_manifest(edit_row):
    def edit(root: Path, value: str) -> str:
        manifest = root / "manifest" / json.loads(snapshot_of(root).read_text())["indexManifest"]
        edit_rows(manifest, lambda rows: _first(rows, lambda row: edit_row(row, value)))
        return manifest.name
    return edit


APPEND_FIELDS = {
    "_FILE_NAME": _set_file("_FILE_NAME"),
    "_EXTRA_FILES": _set_file("_EXTRA_FILES"),
    "manifest list _FILE_NAME": _set_manifest_list_entry,
    "baseManifestList": _set_snapshot("baseManifestList"),
    "deltaManifestList": _set_snapshot("deltaManifestList"),
}
INDEX_FIELDS = {  # on a table with deletion vectors
    "indexManifest": _set_snapshot("indexManifest"),
    "index manifest _FILE_NAME": _set_index_manifest(lambda row, value: row.__setitem__("_FILE_NAME", value)),
    "deletion vector ranges f0": _set_index_manifest(
        lambda row, value: row["_DELETIONS_VECTORS_RANGES"][0].__setitem__("f0", value)),
}
FIELD_NAMES = {"manifest list _FILE_NAME": "_FILE_NAME", "index manifest _FILE_NAME": "_FILE_NAME",
               "deletion vector ranges f0": "f0"}


def outside_state(folder: Path) -> dict:
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


def assert_refused(root: Path, outside: Path, argv: list[str], named: str, field: str, capsys) -> None:
    before = outside_state(outside)
    with OPENED.recording() as opened:
        code = main(argv)
    out, err = capsys.readouterr()
    assert code == 3, (argv, out, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert named in err and FIELD_NAMES.get(field, field) in err, (named, field, err)
    assert not [p for p in opened if Path(os.path.realpath(p)).is_relative_to(outside.resolve())], opened
    assert outside_state(outside) == before
    assert not (outside.parent / "outside" / "outside").exists()


def hostile_copies(source: Path, outside: Path, edit, into: Path):
    """(label, a copy of ``source`` with ``edit(root, value)`` applied, the file it named) per hostile value."""
    for label, value in hostile_names(outside).items():
        root = into / label
        shutil.copytree(source, root)
        yield label, root, edit(root, value)


@pytest.mark.parametrize("kind", ["parquet", "orc"], ids=["avro-manifests", "orc-manifests"])
@pytest.mark.parametrize("field", list(APPEND_FIELDS))
def test_every_command_refuses_a_path_shaped_name(tmp_path, outside, capsys, kind, field):
    source = copy_table(kind, "append_with_bitmap_no_embedding", tmp_path / "clean")
    for label, root, named in hostile_copies(source, outside, APPEND_FIELDS[field], tmp_path / "tables"):
        commands = [["table", str(root), "--where", "f0 = 'Alice'", "--json"], ["table", str(root), "--indexes"],
                    ["read", str(root), "--where", "f0 = 'Alice'"], ["read", str(root)]]
        if kind == "parquet":  # (rewrite refuses tables with ORC manifests before reading them)
            commands += [["rewrite", str(root)], ["rewrite", str(root), "--dry-run"]]
        for argv in commands:
            assert_refused(root, outside, argv, named, field, capsys)
        assert sorted(p.name for p in (root / "bucket-0").iterdir()) == \
            sorted(p.name for p in (source / "bucket-0").iterdir()), label  # rewrite wrote nothing


@pytest.mark.parametrize("kind", ["parquet", "orc"], ids=["avro-manifests", "orc-manifests"])
@pytest.mark.parametrize("field", list(INDEX_FIELDS))
def test_index_manifest_names_are_plain_too(tmp_path, outside, capsys, kind, field):
    source = copy_table(kind, "pk_with_bitmap_dv", tmp_path / "clean")
    for _, root, named in hostile_copies(source, outside, INDEX_FIELDS[field], tmp_path / "tables"):
        for argv in (["table", str(root), "--where", "f1 = 20", "--json"], ["read", str(root), "--where", "f1 = 20"]):
            assert_refused(root, outside, argv, named, field, capsys)


@pytest.mark.parametrize("value", ["../../outside/evil.parquet", "evil.parquet", "file:evil.parquet"])
def test_a_relative_external_path_is_refused(tmp_path, outside, capsys, value):
    root = copy_table("parquet", "append_with_bitmap_no_embedding", tmp_path)
    named = _set_file("_EXTERNAL_PATH")(root, value)
    for argv in (["table", str(root), "--where", "f0 = 'Alice'"], ["rewrite", str(root)]):
        assert_refused(root, outside, argv, named, "_EXTERNAL_PATH", capsys)


@pytest.mark.parametrize("link", ["bucket-0", "bucket-0/data", "bucket-0/sidecar", "manifest", "index"])
def test_a_symlink_out_of_the_table_is_refused(tmp_path, outside, capsys, link):
    table = "pk_with_bitmap_dv" if link == "index" else "append_with_bitmap_no_embedding"
    root = copy_table("parquet", table, tmp_path)
    if link == "bucket-0/data":  # the data file itself
        (data,) = (root / "bucket-0").glob("*.parquet")
        data.unlink()
        data.symlink_to(outside / "evil.parquet")
    elif link == "bucket-0/sidecar":
        (sidecar,) = (root / "bucket-0").glob("*.index")
        sidecar.unlink()
        sidecar.symlink_to(outside / "evil.parquet.index")
    else:
        moved = outside / link
        shutil.move(root / link, moved)
        (root / link).symlink_to(moved)
    before = outside_state(outside)
    where = "f1 = 20" if table == "pk_with_bitmap_dv" else "f0 = 'Alice'"
    with OPENED.recording() as opened:
        code = main(["table", str(root), "--where", where])
    err = capsys.readouterr().err
    assert code == 3 and "leads outside the table" in err and err.count("\n") == 1, err
    tried = str(sidecar) if link == "bucket-0/sidecar" else None  # (opened without following: ELOOP, then refused)
    assert not [p for p in opened if Path(os.path.realpath(p)).is_relative_to(outside.resolve()) and p != tried]
    if link == "bucket-0/sidecar":  # (--indexes listed it with a note; every command refuses it alike)
        for argv in (["table", str(root), "--indexes"], ["read", str(root), "--where", where]):
            assert main(argv) == 3
            assert f"index file {sidecar} leads outside the table" in capsys.readouterr().err
    if table != "pk_with_bitmap_dv":
        assert main(["rewrite", str(root)]) == 3 and "leads outside the table" in capsys.readouterr().err
    assert outside_state(outside) == before


# ------------------------------------------------------------------------------------- external paths

def _externalize(root: Path, into: Path, uri: bool = True) -> Path:
    """Move the table's one data file and its sidecar to ``into`` and name them by an external path."""
    into.mkdir(parents=True)
    (data,) = (root / "bucket-0").glob("*.parquet")
    for path in (data, data.with_name(data.name + ".index")):
        shutil.move(path, into / path.name)
    target = into / data.name
    _set_file("_EXTERNAL_PATH")(root, f"file:{target}" if uri else str(target))
    return target


@pytest.mark.parametrize("uri", [True, False], ids=["file-uri", "absolute-path"])
def test_an_external_path_is_read_and_shown(tmp_path, capsys, uri):
    root = copy_table("parquet", "append_with_bitmap_no_embedding", tmp_path)
    clean = copy_table("parquet", "append_with_bitmap_no_embedding", tmp_path / "clean")
    target = _externalize(root, tmp_path / "external" / "bucket-0", uri)
    allowed = ["--allow-external-paths", str(tmp_path / "external")]
    assert main(["read", str(root), "--where", "f0 = 'Alice'"]) == 2  # (not allowed: refused in one line)
    err = capsys.readouterr().err
    assert "external path" in err and "--allow-external-paths" in err and err.count("\n") == 1, err
    assert main(["table", str(root), "--where", "f0 = 'Alice'", "--json", *allowed]) == 0
    moved = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert main(["table", str(clean), "--where", "f0 = 'Alice'", "--json"]) == 0
    plain = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert moved[0]["file"].endswith(str(target)) and moved[0]["index"] == "sidecar"
    assert {k: v for k, v in moved[0].items() if k != "file"} == {k: v for k, v in plain[0].items() if k != "file"}
    assert main(["table", str(root), "--indexes", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()[:-1]]
    assert rows and all(row["external"] is True for row in rows)
    assert main(["table", str(root), "--indexes"]) == 0
    assert "(external path)" in capsys.readouterr().out
    assert main(["table", str(root), "--explain", target.name, *allowed]) == 0
    assert "under an external path, outside the table" in capsys.readouterr().err
    assert main(["read", str(root), "--where", "f0 = 'Alice'", "--json", *allowed]) == 0
    assert [json.loads(line)["f0"] for line in capsys.readouterr().out.splitlines()] == ["Alice", "Alice"]


def test_rewrite_writes_beside_an_external_path_only_when_asked(tmp_path, capsys):
    root = copy_table("parquet", "append_with_bitmap_no_embedding", tmp_path)
    target = _externalize(root, tmp_path / "external" / "bucket-0")
    edit_json(root / "schema" / "schema-0", lambda d: d["options"].__setitem__("file-index.in-manifest-threshold",
                                                                             "1 b"))
    edit_json(root / "schema" / "schema-0", lambda d: d["options"].__setitem__("file-index.bloom-filter.columns",
                                                                             "f0"))
    before = sorted(p.name for p in target.parent.iterdir())
    assert main(["rewrite", str(root)]) == 2
    err = capsys.readouterr().err
    assert "external path" in err and "--allow-external-paths" in err and err.count("\n") == 1
    assert sorted(p.name for p in target.parent.iterdir()) == before
    assert main(["rewrite", str(root), "--allow-external-paths"]) == 0
    capsys.readouterr()
    assert len(list(target.parent.iterdir())) == len(before) + 1  # the new sidecar, beside the data file
    verdicts = list(PaimonTable(root, external_roots=[target.parent]).plan("f0 = 'nobody'"))
    assert verdicts[0].index == "sidecar" and not verdicts[0].note


@pytest.mark.parametrize("scheme", ["hdfs", "oss"])
def test_an_external_path_on_other_storage_is_read_as_unreadable(tmp_path, capsys, scheme):
    """HDFS is not read for external paths; an object store's (oss://, s3://...) is read through the store only
    where the caller allows its folder (tests/io/test_commands_on_stores.py reads one on S3)."""
    root = copy_table("parquet", "append_with_bitmap_no_embedding", tmp_path)
    _set_file("_EXTERNAL_PATH")(root, f"{scheme}://bucket/t/bucket-0/data.parquet")
    assert main(["table", str(root), "--where", "f0 = 'Alice'", "--json"]) == 0
    line = json.loads(capsys.readouterr().out.splitlines()[0])
    note = ("data file is on hdfs:// storage, not readable here" if scheme == "hdfs" else
            "index file not read: a data file under an external path, outside the table: allow its folder with "
            "external_roots=[...] (--allow-external-paths [ROOT])")
    assert line["result"] == "REMAIN" and line["note"] == note


# ------------------------------------------------------------------------------------- bounded work

def _avro(rows, codec="deflate", schema=None) -> bytes:
    schema = schema or {"type": "record", "name": "r", "fields": [{"name": "_FILE_NAME", "type": "string"}]}
    out = io.BytesIO()
    fastavro.writer(out, schema, rows, codec=codec)
    return out.getvalue()


def test_a_deflate_bomb_is_refused_within_bounded_memory(tmp_path):
    bomb = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = bomb.compress(b"\x00" * (1 << 30)) + bomb.flush()  # 1 GiB of zeros in about 1 MiB
    clean = _avro([{"_FILE_NAME": "m"}])
    sync = clean[-16:]
    header = clean[:clean.index(sync) + 16]
    from fileindex.table.avro_blocks import _encode_bytes, _encode_long
    data = header + _encode_long(1) + _encode_bytes(block) + sync
    path = tmp_path / "manifest" / "manifest-list-1"
    path.parent.mkdir()
    path.write_bytes(data)
    tracemalloc.start()
    try:
        with pytest.raises(TableError, match=r"manifest/manifest-list-1 \(manifest list\): the block at byte \d+ "
                                             "expands past"):
            read_rows(TableStore(tmp_path), path, "manifest list")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(data) < 2 << 20 and peak < 300 << 20, peak  # (fastavro alone: over 1 GiB)


@pytest.mark.parametrize("codec", ["null", "deflate", "zstandard"])
def test_a_block_claiming_billions_of_records_is_refused(tmp_path, codec):
    empty = {"type": "record", "name": "r", "fields": []}  # records of no bytes: fastavro would loop forever
    data = _avro([{}], codec, empty)
    sync = data[-16:]
    start = data.index(sync) + 16
    from fileindex.table.avro_blocks import _encode_long
    count_length = 1  # the one record's count, a one-byte varint
    data = data[:start] + _encode_long(2**40) + data[start + count_length:]
    with pytest.raises(TableError, match="claims 1099511627776 records"):
        uncompressed_container(data, "manifest/m")


@pytest.mark.parametrize("codec", ["null", "deflate", "zstandard", "bzip2", "xz"])
def test_decompressed_containers_read_as_the_original(codec):
    rows = [{"_FILE_NAME": f"data-{i}.parquet" * 3} for i in range(3000)]
    data = _avro(rows, codec)
    assert list(fastavro.reader(io.BytesIO(uncompressed_container(data, "m")))) == rows


def test_huge_and_deep_schema_files_are_refused(tmp_path):
    root = copy_table("parquet", "append_with_bitmap_no_embedding", tmp_path)
    schema = root / "schema" / "schema-0"
    schema.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(TableError, match=r"schema/schema-0 \(schema\)"):
        PaimonTable(root)
    with open(schema, "wb") as file:
        file.truncate(MAX_JSON_BYTES + 1)
    with pytest.raises(TableError, match=r"schema/schema-0 \(schema\): larger than 64 MiB"):
        PaimonTable(root)


def test_a_fifo_in_the_metadata_is_not_waited_on(tmp_path):
    root = copy_table("parquet", "append_with_bitmap_no_embedding", tmp_path)
    schema = root / "schema" / "schema-0"
    schema.unlink()
    os.mkfifo(schema)
    with pytest.raises(TableError, match=r"schema/schema-0 \(schema\): not a regular file"):
        PaimonTable(root)


@pytest.mark.parametrize("codec", ["null", "zstandard"])
def test_manifests_sharing_a_writer_schema_parse_it_once(tmp_path, codec):
    from fileindex.table.metadata import writer_schema

    rows = [{"_FILE_NAME": f"data-{i}.parquet"} for i in range(5)]
    (tmp_path / "manifest").mkdir()
    for number in range(3):
        (tmp_path / "manifest" / f"manifest-{number}").write_bytes(_avro(rows[number:], codec))
    writer_schema.cache_clear()
    store = TableStore(tmp_path)
    assert [read_rows(store, tmp_path / "manifest" / f"manifest-{n}") for n in range(3)] == [rows, rows[1:], rows[2:]]
    assert writer_schema.cache_info().misses == 1


def test_an_avro_container_without_its_schema_is_refused(tmp_path):
    data = _avro([{"_FILE_NAME": "m"}]).replace(b"avro.schema", b"avro.schemX")
    path = tmp_path / "manifest" / "manifest-1"
    path.parent.mkdir()
    path.write_bytes(data)
    with pytest.raises(TableError, match=r"manifest/manifest-1 \(manifest\): an Avro container without its schema"):
        read_rows(TableStore(tmp_path), path)


@pytest.mark.parametrize("partition", [b"\x00\x00\x01", b"\x00\x00\x00\x01" + bytes(10),
                                       b"\x00\x00\x00\x01" + bytes(8) + (1 << 40 | 9).to_bytes(8, "little")],
                         ids=["no arity", "short of its slots", "string outside the row"])
def test_a_partition_row_that_is_not_one_is_malformed_metadata(tmp_path, capsys, partition):
    """A manifest entry's _PARTITION too short for its fields (a struct.error traceback, exit 1), or whose
    string lies outside it (read as the bytes there were: the folder of another partition), is refused naming
    the data file (exit 3)."""
    root = tmp_path / "deduplicate"
    shutil.copytree(Path(__file__).parents[1] / "tables" / "primary-keys" / "deduplicate", root)

    def edit(rows):
        for row in rows:
            row["_PARTITION"] = partition

    for manifest in data_manifests(root):
        edit_rows(manifest, edit)
    assert main(["read", str(root), "--count"]) == 3
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "_PARTITION" in error and ".parquet" in error, error
