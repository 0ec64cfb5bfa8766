"""Container version 2 (experimental, Paimon PR #10101): Java's files, both parsers, writers, bad input."""
import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import JAVA_VECTORS, ROOT
from fileindex.generated.file_index_format import FileIndexFormat
from hypothesis import given, settings
from structures import construct_tree, kaitai_tree
from test_container_properties import ENTRIES
from vector_cases import FRAMES, all_cases, current_java_answer, java_v2

from fileindex.cli import main
from fileindex.cli.exits import EXIT_NON_CANONICAL
from fileindex.decoding import kaitai as kaitai_bridge
from fileindex.container.file import FileIndexContainer
from fileindex.container.head import _VALIDATIONS
from fileindex.container.writer import reframe, stream_container, write_container, write_entries
from fileindex.errors import (
    BadMagicError,
    DecodeError,
    InvalidLengthError,
    InvalidOffsetError,
    TruncatedError,
)
from fileindex.indexes.registry import INDEX_TYPES
from fileindex.reference.construct_parser import parse_with_construct
from fileindex.reference.vector_format import result_matches

COUNTS = {"conversions": 0}


def both_trees(data: bytes):
    parsed = kaitai_bridge.parse(FileIndexFormat, data, root="f", validations=_VALIDATIONS)
    kaitai = {"magic": parsed.magic, "version": parsed.version, "trailer": kaitai_tree(parsed.trailer),
              "footer": kaitai_tree(parsed.footer)}
    return kaitai, construct_tree(parse_with_construct(data))


def test_every_java_v1_vector_has_its_v2_twin():
    assert set(FRAMES) == {p.name.removesuffix(".index") for p in JAVA_VECTORS.glob("*.index")}


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_java_v2_files_parse_alike_and_convert_both_ways(name):
    data = java_v2(name)
    v1 = (JAVA_VECTORS / f"{name}.index").read_bytes()
    container = FileIndexContainer.from_bytes(data)
    container.validate_layout()
    assert container.head.version == 2 and container.head.head_length is None
    assert container.head.footer_start == FRAMES[name]["footer_start"]
    kaitai, construct = both_trees(data)
    assert kaitai == construct
    assert reframe(v1, 2) == data
    assert reframe(data, 1) == v1
    entries = [(e.column, e.index_type, None if e.is_empty else bytes(container.body(e))) for e in container]
    assert write_entries(entries, version=2) == data
    original = FileIndexContainer.from_bytes(v1)
    assert [(e.column, e.index_type, e.length) for e in original] == [(e.column, e.index_type, e.length)
                                                                      for e in container]
    COUNTS["conversions"] += 2


@pytest.mark.parametrize("case", [c for c in all_cases() if c.ok], ids=lambda c: c.name)
def test_recorded_queries_answer_alike_on_the_v2_file(case):
    container = FileIndexContainer.from_bytes(java_v2(case.name))
    entry = container.entry("c", case.record["index_type"])
    reader = INDEX_TYPES[case.record["index_type"]].reader(container.body(entry), case.data_type,
                                                           base_offset=entry.start)
    for method, args, recorded, op in case.queries():
        assert result_matches(getattr(reader, method)(*args), current_java_answer(case, op, recorded)), op


def test_write_container_version_2_is_javas_for_the_same_payloads():
    data = java_v2("multi__engine_layout")
    container = FileIndexContainer.from_bytes(data)
    payloads = {}
    for entry in container:
        payloads.setdefault(entry.column, {})[entry.index_type] = bytes(container.body(entry))
    assert write_container(payloads, version=2) == data
    assert write_container({}, version=2) == bytes.fromhex("00054e4ed01a35ae00000002") + \
        (0).to_bytes(4, "big") + (4).to_bytes(4, "big") + b"PAFIDX02"  # 28 bytes (spec §3.4)


def test_conformance_accepts_a_folder_of_v2_files(tmp_path, capsys):
    folder = tmp_path / "vectors"
    shutil.copytree(JAVA_VECTORS, folder)
    for name in FRAMES:
        (folder / f"{name}.index").write_bytes(java_v2(name))
    vectors = json.loads((folder / "vectors.json").read_text())
    for record in vectors["multi_column"]:  # records of V2 files describe V2 framing
        name = record["file"].removesuffix(".index")
        record["sha256"] = FRAMES[name]["sha256"]
        v1_starts = iter(e.start for e in FileIndexContainer.open(JAVA_VECTORS / record["file"]))
        v2_starts = iter(e.start for e in FileIndexContainer.from_bytes(java_v2(name)))
        shift = {next(v1_starts): next(v2_starts) for _ in FileIndexContainer.from_bytes(java_v2(name))}
        record["head"] = {"version": 2, "footer_start": FRAMES[name]["footer_start"], "columns": [
            {"column": c["column"], "indexes": [{**i, "start": shift[i["start"]]} for i in c["indexes"]]}
            for c in record["head"]["columns"]]}
    (folder / "vectors.json").write_text(json.dumps(vectors))
    assert main(["conformance", str(folder)]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("PASS") and "multi-column     predicate        25      0" in out


def test_build_writes_version_2_from_the_option_and_table_options(tmp_path, capsys):
    from vector_cases import multi_table

    data, options = multi_table(tmp_path)
    merged = {}
    for option in options:
        key, value = option.split("=", 1)
        merged[key] = f"{merged[key]},{value}" if key.endswith(".columns") and key in merged else value
    argv = ["build", str(data), "--option", "file-index.format.version=2"]
    argv += [a for k, v in merged.items() for a in ("--option", f"{k}={v}")]
    assert main(argv) == 0
    assert "version 2, experimental" in capsys.readouterr().out
    assert (tmp_path / "multi.parquet.index").read_bytes() == java_v2("multi__engine_layout")
    assert main(argv[:2] + ["--option", "file-index.format.version=3"] + argv[4:]) == 2
    assert "file-index.format.version" in capsys.readouterr().err


def test_inspect_reports_the_footer(tmp_path, capsys):
    path = tmp_path / "engine.v2.index"
    path.write_bytes(java_v2("multi__engine_layout"))
    assert main(["inspect", "--json", str(path)]) == 0
    description = json.loads(capsys.readouterr().out)
    assert description["version"] == 2 and "head_length" not in description and "redundant_length" not in description
    assert description["footer_start"] == FRAMES["multi__engine_layout"]["footer_start"]
    assert description["footer_length"] == description["size"] - 12 - description["footer_start"]
    assert description["columns"][0]["indexes"][0]["start"] == 12


# -- malformed version-2 input -------------------------------------------------------------------

def engine() -> bytearray:
    return bytearray(java_v2("multi__engine_layout"))


def footer_entry_offset(data: bytes, index: int = 0) -> int:
    return FileIndexContainer.from_bytes(bytes(data)).head.entries[index].entry_offset


def corrupt_tail_magic():
    data = engine()
    data[-1] ^= 0x01
    return data, BadMagicError, len(data) - 8, "trailer/tail_magic"


def footer_too_long():
    data = engine()
    data[-12:-8] = (len(data)).to_bytes(4, "big")
    return data, InvalidLengthError, len(data) - 12, "trailer/len_footer"


def entry_before_the_payloads():
    data = engine()
    at = footer_entry_offset(data) + 2 + len("bitmap")
    data[at:at + 8] = (4).to_bytes(8, "big")
    return data, InvalidOffsetError, at - 8, "ofs_body"


def entry_into_the_footer():
    data = engine()
    at = footer_entry_offset(data) + 2 + len("bitmap") + 8
    data[at:at + 8] = (2**40).to_bytes(8, "big")
    return data, InvalidLengthError, at - 16, "len_body"


def overlapping_bodies():
    data = engine()
    at = footer_entry_offset(data, 1) + 2 + len("bloom-filter")
    data[at:at + 8] = (20).to_bytes(8, "big")
    return data, InvalidOffsetError, at - 2 - len("bloom-filter"), "ofs_body"


def trailing_footer_bytes():
    container = FileIndexContainer.from_bytes(bytes(engine()))
    data = bytearray(write_entries([(e.column, e.index_type, container.body(e)) for e in container], version=2))
    data[-12:-8] = (int.from_bytes(data[-12:-8], "big") + 3).to_bytes(4, "big")
    data[-12:-12] = b"\x00\x00\x07"
    return data, InvalidLengthError, len(data) - 15, "footer/trailing"


@pytest.mark.parametrize("make", [corrupt_tail_magic, footer_too_long, entry_before_the_payloads,
                                  entry_into_the_footer, overlapping_bodies, trailing_footer_bytes],
                         ids=lambda f: f.__name__)
def test_malformed_version_2_errors_name_the_field_and_its_offset(make, tmp_path, capsys):
    data, kind, offset, field = make()
    with pytest.raises(kind) as info:
        FileIndexContainer.from_bytes(bytes(data)).validate_layout()
    assert info.value.offset == offset and info.value.field.endswith(field), info.value
    path = tmp_path / "bad.index"
    path.write_bytes(bytes(data))
    assert main(["check", str(path)]) == 3
    assert f"at offset {offset}" in capsys.readouterr().out


def test_a_short_input_is_truncated_not_misread():
    with pytest.raises(TruncatedError):
        FileIndexContainer.from_bytes(bytes.fromhex("00054e4ed01a35ae00000002") + b"PAFIDX02")


@settings(max_examples=60, deadline=None)
@given(ENTRIES)
def test_random_v2_containers_round_trip_through_both_parsers(entries):
    data = write_entries(entries, version=2)
    container = FileIndexContainer.from_bytes(data)
    container.validate_layout()
    decoded = [(e.column, e.index_type, None if e.is_empty else bytes(container.body(e))) for e in container]
    assert decoded == [(c, t, None if p is None else bytes(p)) for c, t, p in entries]
    kaitai, construct = both_trees(data)
    assert kaitai == construct
    assert reframe(reframe(data, 1), 2) == data
    COUNTS["conversions"] += 2


@pytest.mark.parametrize("name", ["multi__engine_layout", "multi__explicit_empty_entry", "int_nulls__bitmap_v2"])
def test_every_truncation_and_byte_flip_raises_only_project_errors(name):
    data = java_v2(name)
    mutated = [data[:n] for n in range(len(data))]
    rng = __import__("random").Random(name)
    for _ in range(600):
        copy = bytearray(data)
        copy[rng.randrange(len(copy))] ^= 1 << rng.randrange(8)
        mutated.append(bytes(copy))
    for variant in mutated:
        for parse in (lambda d: FileIndexContainer.from_bytes(d).validate_layout(), parse_with_construct):
            try:
                parse(variant)
            except DecodeError as err:
                assert 0 <= err.offset <= len(variant), err
    COUNTS["mutations"] = COUNTS.get("mutations", 0) + len(mutated)


def test_streaming_holds_one_payload_at_a_time(tmp_path):
    sizes = []

    def payloads():
        for i in range(5):
            sizes.append(len(sizes))
            yield f"c{i}", "bloom-filter", bytes(1 << 20)

    with open(tmp_path / "s.index", "wb") as out:
        size = stream_container(out, payloads(), version=2)
        assert out.tell() == size and size > 5 << 20
    assert FileIndexContainer.open(tmp_path / "s.index").columns == [f"c{i}" for i in range(5)]


# -- a sparse file past 4 GiB ------------------------------------------------------------------------

SPARSE_PROBE = """
import sys, time
from fileindex.container import FileIndexContainer
started = time.perf_counter()
container = FileIndexContainer.open(sys.argv[1])
opened = time.perf_counter() - started
entry = container.entry("id", "bloom-filter")
body = bytes(container.body(entry))
# VmHWM: this process's peak RSS (ru_maxrss would include the parent's, kept across exec)
peak = next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM"))
print(entry.start, opened, peak)
"""


def test_a_sparse_container_past_4_gib_opens_without_reading_the_gap(tmp_path, capsys):
    bloom = bytes(INDEX_TYPES["bloom-filter"].build(list(range(100)), __import__("fileindex.types").types.parse_type(
        "INT"), {"items": "100", "fpp": "0.01"}))
    small = bytes(INDEX_TYPES["bsi"].build([1, 2, 3], __import__("fileindex.types").types.parse_type("BIGINT"), {}))
    path = tmp_path / "sparse.index"
    far = (1 << 32) + 4096
    with open(path, "wb") as out:
        out.write(bytes.fromhex("00054e4ed01a35ae00000002") + small)  # (a bsi body: checked without types)
        out.seek(far)
        out.write(bloom)
        from fileindex.specs import file_index_format as schema

        footer = schema.footer.build({"columns": [
            {"name": b"s", "indexes": [{"index_type": b"bsi", "ofs_body": 12, "len_body": len(small)}]},
            {"name": b"id", "indexes": [{"index_type": b"bloom-filter", "ofs_body": far,
                                                  "len_body": len(bloom)}]}], "trailing": b""})
        out.write(footer + schema.trailer.build({"len_footer": len(footer)}))
    assert path.stat().st_size > 1 << 32 and path.stat().st_blocks * 512 < 1 << 24  # sparse on disk
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    probe = subprocess.run([sys.executable, "-c", SPARSE_PROBE, str(path)], capture_output=True, text=True, env=env,
                           check=True)
    start, opened, peak_kib = probe.stdout.split()
    assert int(start) == far and int(peak_kib) < 200 * 1024, probe.stdout  # far below the 4 GiB file
    print(f"sparse 4 GiB V2: footer opened in {1000 * float(opened):.2f} ms, peak RSS {int(peak_kib) / 1024:.0f} MiB")
    for argv in (["inspect", str(path)],
                 ["query", str(path), "--schema", "id INT", "--where", "id = 7", "--where", "id = 1000"]):
        assert main(argv) == 0, argv
    assert main(["check", str(path)]) == 0  # valid: readable, but Java writes no gap between payloads (a note)
    assert main(["check", "--canonical", str(path)]) == EXIT_NON_CANONICAL
    out = capsys.readouterr().out
    ends = 12 + len(small)
    assert f"where the bodies before it end at {ends} (a gap of {far - ends} bytes)" in out
    assert f"{far}" in out and "id = 7  =>  REMAIN" in out and "id = 1000  =>  SKIP" in out
