"""Tier 2: Java-written Paimon tables and the verdicts their file indexes give, per live data file.

The tables are those of ``tests/tables/parquet`` (written by Java Paimon 1.x, published as test
data by alibaba/paimon-cpp); the expected answers are the facts ``tests/tables/README.md`` records
from Java and the paimon-cpp tests (the rows an index selects, REMAIN, or a skipped file), never
this project's answers. ``JAVA_TABLES`` are tables Java Paimon 0.9.0 wrote and answered itself, recorded
by a recipe under ``tools/`` (its plan's whole-file verdicts and its full read, ``java-answers.json``
beside the table), per-file verdicts only where Java's plan of the table without its indexes keeps every
file (else statistics, not an index, decided). A file is named by its row count here and by its path in the exported
sidecar (the table's manifests give each live file's row count). Every case also gives the rows a
full read returns (:mod:`fileindex.kit.rows`, from the data); a case without recorded per-file facts
(the data-evolution table's) gives only those rows.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fileindex.scan.table import PaimonTable

import json
from pathlib import Path

from fileindex.kit.corpus import dump_json, layout_name
from fileindex.kit.provenance import DERIVED, JAVA_RECORDED, PEER_RECORDED, TABLE
from fileindex.kit.rows import matching_rows, table_columns
from fileindex.reference.predicate_json import predicate_to_json

WRITER = {"implementation": "java", "version": "Paimon 1.x (tables of alibaba/paimon-cpp@43d9d027, test/test_data)"}
SKIPPED = "SKIP"  # "none (file skipped)": SKIP or an empty row set (empty_is_skip)

BITMAP_FACTS: dict[str, str | list[int]] = {
    "f0 = 'Alice'": [0, 7], "f0 <> 'Alice'": [1, 2, 3, 4, 5, 6], "f1 = 20": [4, 6, 7], "f2 = 1": [0, 1, 4, 5],
    "f2 IS NULL": [7], "f2 IS NOT NULL": [0, 1, 2, 3, 4, 5, 6], "f0 IN ('Alice', 'Bob', 'Lucy')": [0, 1, 4, 5, 7],
    "f0 NOT IN ('Alice', 'Bob', 'Lucy')": [2, 3, 6], "f0 = 'Alice' AND f1 = 20": [7],
    "f0 = 'Alice' OR f1 = 20": [0, 4, 6, 7], "f1 = 30": SKIPPED, "f1 > 10": "REMAIN", "f3 = 14.1": "REMAIN",
}
BSI_FACTS: dict[str, str | list[int]] = {
    "f1 = 100": [0, 5], "f2 <> -2": [1, 2, 3, 4, 5], "f1 > 100": [1, 2, 4], "f2 >= -1": [2, 3, 4, 5],
    "f2 IN (-1, 2, -2)": [0, 4, 5, 6], "f1 NOT IN (100, 400, 200)": [2, 3, 4, 7], "f1 > 100 AND f2 <= 0": [1, 4],
    # rows 0-5: f1 is null at 6 and f2 at 7 only (the rows listed in tests/tables/README.md)
    "f1 IS NOT NULL AND f2 IS NOT NULL": [0, 1, 2, 3, 4, 5], "f0 = 'Alice'": "REMAIN",
}
BLOOM_FACTS: dict[str, str | list[int]] = {
    **dict.fromkeys(["f0 = 'Alice'", "f1 = 200", "f2 = -1", "f3 = 13.1", "f1 <> 200", "f2 IS NULL", "f1 > 200",
                     "f2 IN (-1, 2, 100)"], "REMAIN"),
    **dict.fromkeys(["f0 = 'Alice2'", "f1 = 201", "f2 = 0", "f3 = 13.2", "f2 IN (-1000, 0, 1000)"], SKIPPED),
}

# (case, table folder under tests/tables/parquet, what it exercises, {predicate: {row count of the file: answer}})
TABLES: list[tuple[str, str, str, dict[str, dict[int, str | list[int]]]]] = [
    ("append_with_bitmap", "append_with_bitmap.db/append_with_bitmap", "embedded bitmap V2 (in the manifest)",
     {p: {8: a} for p, a in BITMAP_FACTS.items()}),
    ("append_with_bitmap_v1", "append_with_bitmap_v1.db/append_with_bitmap_v1", "embedded bitmap V1",
     {p: {8: a} for p, a in BITMAP_FACTS.items()}),
    ("append_with_bitmap_sidecar", "append_with_bitmap_no_embedding.db/append_with_bitmap_no_embedding",
     "sidecar bitmap (<data>.index)", {p: {8: a} for p, a in BITMAP_FACTS.items()}),
    ("append_with_bsi", "append_with_bsi.db/append_with_bsi", "sidecar bsi", {p: {8: a} for p, a in BSI_FACTS.items()}),
    ("append_with_bloomfilter", "append_with_bloomfilter.db/append_with_bloomfilter", "sidecar bloom-filter",
     {p: {8: a} for p, a in BLOOM_FACTS.items()}),
    ("append_with_bsi_bitmap_bloomfilter", "append_with_bsi_bitmap_bloomfilter.db/append_with_bsi_bitmap_bloomfilter",
     "several index types per column", {"f3 = 14.1": {8: "REMAIN"}, "f3 = 14.13": {8: SKIPPED},
                                        "f0 = 'Alice'": {8: [0, 7]}}),
    ("append_with_bitmap_alter_table", "append_with_bitmap_alter_table.db/append_with_bitmap_alter_table",
     "schema evolution: indexes matched by field id (f0 renamed f4)", {"f4 = 'Alice'": {8: [0, 7], 4: [0]}}),
    ("pk_with_bitmap_dv", "pk_with_bitmap_dv.db/pk_with_bitmap_dv",
     "primary key + deletion vectors: the index's rows minus the deleted ones", {"f0 = 'Alice'": {8: [7]}}),
    # no recorded per-file facts: rows only. f2 of rows 0-3 was rewritten (12 -> 102, ...) by a newer file.
    ("data_evolution_with_index", "data_evolution_with_index.db/data_evolution_with_index",
     "data evolution: a row's columns stitched from several files by first row id, the newest writer's f2",
     dict.fromkeys(["f2 = 104", "f2 = 14", "f2 > 150", "f0 = 'Alice'", "f0 IS NULL", "f3 > 4.0 AND f2 < 200",
                    "f1 = 2 OR f2 = 204"], {})),
]

# (case, folder under tests/tables/parquet holding the table <case>/ and java-answers.json, what it exercises)
JAVA_TABLES: list[tuple[str, str, str]] = [
    ("drop_column_rewritten", "drop_column_rewritten.db",
     "DROP COLUMN tag, ADD COLUMN tag (a new field id), RENAME name TO label, then file indexes rewritten "
     "(apache/paimon #10091): the older files' tag is another field, their label index is under name"),
]
JAVA_WRITER = {"implementation": "java", "version": "Paimon 0.9.0 (tools/kit_drop_column_table.py); "
                                                   "file indexes by paimon-fileindex rewrite"}


def table_sources() -> list[tuple[str, str]]:
    """(case, the table's folder under tests/tables/parquet) of every Tier 2 table."""
    return [(name, folder) for name, folder, _, _ in TABLES] + [(name, f"{db}/{name}") for name, db, _ in JAVA_TABLES]


def java_answers(tables: Path, db: str) -> list[dict]:
    """The answers Java gave (``java-answers.json``), but those where it threw (no answer to expect)."""
    recorded = json.loads((tables / db / "java-answers.json").read_text(encoding="utf-8"))
    return [answer for answer in recorded["cases"] if "error" not in answer]


def expected_answer(fact: str | list[int]) -> dict:
    if isinstance(fact, str):
        return {"result": fact}
    ranges: list[list[int]] = []
    for row in fact:
        if ranges and row == ranges[-1][1] + 1:
            ranges[-1][1] = row
        else:
            ranges.append([row, row])
    return {"result": "ROWS", "ranges": ranges}


def add_tables(add: Callable[[str, bytes], None], tables: Path) -> dict:
    """Every Tier 2 case into the corpus (``add(path, bytes)``); the counts for the manifest."""
    from fileindex.scan.table import PaimonTable

    counts = {"tables": 0, "cases": 0}
    for name, folder, what, facts in TABLES:
        root = tables / folder
        table = PaimonTable(root)
        by_rows = {entry.row_count: table.relative(entry) for entry, _ in table.live()}
        schema = table.schema.types()
        cases = [{"where": predicate_to_json(table.parse(text), schema), "sql": text,
                  "expected": _expected(root, table, text, {by_rows[rows]: expected_answer(fact)
                                                            for rows, fact in per_file.items()}),
                  # the per-file verdicts are the recorded facts; the rows follow from the data
                  "expected_from": {**({"files": PEER_RECORDED} if per_file else {}), "rows": DERIVED},
                  "spec": TABLE}
                 for text, per_file in facts.items()]
        _add_table(add, name, root, table, cases, {
            "writer": WRITER, "exercises": what,
            "source": "tests/tables/README.md of paimon-fileindex: facts from Java and the paimon-cpp tests"})
        counts["tables"] += 1
        counts["cases"] += len(cases)
    for name, db, what in JAVA_TABLES:
        root = tables / db / name
        table = PaimonTable(root)
        schema = table.schema.types()
        cases = []
        for answer in java_answers(tables, db):
            # Java's verdicts are its plan's: the indexes' only where its plan without them keeps every file
            by_index = all(kept["result"] == "REMAIN" for kept in answer["files_without_index"].values())
            files = {"files": answer["files"]} if by_index else {}
            cases.append({"where": predicate_to_json(table.parse(answer["sql"]), schema), "sql": answer["sql"],
                          "expected": {**files, "rows": answer["rows"]}, "spec": TABLE,
                          "expected_from": {**dict.fromkeys(files, JAVA_RECORDED), "rows": JAVA_RECORDED}})
        _add_table(add, name, root, table, cases, {
            "writer": JAVA_WRITER, "exercises": what, "whole_files": True,
            "source": f"tests/tables/parquet/{db}/java-answers.json of paimon-fileindex: Java Paimon 0.9.0's "
                      "own plan (the files it keeps) and full read, through tools/kit_java_adapter.py"})
        counts["tables"] += 1
        counts["cases"] += len(cases)
    return counts


def _add_table(add: Callable[[str, bytes], None], name: str, root: Path, table: PaimonTable, cases: list[dict],
               about: dict) -> None:
    """The table's files, whole, and its case.json (``about``: writer, exercises, source, whole_files)."""
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        add(f"tables/{name}/table/{path.relative_to(root).as_posix()}", path.read_bytes())
    add(f"tables/{name}/case.json", dump_json({
        "name": name, "tier": 2, "layout": "table", "layouts": sorted({"table"} | _index_layouts(table)),
        "container_version": 1, "table": "table", "columns": table_columns(table), "empty_is_skip": True,
        **about, "cases": cases}))


def _expected(root: Path, table: PaimonTable, text: str, files: dict) -> dict:
    rows = {"rows": matching_rows(root, table.parse(text))}
    return {"files": files, **rows} if files else rows


def _index_layouts(table: PaimonTable) -> set[str]:
    """The layouts of every index entry of every live data file (a reader of all of them is asked)."""
    found = set()
    for entry, _ in table.live():
        _, container, _ = table.container(entry)
        if container is None:
            continue
        with container:
            found |= {layout_name(e.index_type, None if e.is_empty else bytes(container.body(e) or b""))
                      for e in container}
    return found
