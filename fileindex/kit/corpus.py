"""The corpus a kit folder holds, and the canonical shapes answers are compared in (docs/kit.md).

A folder ``paimon-fileindex-kit-<VERSION>/`` holds ``manifest.json`` (its version, the cases per
tier, every file's SHA-256), ``datasets/``, ``containers/v1/<layout>/`` and ``containers/v2/<layout>/``
(Tier 1: one ``.index`` and its ``.json`` sidecar per case), ``containers/multi/`` (containers of
several columns), ``tables/<case>/`` (Tier 2: a table and its ``case.json``), ``refusals.json``
(combinations a writer must refuse), ``bad/`` (the negative corpus) and ``schemas/``.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from fileindex.confined import MAX_JSON_BYTES, folder_inside, inside, read_regular
from fileindex.container.file import FileIndexContainer
from fileindex.errors import UsageError
from fileindex.indexes.registry import INDEX_TYPES

VERSION = "2.1.0"
NAME = f"paimon-fileindex-kit-{VERSION}"
PROPOSED_V2 = "proposed: container version 2 of apache/paimon PR #10101, not merged upstream"

# The answer to a read: {"result": "REMAIN"} | {"result": "SKIP"} | {"result": "ROWS", "ranges": [[a, b], ...]}
RESULTS = ("REMAIN", "SKIP", "ROWS")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def dump_json(document: Any) -> bytes:
    """The corpus's one JSON spelling: sorted keys, two-space indent, UTF-8, a final newline."""
    return (json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def expected_from_recorded(recorded: Any) -> dict:
    """A recorded Java answer (``tests/vectors/java``'s shape) in the kit's answer shape."""
    if isinstance(recorded, str):
        return {"result": recorded}
    if "ranges" in recorded:
        return {"result": "ROWS", "ranges": recorded["ranges"]}
    # more than 256 ranges: the count, the first 32 rows and a digest of all rows stand for them
    return {"result": "ROWS", "cardinality": recorded["cardinality"], "first32": recorded["first32"],
            "rows_sha256": recorded["sha256_rows_int32be"]}


def rows_of(ranges: Iterable[Sequence[int]]) -> list[int]:
    return [row for first, last in ranges for row in range(first, last + 1)]


def shown(answer: Any, limit: int = 160) -> str:
    """An adapter's answer in a failure's detail: as the JSON it sent, cut at ``limit`` characters."""
    return json.dumps(answer, ensure_ascii=False)[:limit]


class Unsound(str):
    """A wrong answer that may drop rows: it keeps fewer rows than the expected one, or others (fix these first)."""


class Imprecise(str):
    """A wrong answer that costs time only: it keeps every row the expected one keeps, and more."""


def answer_problem(answer: dict, expected: dict, *, empty_is_skip: bool = False) -> str | None:
    """Why ``answer`` is not ``expected`` (None when it is). ``empty_is_skip``: an empty row set and
    SKIP both mean "not remain" (whole-file answers, where Java's visiting order decides which)."""
    got = answer.get("result")
    if got not in RESULTS:
        return f"not an answer: {shown(answer)}"
    if got == "ROWS":
        ranges = answer.get("ranges")
        if not isinstance(ranges, list) or not all(isinstance(r, list) and len(r) == 2 for r in ranges):
            return f"ROWS without a list of [first, last] ranges: {shown(answer)}"
    if empty_is_skip and _empty(answer) and _empty(expected):
        return None
    if got != expected["result"]:
        return graded(answer, expected, f"{got} where {expected['result']} was expected")
    if got != "ROWS":
        return None
    if "ranges" in expected:
        return None if _merged(answer["ranges"]) == expected["ranges"] else graded(
            answer, expected, f"rows {_short(answer['ranges'])} where {_short(expected['ranges'])} were expected")
    rows = rows_of(answer["ranges"])
    digest = sha256(b"".join(row.to_bytes(4, "big", signed=True) for row in rows))
    if len(rows) != expected["cardinality"] or rows[:32] != expected["first32"] or digest != expected["rows_sha256"]:
        return graded(answer, expected, f"{len(rows)} rows (first {rows[:5]}) where {expected['cardinality']} "
                                         f"(first {expected['first32'][:5]}) were expected")
    return None


def graded(answer: dict, expected: list[dict] | dict, message: str) -> str:
    """``message`` as :class:`Imprecise` where the answer keeps every row an expected one keeps, else
    :class:`Unsound`."""
    choices = expected if isinstance(expected, list) else [expected]
    return Imprecise(message) if any(_keeps_all(answer, each) for each in choices) else Unsound(message)


def _keeps_all(answer: dict, expected: dict) -> bool:
    """Whether ``answer`` keeps every row ``expected`` keeps (REMAIN keeps all; an expected answer recorded as a
    count and a digest alone is not shown to be kept)."""
    if answer["result"] == "REMAIN" or _empty(expected):
        return True
    if expected["result"] == "REMAIN" or answer["result"] == "SKIP" or "ranges" not in expected:
        return False
    kept = _merged(answer["ranges"])
    return all(any(first <= a and b <= last for first, last in kept) for a, b in _merged(expected["ranges"]))


def _empty(answer: dict) -> bool:
    return answer.get("result") == "SKIP" or (answer.get("result") == "ROWS" and not answer.get("ranges")
                                              and not answer.get("cardinality"))


def _merged(ranges: Iterable[Sequence[int]]) -> list[list[int]]:
    """Ranges as the maximal ascending runs (an adapter may split a run in two)."""
    merged: list[list[int]] = []
    for first, last in sorted((int(r[0]), int(r[1])) for r in ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    return merged


def _short(ranges: Sequence[Sequence[int]]) -> str:
    text = json.dumps(ranges)
    return text if len(text) <= 60 else text[:57] + "..."


def layout_name(index_type: str, payload: bytes | None, options: dict | None = None) -> str:
    index = INDEX_TYPES[index_type]
    return index.layout_of(payload, options).replace(" ", "-")


def head_entries(container: FileIndexContainer) -> dict:
    """The decoded HEAD in the adapters' shape: file order, each entry with its payload's SHA-256."""
    columns: list[dict] = []
    for entry in container:
        if not columns or columns[-1]["column"] != entry.column:
            columns.append({"column": entry.column, "indexes": []})
        body = container.body(entry)
        columns[-1]["indexes"].append({"index_type": entry.index_type, "start": entry.start, "length": entry.length,
                                       "payload_sha256": None if body is None else sha256(bytes(body))})
    return {"version": container.head.version, "columns": columns}


def predicate_columns(form: dict) -> list[str]:
    """The columns a predicate's structured form names."""
    if "children" in form:
        return [column for child in form["children"] for column in predicate_columns(child)]
    return [form["column"]]


def canonical_head(head: dict) -> list[tuple]:
    """A decoded HEAD as comparable entries, in no particular order: producers order columns
    differently (Java by HashMap iteration, paimon-cpp sorted), so only the same producer's bytes
    are compared byte for byte."""
    return sorted((column["column"], entry["index_type"], entry.get("payload_sha256"))
                  for column in head.get("columns", ()) for entry in column.get("indexes", ()))


@dataclass(frozen=True)
class Case:
    """One Tier 1 sidecar and where it lies."""
    path: Path  # the sidecar
    sidecar: dict

    @property
    def name(self) -> str:
        return self.sidecar["name"]

    @property
    def file(self) -> Path:
        """The container (Tier 1, bad) or the table root (Tier 2), inside the sidecar's folder."""
        if "file" in self.sidecar:
            return inside(self.path.parent, self.sidecar["file"], what=f"{self.path}: \"file\"")
        return folder_inside(self.path.parent, self.sidecar.get("table"), what=f"{self.path}: \"table\"")

    @property
    def layout(self) -> str:
        return self.sidecar["layout"]


def load_json(path: Path) -> Any:
    """A JSON document of the corpus: a regular file of at most ``MAX_JSON_BYTES``."""
    if not path.exists() and not path.is_symlink():
        raise UsageError(f"{path} is missing: is this a kit folder (fileindex kit export writes one)?")
    try:
        return json.loads(read_regular(path, what="corpus file", limit=MAX_JSON_BYTES).decode("utf-8"))
    except ValueError as err:
        raise UsageError(f"{path} is not JSON: {err}") from None
    except RecursionError:
        raise UsageError(f"{path}: JSON nested too deeply to read") from None


def dataset_path(folder: Path, name: object) -> Path:
    """A dataset a sidecar or a refusal names (``datasets/….json``), inside the corpus folder."""
    return inside(folder, name, what="dataset")


def open_corpus(folder: str | Path) -> tuple[Path, dict]:
    """A kit folder, resolved (the paths of its cases are: a relative folder would not contain them), and its
    manifest (a UsageError naming what is missing otherwise)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UsageError(f"{folder} does not exist: give a kit folder or tarball (fileindex kit export writes both)")
    if not (folder / "manifest.json").exists():
        inside = sorted(p for p in folder.iterdir() if (p / "manifest.json").is_file())
        if inside:
            raise UsageError(f"{folder} holds a kit but is not one: give {inside[0]}")
    manifest = load_json(folder / "manifest.json")
    if not isinstance(manifest, dict) or "kit_version" not in manifest:
        raise UsageError(f"{folder / 'manifest.json'} is not a kit manifest (no kit_version)")
    return Path(os.path.realpath(folder)), manifest


def cases(folder: Path, kind: str) -> list[Case]:
    """The sidecars under ``containers/<kind>`` (``v1``, ``v2``, ``multi``), ``bad`` or ``tables``, by name."""
    if kind == "tables":
        return [Case(path, load_json(path)) for path in sorted((folder / "tables").glob("*/case.json"))]
    base = folder / ("bad" if kind == "bad" else f"containers/{kind}")
    return [Case(path, load_json(path)) for path in sorted(base.rglob("*.json"))]
