#!/usr/bin/env python3
"""Rewrite the matrix of docs/kit-matrix.md from a live run: this project's adapter, Java 0.9.0's
(tools/kit_java_adapter.py) and pypaimon-rust 0.4.0's (tools/kit_pypaimon_rust_adapter.py, in .venv-peer)
over a fresh export of the corpus, producer × consumer.

    python tools/kit_matrix.py            # rewrites the block between the kit-matrix markers
    python tools/kit_matrix.py --check    # exit 1 when the page differs from a live run

tests/kit/test_kit_pypaimon_rust.py checks the page the same way (the pypaimon-rust adapter's
peer comes from .venv-peer, made on first use, or $PYPAIMON_RUST_PYTHON).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's package, not whichever one the venv installed
PAGE = ROOT / "docs" / "kit-matrix.md"
BEGIN, END = "<!-- kit-matrix: begin (tools/kit_matrix.py) -->", "<!-- kit-matrix: end -->"
ADAPTERS = [f"{sys.executable} -m fileindex kit adapter", f"{sys.executable} {ROOT / 'tools' / 'kit_java_adapter.py'}",
            f"{sys.executable} {ROOT / 'tools' / 'kit_pypaimon_rust_adapter.py'}"]


def live_matrix() -> str:
    from fileindex.kit.export import export
    from fileindex.kit.report import markdown
    from fileindex.kit.runner import run

    with tempfile.TemporaryDirectory() as scratch:
        folder, _, _ = export(Path(scratch) / "kit")
        return markdown(run(folder, ADAPTERS, Path(scratch) / "work"))


def with_matrix(page: str, table: str) -> str:
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{table}\n{END}{tail}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    page = PAGE.read_text(encoding="utf-8")
    fresh = with_matrix(page, live_matrix())
    if args.check:
        print("docs/kit-matrix.md is current" if fresh == page else "docs/kit-matrix.md differs from a live run")
        return 0 if fresh == page else 1
    PAGE.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
