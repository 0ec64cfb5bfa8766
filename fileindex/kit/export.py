"""``fileindex kit export``: the corpus folder and its reproducible tarball.

Tier 2 (:mod:`fileindex.kit.tables`) comes from the Java-written tables of ``tests/tables/parquet``.
Tier 1 comes from a folder laid out like ``tests/vectors/java`` (Java-written containers, Java's
answers): each container is copied under ``containers/v1/<layout>/`` with a sidecar, and re-framed
as the proposed container version 2 under ``containers/v2/<layout>/`` (checked against the SHA-256
of the file Java's proposal code wrote, where ``frames.json`` records it). The answers are those
current Java gives (:func:`fileindex.reference.vector_format.current_java_answer`); where older
versions answered otherwise, the case says since when and what they answered.
"""
from __future__ import annotations

from fileindex.container.head import IndexEntry
from fileindex.types import DataType

import gzip
import io
import json
import tarfile
from pathlib import Path

from fileindex import __version__
from fileindex.confined import read_inside
from fileindex.container.file import FileIndexContainer
from fileindex.container.writer import reframe
from fileindex.errors import UsageError
from fileindex.io.atomic import write_atomically
from fileindex.kit import negative
from fileindex.kit.corpus import (
    NAME,
    PROPOSED_V2,
    VERSION,
    dump_json,
    expected_from_recorded,
    head_entries,
    layout_name,
    predicate_columns,
    sha256,
)
from fileindex.kit.derived import derived_cases
from fileindex.kit.hashes import vectors as hash_vectors
from fileindex.kit.provenance import COPIED_FROM_V1, DERIVED, EVALUATION, JAVA_RECORDED, spec, stamped
from fileindex.kit.release import add_release_files
from fileindex.kit.rules import add_rule_cases
from fileindex.kit.schemas import SCHEMAS
from fileindex.kit.tables import add_tables
from fileindex.predicate.tree import Leaf
from fileindex.reference.conformance import load_vectors
from fileindex.reference.predicate_json import predicate_to_json
from fileindex.reference.vector_format import current_java_answer, recorded_query
from fileindex.types import parse_type
from fileindex.writing.outputs import check_file_output, replacing_folder

TIMESTAMP_FIX = "apache/paimon #9654, #9866"  # TIMESTAMP(7-9) value predicates on bitmap and bsi answer REMAIN


def default_vectors() -> Path:
    """The Java-written vectors of this project's source tree (an export is made from a checkout)."""
    return Path(__file__).resolve().parents[2] / "tests" / "vectors" / "java"


class Corpus:
    """The files of a corpus being written: path → bytes (written in one go, in sorted order)."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def add(self, path: str, data: bytes) -> None:
        if path in self.files:
            raise UsageError(f"two corpus files at {path}")
        self.files[path] = data


def build_corpus(vectors: str | Path | None = None, tables: str | Path | None = None) -> Corpus:
    """The corpus from a folder laid out like ``tests/vectors/java`` and one like ``tests/tables/parquet``
    (by default this checkout's)."""
    vectors = Path(vectors) if vectors is not None else default_vectors()
    tables = Path(tables) if tables is not None else vectors.parent.parent / "tables" / "parquet"
    if not (vectors / "vectors.json").is_file():
        raise UsageError(f"{vectors} holds no vectors.json: give --vectors a folder laid out like tests/vectors/java "
                         "(an export is made from a source checkout)")
    if not tables.is_dir():
        raise UsageError(f"{tables} is not a folder: give --tables the Java-written tables (tests/tables/parquet)")
    document = load_vectors(vectors)
    commit = (vectors / "PAIMON_COMMIT").read_text().strip() if (vectors / "PAIMON_COMMIT").is_file() else "unknown"
    frames = _frames(vectors.parent / "java-v2" / "frames.json")
    corpus = Corpus()
    counts: dict = {"v1": {}, "v2": {}, "multi": 0, "refusals": 0, "bad": {}}
    datasets: set[str] = set()
    refusals = []
    for record in document["vectors"]:
        datasets.add(record["dataset"])
        if record["status"] != "ok":
            refusals.append(stamped({"name": record["name"], "type": record["type"],
                                     "index_type": record["index_type"],
                                     "layout": layout_name(record["index_type"], None, record["options"]),
                                     "options": record["options"], "dataset": f"datasets/{record['dataset']}.json",
                                     "java": record["status"]}, JAVA_RECORDED, spec(record["index_type"])))
            continue
        data = read_inside(vectors, record["file"], what=f"{record['name']}: file")
        _add_tier1(corpus, counts, record, data, commit, frames)
    corpus.add("refusals.json", dump_json({"refusals": refusals}))
    counts["refusals"] = len(refusals)
    for record in document.get("multi_column") or ():
        if "dataset" in record:
            datasets.add(record["dataset"])
        _add_multi(corpus, record, read_inside(vectors, record["file"], what=f"{record['name']}: file"), commit)
        counts["multi"] += 1
    counts["multi"] += add_rule_cases(corpus.add)
    for name in sorted(datasets):
        corpus.add(f"datasets/{name}.json", read_inside(vectors, f"datasets/{name}.json", what="dataset"))
    counts["tables"] = add_tables(corpus.add, tables)
    sources = {name: corpus.files[f"containers/v1/{layout}/int_nulls__{name}.index"]
               for name, layout in (("bloom", "bloom-filter"), ("bitmap_v1", "bitmap-v1"), ("bitmap_v2", "bitmap-v2"),
                                    ("bsi", "bsi"), ("range_bitmap", "range-bitmap"))}
    for case, data in negative.cases(sources):
        corpus.add(f"bad/{case['name']}.index", data)
        corpus.add(f"bad/{case['name']}.json", dump_json(case))
        counts["bad"][case["rule"]] = counts["bad"].get(case["rule"], 0) + 1
    hashes = hash_vectors()
    corpus.add("hashes.json", dump_json(hashes))
    counts["hashes"] = len(hashes["cases"])
    for name, schema in SCHEMAS.items():
        corpus.add(f"schemas/{name}.schema.json", dump_json(schema))
    add_release_files(corpus.add)
    corpus.add("VERSION", f"{VERSION}\n".encode())
    manifest = {"kit_version": VERSION, "exported_by": f"paimon-fileindex {__version__}",
                "java_vectors_commit": commit, "datasets": len(datasets), "cases": counts,
                "files": {path: sha256(data) for path, data in sorted(corpus.files.items())},
                "sizes": {path: len(data) for path, data in sorted(corpus.files.items())}}
    corpus.add("manifest.json", dump_json(manifest))
    return corpus


def _frames(path: Path) -> dict:
    return json.loads(path.read_text())["frames"] if path.is_file() else {}


def _add_tier1(corpus: Corpus, counts: dict, record: dict, data: bytes, commit: str, frames: dict) -> None:
    name, index_type = record["name"], record["index_type"]
    data_type = parse_type(record["type"])
    container = FileIndexContainer.from_bytes(data, source=record["file"])
    entry = next(iter(container))
    body = container.body(entry)
    payload = b"" if body is None else bytes(body)
    layout = layout_name(index_type, payload)
    cases = [_case(index_type, data_type, query) for query in record.get("queries", [])]
    cases += derived_cases(index_type, cases)
    copied = [{**case, "expected_from": COPIED_FROM_V1} for case in cases]  # version 2: version 1's answers
    base = {"name": name, "tier": 1, "type": record["type"], "index_type": index_type, "layout": layout,
            "options": record["options"], "dataset": f"datasets/{record['dataset']}.json",
            "column": entry.column, "row_count": record["row_count"], "payload_sha256": sha256(payload)}
    v1 = {**base, "container_version": 1, "status": "released",
          "writer": {"implementation": "java", "version": f"apache/paimon@{commit}"},
          "file": f"{name}.index", "sha256": sha256(data), "head": head_entries(container), "cases": cases}
    corpus.add(f"containers/v1/{layout}/{name}.index", data)
    corpus.add(f"containers/v1/{layout}/{name}.json", dump_json(v1))
    v2_data = reframe(data, 2)
    java_v2 = frames.get(name, {}).get("sha256") == sha256(v2_data)
    v2 = {**base, "container_version": 2, "status": PROPOSED_V2,
          "writer": ({"implementation": "java", "version": "apache/paimon PR #10101 (FileIndexFormatV2.Writer)"}
                     if java_v2 else {"implementation": "python", "version": f"paimon-fileindex {__version__}"}),
          "file": f"{name}.index", "sha256": sha256(v2_data),
          "head": head_entries(FileIndexContainer.from_bytes(v2_data)), "cases": copied}
    corpus.add(f"containers/v2/{layout}/{name}.index", v2_data)
    corpus.add(f"containers/v2/{layout}/{name}.json", dump_json(v2))
    for version in ("v1", "v2"):
        tally = counts[version].setdefault(layout, {"containers": 0, "cases": 0})
        tally["containers"] += 1
        tally["cases"] += len(cases)


def _case(index_type: str, data_type: DataType, query: dict) -> dict:
    operator, literals = recorded_query(query["op"], data_type)
    expected = expected_from_recorded(current_java_answer(index_type, data_type, query["op"], query["result"]))
    case: dict = {"where": predicate_to_json(Leaf(operator, "c", literals), {"c": data_type}), "expected": expected}
    if expected != expected_from_recorded(query["result"]):  # the recorded answer, corrected by the later fix's rule
        case["since"] = TIMESTAMP_FIX
        case["before"] = {"expected": expected_from_recorded(query["result"]),
                          "why": f"older Java compared micro-second truncated values: unsound; {TIMESTAMP_FIX}"}
        return stamped(case, DERIVED, spec(index_type))
    return stamped(case, JAVA_RECORDED, spec(index_type))


def _add_multi(corpus: Corpus, record: dict, data: bytes, commit: str) -> None:
    container = FileIndexContainer.from_bytes(data, source=record["file"])
    sidecar = {"name": record["name"], "tier": 1, "container_version": container.head.version,
               "status": "released", "layout": "multi-column",
               "writer": {"implementation": "java", "version": f"apache/paimon@{commit}"},
               "file": record["file"], "sha256": sha256(data), "head": head_entries(container),
               "layouts": sorted({layout_name(e.index_type, _payload(container, e)) for e in container}),
               "empty_is_skip": True, "cases": []}
    if "note" in record:
        sidecar["note"] = record["note"]
    if "dataset" in record:
        sidecar["dataset"] = f"datasets/{record['dataset']}.json"
    layouts_of: dict[str, set[str]] = {}
    for e in container:
        layouts_of.setdefault(e.column, set()).add(layout_name(e.index_type, _payload(container, e)))
    cases = [stamped({"where": case["java_predicate"], "java_toString": case["java_toString"],
                      "expected": expected_from_recorded(case["result"])}, JAVA_RECORDED, EVALUATION)
             for case in record.get("predicates", ())]
    for case in cases:  # what a reader must read for this case: the layouts of the columns it names
        case["layouts"] = sorted(set().union(*(layouts_of.get(c, set()) for c in predicate_columns(case["where"]))))
    sidecar["cases"] = cases
    corpus.add(f"containers/multi/{record['file']}", data)
    corpus.add(f"containers/multi/{record['name']}.json", dump_json(sidecar))


def _payload(container: FileIndexContainer, entry: IndexEntry) -> bytes | None:
    body = container.body(entry)
    return None if body is None else bytes(body)


def tarball(corpus: Corpus) -> bytes:
    """The corpus as a ``.tar.gz`` whose bytes depend on its files only: sorted members, mtime 0,
    uid/gid 0 without names, fixed modes, a gzip header without a name or a time."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as archive:
        directories = sorted({str(Path(NAME, path).parent) for path in corpus.files} |
                             {str(parent) for path in corpus.files for parent in Path(NAME, path).parents
                              if str(parent) != "."})
        for directory in directories:
            archive.addfile(_member(directory, tarfile.DIRTYPE, 0o755, 0))
        for path, data in sorted(corpus.files.items()):
            archive.addfile(_member(f"{NAME}/{path}", tarfile.REGTYPE, 0o644, len(data)), io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0, compresslevel=9) as packed:
        packed.write(raw.getvalue())
    return out.getvalue()


def _member(name: str, kind: bytes, mode: int, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.size, info.mtime = kind, mode, size, 0
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def export(out: str | Path, vectors: str | Path | None = None,
           tables: str | Path | None = None) -> tuple[Path, Path, str]:
    """Write ``OUT/<NAME>/`` and ``OUT/<NAME>.tar.gz`` (+ ``.sha256``); the folder, the tarball and its SHA-256.
    The folder is written under a temporary name and renamed into place last: an export that fails or is
    interrupted leaves none of them (an earlier tarball stays)."""
    out = Path(out)
    folder, archive = out / NAME, out / f"{NAME}.tar.gz"
    published = archive.with_name(archive.name + ".sha256")
    if folder.is_symlink() or (folder.exists() and any(folder.iterdir())):
        raise UsageError(f"{folder} exists and is not empty: export into another folder or remove it")
    sources = [s for s in (vectors, tables) if s is not None]
    out.mkdir(parents=True, exist_ok=True)
    for target in (archive, published):
        check_file_output(target, sources, what="kit export")
    corpus = build_corpus(vectors, tables)
    packed = tarball(corpus)
    digest = sha256(packed)
    written: list[Path] = []
    try:
        with replacing_folder(folder, overwrite=False, what="OUT", command="kit export", mark=False) as writing:
            for path, data in corpus.files.items():
                target = writing / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            for target, content in ((archive, packed), (published, f"{digest}  {archive.name}\n".encode())):
                write_atomically(target, content)
                written.append(target)
    except BaseException:
        for target in written:
            target.unlink(missing_ok=True)
        raise
    return folder, archive, digest
