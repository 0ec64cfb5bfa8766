#!/usr/bin/env python3
"""The recipe of tests/vectors/pypaimon-rust/: containers pypaimon-rust 0.4.0 writes, through the kit's adapter.

    python tools/pypaimon_rust_vectors.py [--out tests/vectors/pypaimon-rust]

Each vector is a one-column container of column ``c`` that pypaimon-rust writes for a dataset of
tests/vectors/java/datasets with the index options given (a one-file table through its write builder; the
container taken from the table, as tools/kit_pypaimon_rust_adapter.py's ``write`` does). ``vectors.json``
lists them with their dataset, type, index type, options and SHA-256, and ``java_identical``: whether the
body is the one Java's writer (this project's byte-identical writer) produces for the same rows. The peer
runs in .venv-peer (made from the package registry on first use) or ``$PYPAIMON_RUST_PYTHON``.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

DATASETS = ROOT / "tests" / "vectors" / "java" / "datasets"
# (name, dataset, type, index type, options): small ones, of every index type
RECIPE = [
    ("int_nulls__bitmap_v2", "int_nulls", "INT", "bitmap", {}),
    ("str_mixed__bitmap_v2", "str_mixed", "STRING", "bitmap", {}),
    ("int_nulls__bsi", "int_nulls", "INT", "bsi", {}),
    ("int_nulls__bloom", "int_nulls", "INT", "bloom-filter", {"items": "20", "fpp": "0.01"}),
    ("int_nulls__range_bitmap", "int_nulls", "INT", "range-bitmap", {}),
]


def java_identical(body: bytes, dataset: str, type_text: str, index_type: str, options: dict) -> bool:
    from fileindex.indexes.registry import INDEX_TYPES
    from fileindex.reference.vector_format import value_from_json
    from fileindex.types import parse_type

    data_type = parse_type(type_text)
    values = [value_from_json(v, data_type) for v in json.loads((DATASETS / f"{dataset}.json").read_text())["values"]]
    return INDEX_TYPES[index_type].build(values, data_type, options) == body


def main() -> int:
    from kit_pypaimon_rust_adapter import PEER, VERSION, write

    from fileindex.container.file import FileIndexContainer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "vectors" / "pypaimon-rust")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    listed = []
    try:
        for name, dataset, type_text, index_type, options in RECIPE:
            path = args.out / f"{name}.index"
            answer = write({"dataset": str(DATASETS / f"{dataset}.json"), "column": "c", "type": type_text,
                            "index_type": index_type, "options": options, "container_version": 1, "out": str(path)})
            if "written" not in answer:
                sys.exit(f"pypaimon_rust_vectors: {name}: {answer}")
            data = path.read_bytes()
            with FileIndexContainer.from_bytes(data) as container:
                (entry,) = list(container)
                body = bytes(container.body(entry))
            listed.append({"name": name, "file": path.name, "dataset": dataset, "type": type_text,
                           "index_type": index_type, "options": options, "sha256": hashlib.sha256(data).hexdigest(),
                           "java_identical": java_identical(body, dataset, type_text, index_type, options)})
    finally:
        PEER.close()
    document = {"writer": {"implementation": "pypaimon-rust", "version": VERSION},
                "recipe": "python tools/pypaimon_rust_vectors.py", "vectors": listed}
    (args.out / "vectors.json").write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {len(listed)} vectors into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
