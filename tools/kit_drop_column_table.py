#!/usr/bin/env python3
"""Recipe of the Tier 2 table ``drop_column_rewritten`` (apache/paimon #10091): Java Paimon 0.9.0 writes
it, this project's ``rewrite`` indexes it, Java 0.9.0 answers every predicate, and the answers are recorded.

    python tools/kit_drop_column_table.py [--out tests/tables/parquet]

1. Java 0.9.0 writes an append table (id INT, name STRING, tag STRING; Parquet) in two commits (6 and 7
   rows), then runs ALTER TABLE three times: DROP COLUMN tag, ADD COLUMN tag STRING (a new field id under
   the dropped name), RENAME name TO label; then appends 9 rows with the new columns.
2. This project's ``table --set file-index.bitmap.columns=tag,label`` and ``rewrite`` build embedded
   bitmaps for every file: the two files written before the drop get `label` under its old name `name`
   and no `tag` (their `tag` column is the dropped field, whose values must not be indexed).
3. Java 0.9.0 expires every snapshot but the latest (the folder stays a few KB), then the kit's Java
   adapter (tools/kit_java_adapter.py) answers ``scan`` (which files its plan keeps) and ``rows`` (its
   full read) for each predicate of PREDICATES; its plan of the table as it wrote it (no index yet) is
   recorded too (``files_without_index``): where that keeps every file, statistics decide nothing and the
   files its plan drops afterwards are dropped by the indexes. Where Java throws (0.9.0 fails `tag IS NULL` here:
   IndexOutOfBoundsException, whenever a file lacking the column carries an embedded index, its own
   writer's or ours), the error is recorded instead, and the kit has no case of that predicate.

The table goes to ``OUT/drop_column_rewritten.db/drop_column_rewritten/`` and Java's answers to
``OUT/drop_column_rewritten.db/java-answers.json`` (read by fileindex/kit/tables.py). Needs a JDK, the
0.9.0 jar (tools/fetch_java_oracle.py) and pyspark's Hadoop client jars (tools/setup.sh --test).
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # this checkout's fileindex; the tests' Java helpers
NAME = "drop_column_rewritten"
PREDICATES = [
    "tag = 'old0'", "tag = 'old1'", "tag = 'new1'", "tag IS NULL", "tag IS NOT NULL",
    "tag IN ('old2', 'new3')", "label = 'n0_3'", "label = 'n9_3'", "label = 'nothing'", "label = 'a'",
    "label IN ('n1_3', 'n9_3')", "label = 'n0_3' OR label = 'nothing'", "tag = 'old0' AND label = 'a'",
    "tag = 'new1' OR label = 'n1_3'", "id = 103",
]
BEFORE = [("id", "INT"), ("name", "STRING"), ("tag", "STRING")]
AFTER = [("id", "INT"), ("label", "STRING"), ("tag", "STRING")]
OPTIONS = {"bucket": "-1", "file.format": "parquet"}
INDEXES = {"file-index.bitmap.columns": "tag,label"}


def label(commit: int, j: int) -> str:
    """'a' and 'z' in every file (min/max statistics never prune a label), one value of its own."""
    return f"n{commit}_{j}" if j == 3 else ["a", "z"][j % 2]


def commits() -> tuple[list[list[list]], list[list]]:
    """The rows before the drop (two commits: the dropped tag holds old0..old3) and after it (the new
    tag: 'a', 'z' for the statistics, new1..new3 and old0, a value only the dropped column held before)."""
    before = [[[c * 100 + j, label(c, j), f"old{j % 4}"] for j in range(rows)] for c, rows in ((0, 6), (1, 7))]
    after = [[900 + j, label(9, j), ["a", "z", "old0", "new1", "new3"][j % 5] if j != 4 else "new1"]
             for j in range(9)]
    return before, after


def write_table(warehouse: Path) -> tuple[Path, dict]:
    from java_oracle import JAR, JavaOracle, hadoop_jars
    from jdk import JavaProgram

    from fileindex.table.options_alter import alter_table_options
    from fileindex.table.rewrite import rewrite_file_index

    before, after = commits()
    oracle = JavaOracle(warehouse / "oracle", tables=True)
    try:
        root = oracle.write_table(warehouse, NAME, BEFORE, OPTIONS, before)
        oracle.alter_columns(warehouse, NAME, [["drop", "tag"], ["add", "tag", "STRING"], ["rename", "name", "label"]])
        oracle.write_table(warehouse, NAME, AFTER, OPTIONS, [after])
    finally:
        oracle.close()
    unindexed = {answer["sql"]: answer.get("files") for answer in java_answers(root)}
    alter_table_options(root, set=INDEXES)
    result = rewrite_file_index(root)
    if len(result.changed) != 3:
        sys.exit(f"kit_drop_column_table: the rewrite changed {len(result.changed)} files, not 3")
    probe = JavaProgram("TableProbe", warehouse / "oracle", [JAR, *hadoop_jars()],
                        ["--add-opens=java.base/java.nio=ALL-UNNAMED"])
    try:
        expired = json.loads(probe.ask(json.dumps({"op": "expire", "table": str(root), "keep": 1})))
    finally:
        probe.close()
    if "error" in expired:
        sys.exit(f"kit_drop_column_table: Java's expire failed: {expired['error']}")
    return root, unindexed


def java_answers(root: Path) -> list[dict]:
    """Each predicate's scan (files Java's plan keeps) and rows (Java's full read), from the kit's Java adapter."""
    from fileindex.kit.rows import sort_rows
    from fileindex.reference.predicate_json import predicate_to_json
    from fileindex import PaimonTable

    table = PaimonTable(root)
    schema = table.schema.types()
    adapter = subprocess.Popen([sys.executable, str(ROOT / "tools" / "kit_java_adapter.py"), "batch"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    stdin, stdout = adapter.stdin, adapter.stdout
    assert stdin is not None and stdout is not None

    def ask(request: dict) -> dict:
        stdin.write(json.dumps(request) + "\n")
        stdin.flush()
        answer = json.loads(stdout.readline())
        if answer.pop("id", None) != request["id"] or "unsupported" in answer:
            sys.exit(f"kit_drop_column_table: Java answered {answer} to {request}")
        return answer

    answers = []
    try:
        for number, text in enumerate(PREDICATES):
            where = predicate_to_json(table.parse(text), schema)
            scan = ask({"id": f"scan-{number}", "op": "scan", "table": str(root), "where": where})
            rows = ask({"id": f"rows-{number}", "op": "rows", "table": str(root), "where": where})
            if "error" in scan or "error" in rows:  # Java threw: recorded, and no case of the kit
                answers.append({"sql": text, "error": scan.get("error") or rows["error"]})
            else:
                answers.append({"sql": text, "files": scan["files"], "rows": sort_rows(rows["rows"])})
    finally:
        stdin.close()
        adapter.wait(timeout=60)
    return answers


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "tables" / "parquet",
                        help="the folder receiving drop_column_rewritten.db/ (default: tests/tables/parquet)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kit-drop-column-") as scratch:
        written, unindexed = write_table(Path(scratch))
        folder = args.out / f"{NAME}.db"
        if folder.exists():
            shutil.rmtree(folder)
        root = folder / NAME
        shutil.copytree(written, root)
    answers = [{**answer, "files_without_index": unindexed[answer["sql"]]} if "files" in answer else answer
               for answer in java_answers(root)]
    record = {"writer": "Java Paimon 0.9.0 (tools/kit_drop_column_table.py); file indexes by fileindex rewrite",
              "answers_from": "Java Paimon 0.9.0 through tools/kit_java_adapter.py: scan (the files its plan "
                              "keeps) and rows (its full read)", "cases": answers}
    (folder / "java-answers.json").write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {root.relative_to(args.out)} ({sum(p.stat().st_size for p in root.rglob('*') if p.is_file())} B) "
          f"and {len(answers)} Java answers")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
