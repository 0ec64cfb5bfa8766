"""An untrusted corpus: ``kit run`` reads only inside the corpus folder, writes only inside its work
folder, checks every file against manifest.json and a tarball against its .sha256 before any adapter
is asked anything, and unpacks a tarball by its own rules. Each refusal is one line (exit 3, usage
problems 2), under a memory limit, with nothing written outside the work folder."""
import io
import json
import os
import shutil
import sys
import tarfile
from pathlib import Path

import pytest
from hostile import fileindex, refused
from kit_fixtures import ADAPTER, relist

from fileindex.kit.corpus import NAME

KIT = NAME  # the folder name of this version
BLOOM = "containers/v1/bloom-filter/int_nulls__bloom"
MULTI = "containers/multi/multi__or_bitmap_bloom"
TABLE = "tables/append_with_bitmap"
BAD = "bad/wrong_magic"


@pytest.fixture
def place(kit_folder, tmp_path):
    """tmp_path/KIT (a small valid corpus), tmp_path/outside (files a hostile corpus points at), a work
    folder, and an adapter that leaves a marker if it is ever started."""
    kit = tmp_path / KIT
    for stem in (BLOOM, MULTI, BAD):
        for suffix in (".index", ".json"):
            (kit / stem).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(kit_folder / (stem + suffix), kit / (stem + suffix))
    shutil.copytree(kit_folder / TABLE, kit / TABLE)
    for dataset in ("int_nulls", "or_bitmap_bloom"):
        (kit / "datasets").mkdir(exist_ok=True)
        shutil.copy(kit_folder / "datasets" / f"{dataset}.json", kit / "datasets" / f"{dataset}.json")
    refusals = json.loads((kit_folder / "refusals.json").read_text())["refusals"]
    refusal = dict(next(r for r in refusals if r["layout"] == "bloom-filter"), dataset="datasets/int_nulls.json")
    (kit / "refusals.json").write_text(json.dumps({"refusals": [refusal]}))
    shutil.copy(kit_folder / "manifest.json", kit / "manifest.json")
    relist(kit)
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(kit / f"{BLOOM}.index", outside / "victim.index")
    shutil.copy(kit / "datasets/int_nulls.json", outside / "victim.json")
    (outside / "table").mkdir()
    marker = tmp_path / "adapter-started"
    script = tmp_path / "marker_adapter.py"
    script.write_text(f"open({str(marker)!r}, 'w').close()\n")
    return {"kit": kit, "outside": outside, "work": tmp_path / "work", "marker": marker, "root": tmp_path,
            "impl": f"{sys.executable} {script}"}


def snapshot(root: Path, work: Path) -> dict:
    """Every path under ``root`` but the work folder, with its size and mtime."""
    found = {}
    for base, folders, files in os.walk(root):
        folders[:] = [f for f in folders if Path(base, f) != work]
        for name in files + folders:
            status = os.lstat(Path(base, name))
            found[str(Path(base, name))] = (status.st_size, status.st_mtime_ns)
    return found


def edit(path: Path, change) -> None:
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))


def run_refused(place, *fragments, target=None, code=3, extra=()):
    before = snapshot(place["root"], place["work"])
    done = fileindex("kit", "run", target or place["kit"], "--impl", place["impl"], "--workdir", place["work"], *extra)
    line = refused(done, *fragments, code=code)
    assert not place["marker"].exists(), "an adapter was started"
    assert snapshot(place["root"], place["work"]) == before, "something was written outside the work folder"
    return line


def test_the_small_corpus_itself_passes(place):
    done = fileindex("kit", "run", place["kit"], "--impl", ADAPTER, "--workdir", place["work"])
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "files as manifest.json lists them" in done.stderr


def _set(stem, key, value):
    return stem, lambda document: document.__setitem__(key, value)


def _refusal_dataset(value):
    return "refusals", lambda document: document["refusals"][0].__setitem__("dataset", value)


# (the document to edit, how) -> a fragment of the refusal; every path field, absolute and with '..'
REFERENCES = {
    "tier1 file absolute": (_set(BLOOM, "file", "{outside}/victim.index"), '"file"'),
    "tier1 file dotdot": (_set(BLOOM, "file", "../../../../outside/victim.index"), "'..'"),
    "tier1 file device": (_set(BLOOM, "file", "/dev/zero"), "absolute path"),
    "tier1 dataset absolute": (_set(BLOOM, "dataset", "{outside}/victim.json"), "dataset"),
    "tier1 dataset dotdot": (_set(BLOOM, "dataset", "../outside/victim.json"), "'..'"),
    "multi file dotdot": (_set(MULTI, "file", "../../../outside/victim.index"), "'..'"),
    "multi dataset absolute": (_set(MULTI, "dataset", "{outside}/victim.json"), "absolute path"),
    "bad file absolute": (_set(BAD, "file", "{outside}/victim.index"), "absolute path"),
    "table absolute": (_set(f"{TABLE}/case", "table", "{outside}/table"), '"table"'),
    "table dotdot": (_set(f"{TABLE}/case", "table", "../../../outside/table"), "'..'"),
    "refusal dataset absolute": (_refusal_dataset("{outside}/victim.json"), "absolute path"),
    "refusal dataset dotdot": (_refusal_dataset("../outside/victim.json"), "'..'"),
}


@pytest.mark.parametrize("case", sorted(REFERENCES))
def test_every_path_field_must_stay_inside_the_corpus(place, case):
    (stem, change), fragment = REFERENCES[case]

    def formatted(document):
        change(document)
        text = json.dumps(document).replace("{outside}", str(place["outside"]))
        document.clear()
        document.update(json.loads(text))

    edit(place["kit"] / f"{stem}.json", formatted)
    relist(place["kit"])  # listed as they are: only the path check can refuse them
    run_refused(place, fragment)


def test_a_negative_case_asks_only_a_head_or_a_read_of_its_own_file(place):
    target = str(place["outside"] / "written.index")
    edit(place["kit"] / f"{BAD}.json", lambda d: d.__setitem__("request", {
        "op": "write", "dataset": "datasets/int_nulls.json", "column": "c", "type": "INT", "index_type": "bitmap",
        "options": {}, "container_version": 1, "out": target}))
    relist(place["kit"])
    run_refused(place, '"request"', "not a head or a read")
    assert not Path(target).exists()


def test_a_refusal_name_never_names_a_file(place):
    """Output names are made by the runner: a refusal called ../../escape writes nothing there."""
    edit(place["kit"] / "refusals.json", lambda d: d["refusals"][0].__setitem__("name", "../../../../escape"))
    relist(place["kit"])
    before = snapshot(place["root"], place["work"])
    done = fileindex("kit", "run", place["kit"], "--impl", ADAPTER, "--workdir", place["work"])
    assert done.returncode == 0, done.stderr[-2000:]
    assert snapshot(place["root"], place["work"]) == before
    written = [p.name for p in place["work"].rglob("*") if p.is_file()]
    assert written and all(name.startswith(("written-", "refused-")) for name in written), written


def test_an_unlisted_file_fails_the_run_by_name(place):
    (place["kit"] / "containers/v1/bloom-filter/extra.index").write_bytes(b"PAIMON")
    run_refused(place, "extra.index", "unlisted")


def test_an_altered_file_fails_the_run_by_name(place):
    path = place["kit"] / f"{BLOOM}.index"
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    run_refused(place, "int_nulls__bloom.index", "altered")


def test_a_file_of_another_size_fails_the_run_before_it_is_hashed(place):
    with open(place["kit"] / f"{BLOOM}.index", "ab") as grown:
        grown.write(b"\0")
    run_refused(place, "int_nulls__bloom.index", "altered", "bytes where manifest.json lists")


def test_a_corpus_listed_by_sha256_alone_is_checked_by_sha256(place):
    edit(place["kit"] / "manifest.json", lambda d: d.pop("sizes"))
    (place["kit"] / "datasets/int_nulls.json").write_text("{}")
    run_refused(place, "int_nulls.json", "altered", "its SHA-256")


def test_a_missing_listed_file_fails_the_run_by_name(place):
    (place["kit"] / "datasets/or_bitmap_bloom.json").unlink()
    run_refused(place, "or_bitmap_bloom.json", "missing")


def test_a_symlink_out_of_the_corpus_is_refused(place):
    (place["kit"] / "containers/v1/bloom-filter/link.index").symlink_to(place["outside"] / "victim.index")
    edit(place["kit"] / f"{BLOOM}.json", lambda d: d.__setitem__("file", "link.index"))
    relist(place["kit"])
    run_refused(place, "link.index", "symlink")


def test_a_named_pipe_in_the_corpus_is_refused_without_hanging(place):
    os.mkfifo(place["kit"] / "containers/v1/bloom-filter/pipe.index")
    edit(place["kit"] / f"{BLOOM}.json", lambda d: d.__setitem__("file", "pipe.index"))
    relist(place["kit"])
    run_refused(place, "pipe.index", "named pipe")


def test_a_huge_manifest_is_refused_before_it_is_read(place):
    with open(place["kit"] / "manifest.json", "r+b") as manifest:
        manifest.truncate(1 << 30)  # sparse: 1 GiB that takes no disk
    run_refused(place, "manifest.json", "more than the limit")


# ---------------------------------------------------------------------------------------------- tarballs

def pack(place, members, name="kit.tar.gz") -> Path:
    """A tarball of (TarInfo, bytes or None) members."""
    archive = place["root"] / name
    with tarfile.open(archive, "w:gz", compresslevel=1) as tar:
        for info, data in members:
            tar.addfile(info, None if data is None else io.BytesIO(data))
    return archive


def member(name, kind=tarfile.REGTYPE, data=b"", link=""):
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    return info, data if kind == tarfile.REGTYPE else None


def corpus_tarball(place, name="kit.tar.gz") -> Path:
    archive = place["root"] / name
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(place["kit"], arcname=KIT)
    return archive


def test_a_tarball_is_checked_against_its_sha256_when_published(place):
    import hashlib

    archive = corpus_tarball(place)
    published = archive.with_name(archive.name + ".sha256")
    published.write_text(f"{hashlib.sha256(archive.read_bytes()).hexdigest()}  {archive.name}\n")
    done = fileindex("kit", "run", archive, "--impl", ADAPTER, "--workdir", place["work"])
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"matches {published.name}" in done.stderr
    published.write_text(f"{'0' * 64}  {archive.name}\n")
    shutil.rmtree(place["work"])
    run_refused(place, "kit.tar.gz", "altered tarball", target=archive)
    published.unlink()
    shutil.rmtree(place["work"], ignore_errors=True)
    done = fileindex("kit", "run", archive, "--impl", ADAPTER, "--workdir", place["work"])
    assert done.returncode == 0 and "no kit.tar.gz.sha256 beside it" in done.stderr


ESCAPES = {
    "symlink chain": ([member(f"{KIT}/", tarfile.DIRTYPE), member(f"{KIT}/a", tarfile.SYMTYPE, link="."),
                       member(f"{KIT}/a/b", tarfile.SYMTYPE, link="../../outside"),
                       member(f"{KIT}/a/b/escaped", data=b"x")], "symlink"),
    "dotdot member": ([member(f"{KIT}/"), member(f"{KIT}/../outside/escaped", data=b"x")], "'..'"),
    "absolute member": ([member(f"{KIT}/", tarfile.DIRTYPE), member("/tmp/escaped-by-kit", data=b"x")],
                        "absolute path"),
    "hard link": ([member(f"{KIT}/", tarfile.DIRTYPE), member(f"{KIT}/h", tarfile.LNKTYPE, link="/etc/passwd")],
                  "hard link"),
    "device": ([member(f"{KIT}/", tarfile.DIRTYPE), member(f"{KIT}/zero", tarfile.CHRTYPE)], "a device"),
    "pipe": ([member(f"{KIT}/", tarfile.DIRTYPE), member(f"{KIT}/fifo", tarfile.FIFOTYPE)], "named pipe"),
    "two top folders": ([member(f"{KIT}/", tarfile.DIRTYPE), member("other/file", data=b"x")], "one folder"),
}


@pytest.mark.parametrize("case", sorted(ESCAPES))
def test_a_tarball_holds_only_regular_files_and_folders_under_one_folder(place, case):
    members, fragment = ESCAPES[case]
    archive = pack(place, members)
    run_refused(place, fragment, target=archive)
    assert not (place["outside"] / "escaped").exists() and not Path("/tmp/escaped-by-kit").exists()


def test_a_tarball_with_too_many_members_is_refused(place):
    archive = pack(place, [member(f"{KIT}/", tarfile.DIRTYPE)] + [member(f"{KIT}/f{i}") for i in range(20_001)])
    run_refused(place, "more than 20,000 members", target=archive)


def test_a_member_over_the_size_limit_is_refused_before_it_is_written(place):
    archive = pack(place, [member(f"{KIT}/", tarfile.DIRTYPE), member(f"{KIT}/big", data=bytes((64 << 20) + 1))])
    run_refused(place, "big", "more than the limit", target=archive)
    assert not list(place["work"].rglob("big"))


def test_a_huge_pax_header_is_refused_before_tarfile_reads_it_whole(place):
    info, data = member(f"{KIT}/file", data=b"x")
    info.pax_headers = {"comment": "x" * (2 << 20)}  # tarfile reads a pax header in one piece
    archive = place["root"] / "pax.tar.gz"
    with tarfile.open(archive, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        tar.addfile(info, io.BytesIO(data))
    run_refused(place, "a header or read of", target=archive)


def test_the_unpacked_total_is_capped(place, tmp_path):
    from fileindex.errors import ConfinementError
    from fileindex.kit.archive import Limits, unpack

    archive = corpus_tarball(place)
    with pytest.raises(ConfinementError, match="more than 10,000 bytes unpacked"):
        unpack(archive, tmp_path / "into", Limits(total_bytes=10_000))
    with pytest.raises(ConfinementError, match="more than 10 members"):
        unpack(archive, tmp_path / "into2", Limits(members=10))


# ----------------------------------------------------------------------------------------------- outputs

def test_reports_refuse_symlinks_and_files_of_the_corpus(place):
    victim = place["outside"] / "victim.json"
    link = place["root"] / "report.json"
    link.symlink_to(victim)
    run_refused(place, "is a symlink", code=2, extra=("--json", link))
    snapshot_file = next((place["kit"] / TABLE / "table" / "snapshot").iterdir())
    run_refused(place, "lies inside input", code=2, extra=("--html", snapshot_file))
    archive = corpus_tarball(place)
    sha = archive.with_name(archive.name + ".sha256")
    sha.write_text("0" * 64 + "\n")
    run_refused(place, "--json", code=2, target=archive, extra=("--json", sha))


def test_the_work_folder_lies_outside_the_corpus(place):
    before = snapshot(place["root"], place["kit"] / "work")
    done = fileindex("kit", "run", place["kit"], "--impl", place["impl"], "--workdir", place["kit"] / "work")
    refused(done, "--workdir", "lies inside input", code=2)
    assert snapshot(place["root"], place["kit"] / "work") == before and not place["marker"].exists()


def test_export_writes_no_tarball_through_a_symlink(tmp_path):
    from fileindex.cli import main

    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / f"{KIT}.tar.gz").symlink_to(victim)
    assert main(["kit", "export", str(tmp_path / "out")]) == 2
    assert victim.read_text() == "keep" and not (tmp_path / "out" / KIT).exists()
