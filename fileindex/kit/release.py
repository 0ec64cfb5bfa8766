"""The files that let another project vendor the corpus: ``README.md`` (with the adapter contract), ``LICENSE``,
``NOTICE`` and ``CHANGELOG.md``.

``NOTICE`` credits the third-party data the corpus bundles: the Tier 2 tables come from the test data
of alibaba/paimon-cpp (Apache-2.0), and their list is taken from :data:`fileindex.kit.tables.TABLES`
so that it cannot drift from what an export holds; the tables Java Paimon 0.9.0 wrote for the kit
(:data:`fileindex.kit.tables.JAVA_TABLES`) are credited to Apache Paimon.
"""
from __future__ import annotations

from collections.abc import Callable

from pathlib import Path

from fileindex.errors import UsageError
from fileindex.kit.tables import JAVA_TABLES, TABLES

HERE = Path(__file__).resolve().parent  # a checkout reached through a link: the files beside the real one
DOCS = HERE.parents[1] / "docs" / "kit.md"  # the adapter contract: one text, in the docs and in README.md
CONTRACT = ("## The adapter contract", "### This project's adapters")
PAIMON_CPP = "alibaba/paimon-cpp (https://github.com/alibaba/paimon-cpp), commit 43d9d027, test/test_data/"


def notice() -> str:
    tables = "\n".join(f"  - tables/{name}/table/ (from {folder.split('/')[0]})" for name, folder, _, _ in TABLES)
    written = "\n".join(f"  - tables/{name}/table/ (written by Java Paimon 0.9.0, {db.removesuffix('.db')})"
                        for name, db, _ in JAVA_TABLES)
    return f"""Conformance kit for Apache Paimon's file index (paimon-fileindex-kit)
Copyright the paimon-fileindex authors. Licensed under the Apache License, Version 2.0 (LICENSE).

This corpus bundles third-party test data:

* Paimon tables written by Java Paimon 1.x, copied unmodified from the test data of
  {PAIMON_CPP}.
  Copyright 2024-present Alibaba Inc. Licensed under the Apache License, Version 2.0.
{tables}

* The containers of containers/v1/ and containers/multi/ (but multi__or_bitmap_bloom) and the
  answers marked "java-recorded" were written and recorded by running Apache Paimon
  (https://github.com/apache/paimon; the commit is in each sidecar's "writer"), and so were these
  tables (their file indexes built by paimon-fileindex):
{written}
  Apache Paimon, Copyright The Apache Software Foundation. Licensed under the Apache License,
  Version 2.0. This product includes software developed at The Apache Software Foundation
  (http://www.apache.org/).
"""


def readme() -> bytes:
    """The corpus's README.md: fileindex/kit/README.kit.md, then the adapter contract of docs/kit.md."""
    if not DOCS.is_file():
        raise UsageError(f"{DOCS} is missing: export the kit from a source checkout (it holds docs/kit.md)")
    text = DOCS.read_text(encoding="utf-8")
    start, end = text.index(CONTRACT[0]), text.index(CONTRACT[1])
    return ((HERE / "README.kit.md").read_text(encoding="utf-8").rstrip("\n") + "\n\n" + text[start:end].rstrip("\n")
            + "\n").encode()


def add_release_files(add: Callable[[str, bytes], None]) -> None:
    """README.md, LICENSE, NOTICE and CHANGELOG.md into the corpus (``add(path, bytes)``)."""
    add("README.md", readme())
    add("LICENSE", (HERE / "LICENSE.kit").read_bytes())
    add("NOTICE", notice().encode())
    add("CHANGELOG.md", (HERE / "CHANGELOG.kit.md").read_bytes())
