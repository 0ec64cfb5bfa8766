"""Derive the fields of a vectors folder that are computed, never hand-written (docs/conformance.md):

* beside each multi-column predicate's ``java_toString``, its structured form ``java_predicate``,
  read from the text against the record's dataset schema (an ambiguous text is an error: write
  its structured form by other means);
* ``manifest``: how many records, queries, predicates and datasets the folder holds, so that
  ``fileindex conformance`` fails on a folder that lost any of them.

    python tools/derive_vector_fields.py [FOLDER]       (default tests/vectors/java)

vectors.json is rewritten in its own formatting (one-space indent, UTF-8); run it again after
adding records, and commit the result.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from fileindex.predicate.java import parse_java_predicate
from fileindex.reference.conformance import corpus_manifest, load_vectors
from fileindex.reference.predicate_json import predicate_to_json
from fileindex.types import parse_type

DEFAULT = Path(__file__).resolve().parent.parent / "tests" / "vectors" / "java"


def with_structured_predicates(folder: Path, document: dict) -> None:
    for record in document.get("multi_column", ()):
        if "dataset" not in record:
            continue
        raw = json.loads((folder / "datasets" / f"{record['dataset']}.json").read_text(encoding="utf-8"))
        schema = {column["name"]: parse_type(column["type"]) for column in raw["columns"]}
        for position, case in enumerate(record.get("predicates", ())):
            form = predicate_to_json(parse_java_predicate(case["java_toString"], schema), schema)
            record["predicates"][position] = _after(case, "java_toString", "java_predicate", form)


def _after(mapping: dict, anchor: str, key: str, value) -> dict:
    """``mapping`` with ``key`` set, placed right after ``anchor`` (the file reads in that order)."""
    items = [(k, v) for k, v in mapping.items() if k != key]
    at = next((i + 1 for i, (k, _) in enumerate(items) if k == anchor), len(items))
    return dict(items[:at] + [(key, value)] + items[at:])


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else DEFAULT
    document = load_vectors(folder)
    with_structured_predicates(folder, document)
    path = folder / "vectors.json"
    document = _after(document, "notes", "manifest", {})
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False), encoding="utf-8")
    document["manifest"] = corpus_manifest(folder)  # counted on the folder with its structured forms
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False), encoding="utf-8")
    print(f"{path}: {json.dumps(document['manifest'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
