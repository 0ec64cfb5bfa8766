#!/usr/bin/env python3
"""Recipe of the primary-key tables under ``tests/tables/primary-keys/``: Java Paimon 0.9.0 writes
them (no deletion vectors; one table per merge engine and option set), reads every snapshot itself, and
its answers are recorded beside the tables.

    python tools/pk_tables.py [--out tests/tables] [--only TABLE ...]

Each table of TABLES is created by Java 0.9.0 (``tools/java/PkTables.java``, over its public catalog and
table API) and written in the steps listed: a batch commit of rows with their row kinds (``+I``, ``-U``,
``+U``, ``-D``), the same without compaction (``write_only``), or a full compaction of every bucket. The
tables are ``write-only`` (no compaction between commits, so keys repeat across level-0 files and the
compacted level) unless they say otherwise (the ``levels_*`` tables compact as Java does by itself). Then,
for every snapshot (from the step ``reads_from`` on), Java reads the table itself: its batch read without
a filter, and with each predicate of the table (ReadBuilder.withFilter, so Java's own pruning chooses the
files; rows kept by Predicate.test): the rows, and the data files its plan reads. Where Java throws (a merge
it refuses), the error is recorded. PROBES are option sets Java 0.9.0 refuses to write; their errors are recorded too.

The tables go to ``OUT/primary-keys/<table>/`` and the answers to ``OUT/primary-keys/java-answers.json`` (a
folder not named ``*.db``: the tests that walk the shared tables, all of them indexed append tables, do not
take these for theirs).
Needs a JDK, the 0.9.0 jar (tools/fetch_java_oracle.py) and pyspark's Hadoop client jars (tools/setup.sh
--test). ``tests/merge/test_pk_tables_recipe.py`` (marker ``java``) runs the recipe again and compares.
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]  # this checkout's fileindex
JAVA_SOURCES = (ROOT / "tools" / "java" / "KitAdapter.java", ROOT / "tools" / "java" / "PkTables.java")
COMPACT = "compact"
FOLDER = "primary-keys"


@dataclass
class PkTable:
    name: str
    columns: list[tuple[str, str]]
    primary_keys: list[str]
    options: dict[str, str]
    steps: list  # each a list of rows [kind, value, ...] (one commit) or COMPACT
    predicates: list[str] = field(default_factory=list)
    partition_keys: list[str] = field(default_factory=list)
    reads_from: int = 0  # Java reads the snapshots made from this step on (earlier ones: layouts other tables have)


def write_only(rows: list) -> dict:
    """A commit with no compaction after it (``write-only``), whatever the table says: its file stays on level 0."""
    return {"rows": rows, "options": {"write-only": "true"}}


def deduplicate() -> PkTable:
    """Two partitions, two buckets; updates, deletes, -U/+U pairs, a full compaction, re-inserted keys. Key
    (2024-01-01, 2) holds score 20 in the compacted file and 999 in a later level-0 file whose scores are all
    900 or more: a reader pruning file by file on ``score = 20`` would return the stale row."""
    days = ["2024-01-01", "2024-01-02"]
    first = [["+I", day, i, f"n{i % 4}", i * 10, i % 2 == 0] for day in days for i in range(12)]
    second = [["+U", days[0], i, "upd", i * 10 + 1, i % 2 == 1] for i in range(0, 12, 3)] + \
             [["+I", days[0], i, f"n{i % 4}", i * 10, True] for i in (12, 13, 14)]
    third = [["-D", days[0], 1, "n1", 10, False], ["-D", days[0], 4, "n0", 40, True],
             ["-U", days[0], 5, "n1", 50, False], ["+U", days[0], 5, "pair", 55, False],
             ["-D", days[1], 7, "n3", 70, False], ["+U", days[1], 8, None, 81, None]]
    fourth = [["+I", days[0], 1, "back", 11, True], ["+U", days[1], 2, "late", 21, False],
              ["-D", days[0], 12, "n0", 120, True]]
    fifth = [["+U", days[0], 2, "zz", 999, False], ["+U", days[0], 10, "zz", 900, True],
             ["+U", days[0], 11, "zz", 950, True]]
    return PkTable(
        "deduplicate", [("dt", "STRING"), ("id", "INT"), ("name", "STRING"), ("score", "BIGINT"),
                        ("flag", "BOOLEAN")], ["dt", "id"],
        {"bucket": "2", "write-only": "true", "file.format": "parquet"},
        [first, second, third, COMPACT, fourth, fifth],
        ["id = 2", "id IN (1, 5, 12)", "id < 4", "score = 20", "score >= 900", "name = 'upd'",
         "flag = true AND id > 6", "dt = '2024-01-02' AND score < 50", "name = 'back' OR score = 999",
         "name IS NULL", "dt = '2024-01-01' AND id = 2", "name = 'zz'"],
        ["dt"])


def deduplicate_levels() -> PkTable:
    """Compaction as Java runs it by itself (universal compaction, a sorted-run trigger of 2, five levels): a
    large first commit on the top level, small updates compacted to the level below it, so files on three
    levels at once; a key of two fields, a string first."""
    rng = random.Random(7)
    regions = ["apac", "eu", "us"]
    base = [["+I", regions[key % 3], key, key, f"base-{key * 7919 % 10007:05d}-{key * 31 % 97:02d}"]
            for key in range(300)]  # (enough bytes that compacting two small runs leaves it alone)
    steps: list = [base]
    for commit in range(1, 7):
        rows = []
        for key in sorted(rng.sample(range(40), 10)):
            kind = "-D" if rng.random() < 0.15 else "+U"
            rows.append([kind, regions[key % 3], key, commit * 100 + key, f"s{rng.randrange(5)}"])
        steps.append(rows)
    return PkTable("deduplicate_levels", [("region", "STRING"), ("id", "BIGINT"), ("v", "INT"), ("s", "STRING")],
                   ["region", "id"], {"bucket": "1", "num-sorted-run.compaction-trigger": "2", "num-levels": "5",
                                      "file.format": "parquet"}, steps,
                   ["id = 7", "id BETWEEN 10 AND 20", "v >= 500", "v < 100", "s = 's1'", "id > 30 OR v = 301",
                    "region = 'eu' AND id < 20"])


def deduplicate_sequence() -> PkTable:
    """``sequence.field`` of two fields (ts, ver): updates arriving out of order, ties on ts broken by ver,
    a null ver (the smallest), deletes older than the row (ignored) and newer (applied)."""
    first = [["+I", i, f"a{i}", 100, 1] for i in range(10)]
    second = [["+U", 0, "older", 99, 9], ["+U", 1, "newer", 101, 0], ["+U", 2, "same-ts-higher-ver", 100, 2],
              ["+U", 3, "same-ts-lower-ver", 100, 0], ["+U", 4, "null-ver", 100, None], ["+I", 10, "a10", 5, 5]]
    third = [["-D", 5, "a5", 50, 1], ["-D", 6, "a6", 200, 1], ["+U", 7, "tie", 100, 1]]
    fourth = [["+U", 1, "older-than-newer", 100, 7], ["+I", 6, "again", 150, 1], ["+U", 8, "latest", 300, 3]]
    return PkTable("deduplicate_sequence", [("id", "INT"), ("v", "STRING"), ("ts", "BIGINT"), ("ver", "INT")],
                   ["id"], {"bucket": "2", "write-only": "true", "sequence.field": "ts,ver",
                            "file.format": "parquet"},
                   [first, second, third, COMPACT, fourth],
                   ["id = 6", "ts >= 101", "ver IS NULL", "v = 'a5'", "id IN (0, 1, 2, 3)"])


def partial_update() -> PkTable:
    """The latest non-null value per column; deletes ignored (``partial-update.ignore-delete``)."""
    first = [["+I", i, f"a{i}", None, i * 10, None] for i in range(8)]
    second = [["+U", i, None, i, None, i % 2 == 0] for i in range(0, 8, 2)] + [["-D", 1, None, None, None, None]]
    third = [["+U", 3, "c3", None, None, True], ["+I", 8, None, 8, None, None]]
    fourth = [["+U", 0, None, None, 1000, None], ["-U", 2, "a2", 2, 20, True], ["+U", 2, "b2", None, None, None]]
    return PkTable("partial_update", [("id", "INT"), ("a", "STRING"), ("b", "INT"), ("c", "BIGINT"),
                                      ("d", "BOOLEAN")], ["id"],
                   {"bucket": "2", "write-only": "true", "merge-engine": "partial-update",
                    "partial-update.ignore-delete": "true", "file.format": "parquet"},
                   [first, second, COMPACT, third, fourth],
                   ["id = 2", "b IS NULL", "c >= 1000", "d = true", "a = 'b2'"])


def partial_update_groups() -> PkTable:
    """Sequence groups: ``g1`` orders a and b, (``g2``, ``g3``) order c and d, and d is summed within its
    group; updates out of order, a group left null (skipped), retractions (-U, -D) of one group."""
    first = [["+I", i, f"a{i}", i, 10, f"c{i}", i, 5, 1] for i in range(6)]
    second = [["+U", 0, "a0-old", 0, 9, None, None, None, None],  # g1 older: a, b kept
              ["+U", 1, "a1-new", 11, 11, None, None, None, None],  # g1 newer: a, b replaced
              ["+U", 2, None, None, None, "c2-new", 10, 5, 2],  # (g2, g3) newer on g3: c replaced, d summed
              ["+U", 3, None, None, None, "c3-old", 10, 4, 9]]  # (g2, g3) older: d summed the other way
    third = [["-U", 4, None, None, None, "c4", 4, 6, 0],  # retract of the newer (g2, g3): c nulled, d less
             ["-D", 5, "a5", 5, 12, None, None, None, None]]  # retract of g1: a, b nulled
    fourth = [["+U", 4, "a4-new", 44, 20, None, 1, 7, 0], ["+U", 5, None, None, None, "c5-new", 2, 8, 0]]
    return PkTable("partial_update_groups",
                   [("id", "INT"), ("a", "STRING"), ("b", "INT"), ("g1", "INT"), ("c", "STRING"), ("d", "INT"),
                    ("g2", "INT"), ("g3", "INT")], ["id"],
                   {"bucket": "1", "write-only": "true", "merge-engine": "partial-update",
                    "fields.g1.sequence-group": "a,b", "fields.g2,g3.sequence-group": "c,d",
                    "fields.d.aggregate-function": "sum", "file.format": "parquet"},
                   [first, second, third, COMPACT, fourth],
                   ["id = 4", "a IS NULL", "d > 5", "g1 >= 11"])


AGGREGATES = [("s", "INT", "sum"), ("p", "BIGINT", "product"), ("mn", "INT", "min"), ("mx", "STRING", "max"),
              ("lv", "STRING", "last_value"), ("lnn", "INT", "last_non_null_value"), ("fv", "STRING", "first_value"),
              ("fnn", "INT", "first_non_null_value"), ("band", "BOOLEAN", "bool_and"), ("bor", "BOOLEAN", "bool_or"),
              ("lagg", "STRING", "listagg"), ("dsum", "DOUBLE", None)]


def aggregation() -> PkTable:
    """Every aggregate function Java 0.9.0 has for these types, ``fields.default-aggregate-function`` (sum, for
    dsum), a listagg delimiter; retractions (-U, -D) where the function retracts (sum, product, last_value,
    last_non_null_value) and ignored elsewhere (``ignore-retract``); a key with a lone -D (dropped)."""
    rng = random.Random(11)
    words = ["x", "y", "z", "w"]

    def row(kind: str, key: int) -> list:
        return [kind, key, rng.randint(-5, 9), rng.choice([1, 2, 3, -1]), rng.randint(0, 50),
                rng.choice(words), rng.choice(words + [None]), rng.choice([None, rng.randint(0, 9)]),
                rng.choice(words + [None]), rng.choice([None, rng.randint(0, 9)]), rng.choice([True, False, None]),
                rng.choice([True, False, None]), rng.choice(words + [None]), rng.choice([0.5, 1.25, -2.0, None])]

    steps: list = [[row("+I", k) for k in range(8)], [row("+I", k) for k in range(0, 8, 2)]]
    steps.append([row("-U", 1), row("-D", 3), row("-D", 20)])
    steps.append(COMPACT)
    steps.append([row("+I", k) for k in (1, 3, 5)] + [row("-U", 6)])
    options = {"bucket": "2", "write-only": "true", "merge-engine": "aggregation",
               "fields.default-aggregate-function": "sum", "fields.lagg.list-agg-delimiter": "|",
               "file.format": "parquet"}
    for name, _, function in AGGREGATES:
        if function is not None:
            options[f"fields.{name}.aggregate-function"] = function
        if function in ("min", "max", "first_value", "first_non_null_value", "bool_and", "bool_or", "listagg"):
            options[f"fields.{name}.ignore-retract"] = "true"
    return PkTable("aggregation", [("id", "INT")] + [(name, t) for name, t, _ in AGGREGATES], ["id"], options,
                   steps, ["id = 3", "s > 10", "lv IS NULL", "band = true", "p < 0", "mn <= 5"])


def first_row() -> PkTable:
    """The first row per key; deletes ignored (``first-row.ignore-delete``). Batch reads skip level 0, so the
    rows of a commit appear only once a compaction has moved them up."""
    days = ["a", "b"]
    first = [["+I", day, i, f"{day}{i}-first", i] for day in days for i in range(6)]
    second = [["+I", "a", i, f"a{i}-second", 100 + i] for i in range(3, 9)] + [["-D", "b", 0, "b0-first", 0]]
    third = [["+I", "b", i, f"b{i}-third", 200 + i] for i in range(4, 8)]
    return PkTable("first_row", [("dt", "STRING"), ("id", "INT"), ("v", "STRING"), ("n", "INT")], ["dt", "id"],
                   {"bucket": "2", "write-only": "true", "merge-engine": "first-row",
                    "first-row.ignore-delete": "true", "file.format": "parquet"},
                   [first, second, COMPACT, third, COMPACT],
                   ["id = 3", "n >= 100", "v = 'a7-second'", "dt = 'b' AND id > 3"], ["dt"])


def partial_update_delete() -> PkTable:
    """A -D under partial-update with no option saying what it means: Java's read fails from then on."""
    return PkTable("partial_update_delete", [("id", "INT"), ("a", "STRING")], ["id"],
                   {"bucket": "1", "write-only": "true", "merge-engine": "partial-update", "file.format": "parquet"},
                   [[["+I", 1, "a"], ["+I", 2, "b"]], [["-D", 1, "a"]]], ["id = 2"])


def partial_update_remove() -> PkTable:
    """``partial-update.remove-record-on-delete``: a -D removes the row; an insert after it fails Java 0.9.0's
    merge (NullPointerException)."""
    return PkTable("partial_update_remove", [("id", "INT"), ("a", "STRING"), ("b", "INT")], ["id"],
                   {"bucket": "1", "write-only": "true", "merge-engine": "partial-update",
                    "partial-update.remove-record-on-delete": "true", "file.format": "parquet"},
                   [[["+I", 1, "a", None], ["+I", 2, "b", 2]], [["-D", 1, None, None], ["+U", 2, None, 3]],
                    [["+I", 1, None, 5]]], ["b = 3"])


def aggregation_retract() -> PkTable:
    """A retraction of ``min`` without ``ignore-retract``: Java's read fails from then on."""
    return PkTable("aggregation_retract", [("id", "INT"), ("m", "INT")], ["id"],
                   {"bucket": "1", "write-only": "true", "merge-engine": "aggregation",
                    "fields.m.aggregate-function": "min", "file.format": "parquet"},
                   [[["+I", 1, 5], ["+I", 2, 7]], [["-U", 1, 5]]], ["m = 7"])



def decimal(text: str, precision: int, scale: int) -> dict:
    """A DECIMAL value in the kit's JSON spelling."""
    return {"decimal": text, "precision": precision, "scale": scale}


def timestamp(micros: int) -> dict:
    """A TIMESTAMP value (micros since the epoch, before it too) in the kit's JSON spelling."""
    millis, rest = divmod(micros, 1000)
    return {"millis": millis, "nanos_of_milli": rest * 1000}


DAY = 19723  # 2024-01-01, in days since the epoch (DATE)


def typed_keys() -> PkTable:
    """A key of DATE, DECIMAL(10, 2) and TIMESTAMP(6) fields: values before the epoch and negative, keys that
    differ in one field only (the same day and amount a microsecond apart), updates, deletes and re-inserts
    across a full compaction."""
    days, amounts = [-1, DAY, DAY + 1], ["-3.07", "0.00", "1.50", "12.50"]
    micros = [-1, 1_704_067_200_000_000, 1_704_067_200_000_001]  # (1969-12-31 23:59:59.999999, then 2024-01-01)
    keys = [(d, a, t) for d in days for a in amounts for t in micros][::2]  # (18 keys, every field varied)

    def row(kind: str, number: int, v: int, s: str | None) -> list:
        d, a, t = keys[number]
        return [kind, d, decimal(a, 10, 2), timestamp(t), v, s]

    first = [row("+I", n, n, f"s{n % 3}") for n in range(len(keys))]
    second = [row("+U", n, 100 + n, "upd") for n in range(0, len(keys), 4)] + [row("-D", 3, 3, "s0")]
    third = [row("-D", 5, 5, "s2"), row("+I", 3, 300, "back"), row("-U", 7, 7, "s1"), row("+U", 7, 107, None)]
    fourth = [row("+U", 0, 999, "late"), row("-D", 9, 9, "s0"), row("+U", 10, 1000, "late")]
    return PkTable("typed_keys", [("day", "DATE"), ("amount", "DECIMAL(10, 2)"), ("ts", "TIMESTAMP(6)"),
                                  ("v", "INT"), ("s", "STRING")], ["day", "amount", "ts"],
                   {"bucket": "2", "write-only": "true", "file.format": "parquet"},
                   [first, second, third, COMPACT, fourth],
                   ["day = DATE '2024-01-01'", "day < DATE '2024-01-01'", "amount = 1.50", "amount <= 0",
                    "amount IN (-3.07, 12.50)", "ts = TIMESTAMP '2024-01-01 00:00:00.000001'",
                    "ts < TIMESTAMP '1970-01-01 00:00:00'", "day = DATE '2024-01-02' AND amount = 1.50",
                    "day = DATE '2024-01-01' AND amount = 0.00 AND ts = TIMESTAMP '2024-01-01 00:00:00'",
                    "v >= 100", "s = 'late' OR amount > 10"])


def single_key(name: str, kind: str, values: list, predicates: list[str]) -> PkTable:
    """A key of one field of type ``kind`` holding ``values`` (ascending), updated, deleted and re-inserted
    across a full compaction, in one bucket (so every file's keys overlap)."""
    def row(row_kind: str, number: int, v: int) -> list:
        return [row_kind, values[number], v]

    count = len(values)
    return PkTable(name, [("k", kind), ("v", "INT")], ["k"], {"bucket": "1", "write-only": "true",
                                                             "file.format": "parquet"},
                   [[row("+I", n, n) for n in range(count)], [row("+U", n, 100 + n) for n in range(0, count, 2)],
                    [row("-D", 1, 1), row("+U", 2, 202)], COMPACT, [row("+I", 1, 301), row("-D", count - 1, 0)]],
                   predicates)


def decimal_key() -> PkTable:
    """A DECIMAL(20, 4) key (wider than a long: Parquet's fixed-length bytes)."""
    texts = ["-99999999999999.9999", "-1.0000", "0.0001", "12.5000", "9223372036854775.8070"]
    return single_key("decimal_key", "DECIMAL(20, 4)", [decimal(t, 20, 4) for t in texts],
                      ["k = 0.0001", "k > 0", "k IN (-1, 12.5)", "v >= 100"])


def timestamp_key() -> PkTable:
    """A TIMESTAMP(3) key (millis), before the epoch and after it."""
    micros = [-86_400_000_000, -1000, 0, 1_704_067_200_123_000, 1_704_067_200_124_000]
    return single_key("timestamp_key", "TIMESTAMP(3)", [timestamp(m) for m in micros],
                      ["k = TIMESTAMP '2024-01-01 00:00:00.123'", "k < TIMESTAMP '1970-01-01 00:00:00'", "v >= 100"])


def date_key() -> PkTable:
    """A DATE key, before the epoch and after it."""
    return single_key("date_key", "DATE", [-719162, -1, 0, DAY, DAY + 1],
                      ["k = DATE '2024-01-02'", "k <= DATE '1970-01-01'", "v >= 100"])

# Tables compacted as Java compacts by itself (universal compaction, a sorted-run trigger of 2, five levels) and
# in full between commits, then given two commits without compaction: a bucket holds files on two levels above 0
# and overlapping level-0 files, with keys repeated across them. The first commit is large (a long string per
# key: compacting two small runs then leaves it alone, so they go to the level below it). The last commit updates
# keys to values far from the others (v 9000 and up, a sum 1000 larger), so its file's statistics exclude
# predicates the older versions of those rows match: a reader pruning file by file would return the older version.
LEVELLED = {"bucket": "1", "num-sorted-run.compaction-trigger": "2", "num-levels": "5", "file.format": "parquet"}
BASE_KEYS = 160
STALE_KEYS = (3, 14, 25, 36)  # updated by the last commit, each to a value its older versions never had


def padded(key: int) -> str:
    return f"base-{key * 7919 % 10007:05d}-{key * 31 % 97:02d}-{key * 104729 % 1000003:07d}"


def levelled_steps(base: Callable[[int], list], update: Callable[[int, int, str], list],
                   stale: Callable[[int], list]) -> list:
    """A first commit of BASE_KEYS keys, compacted in full; three compacting commits of updates and deletes
    (to the level below the top); a full compaction; two compacting commits; then two write-only commits (the
    last of them STALE_KEYS' updates). Java reads the snapshots from the second full compaction on."""
    rng = random.Random(56)

    def commit(number: int) -> list:
        return [update(number, key, "-D" if rng.random() < 0.15 else "+U") for key in sorted(rng.sample(range(48), 8))]

    return [[base(key) for key in range(BASE_KEYS)], COMPACT, commit(1), commit(2), commit(3), COMPACT, commit(4),
            commit(5), write_only(commit(6)), write_only([stale(key) for key in STALE_KEYS])]


READS_FROM = 5  # (the step of the full compaction between commits)


def levels_deduplicate() -> PkTable:
    steps = levelled_steps(lambda k: ["+I", k, k, padded(k)],
                           lambda n, k, kind: [kind, k, n * 100 + k, f"s{(n + k) % 3}"],
                           lambda k: ["+U", k, 9000 + k, "stale"])
    return PkTable("levels_deduplicate", [("id", "BIGINT"), ("v", "INT"), ("s", "STRING")], ["id"], LEVELLED, steps,
                   ["id = 7", "id BETWEEN 10 AND 30", "v < 40", "v >= 9000", "s = 's1'", "id > 150 OR v = 305",
                    "v BETWEEN 300 AND 600"], reads_from=READS_FROM)


def levels_sequence() -> PkTable:
    """``sequence.field`` ts: some updates carry an older ts than the row's and lose to it."""
    steps = levelled_steps(lambda k: ["+I", k, k, 100, padded(k)],
                           lambda n, k, kind: [kind, k, n * 100 + k, 100 + n * 10 - (5 if k % 4 == 0 else -5) * n,
                                               f"s{n}"],
                           lambda k: ["+U", k, 9000 + k, 10_000, "stale"])
    return PkTable("levels_sequence", [("id", "BIGINT"), ("v", "INT"), ("ts", "BIGINT"), ("s", "STRING")], ["id"],
                   {**LEVELLED, "sequence.field": "ts"}, steps,
                   ["id = 8", "v < 40", "v >= 9000", "ts < 100", "ts >= 150 AND id < 20", "id IN (0, 4, 8, 9)"],
                   reads_from=READS_FROM)


def levels_partial_update() -> PkTable:
    """Each update sets one or two of a, b, c (the others null, kept); deletes ignored."""
    def update(n: int, k: int, kind: str) -> list:
        return [kind, k, f"a{n}" if (n + k) % 2 else None, n * 100 + k if (n + k) % 3 else None,
                n if k % 2 else None]

    steps = levelled_steps(lambda k: ["+I", k, padded(k), k, None], update,
                           lambda k: ["+U", k, None, 9000 + k, None])
    return PkTable("levels_partial_update", [("id", "BIGINT"), ("a", "STRING"), ("b", "INT"), ("c", "INT")], ["id"],
                   {**LEVELLED, "merge-engine": "partial-update", "partial-update.ignore-delete": "true"}, steps,
                   ["id = 3", "b < 40", "b >= 9000", "c IS NOT NULL", "c >= 5 AND a = 'a4'", "a = 'a1' OR b = 401"],
                   reads_from=READS_FROM)


def levels_aggregation() -> PkTable:
    """s summed (deletes retract it), mx the max (retractions ignored), last the last non-null value."""
    steps = levelled_steps(lambda k: ["+I", k, k, k % 50, padded(k)],
                           lambda n, k, kind: [kind, k, n, n * 10 + k % 10, f"u{n}" if k % 3 else None],
                           lambda k: ["+U", k, 1000, 1, "stale"])
    return PkTable("levels_aggregation", [("id", "BIGINT"), ("s", "INT"), ("mx", "INT"), ("last", "STRING")], ["id"],
                   {**LEVELLED, "merge-engine": "aggregation", "fields.s.aggregate-function": "sum",
                    "fields.mx.aggregate-function": "max", "fields.mx.ignore-retract": "true"}, steps,
                   ["id = 14", "s < 20", "s >= 1000", "mx >= 60", "last = 'u5'", "s < 3 OR mx > 70"],
                   reads_from=READS_FROM)


def levels_first_row() -> PkTable:
    """The first row per key (deletes ignored), compacted by lookup: each key once above level 0."""
    steps = levelled_steps(lambda k: ["+I", k * 2, k, padded(k)],  # (even keys first; updates add odd)
                           lambda n, k, kind: [kind, k, n * 100 + k, f"u{n}"],
                           lambda k: ["+I", k + 1000, 9000 + k, "late"])
    return PkTable("levels_first_row", [("id", "BIGINT"), ("v", "INT"), ("s", "STRING")], ["id"],
                   {**LEVELLED, "merge-engine": "first-row", "first-row.ignore-delete": "true"}, steps,
                   ["id = 7", "v >= 100", "s = 'u2'", "id > 1000", "v < 10 AND id < 50", "v >= 150"],
                   reads_from=READS_FROM)


LEVELS_TABLES = [levels_deduplicate, levels_sequence, levels_partial_update, levels_aggregation, levels_first_row]
TABLES = [deduplicate, deduplicate_levels, deduplicate_sequence, partial_update, partial_update_groups,
          aggregation, first_row, partial_update_delete, partial_update_remove, aggregation_retract, *LEVELS_TABLES,
          typed_keys, decimal_key, timestamp_key, date_key]

# options Java 0.9.0 refuses when writing (the error is recorded)
PROBES = {
    "aggregation count": PkTable("probe_count", [("id", "INT"), ("c", "BIGINT")], ["id"],
                                 {"bucket": "1", "merge-engine": "aggregation", "fields.c.aggregate-function": "count"},
                                 [[["+I", 1, 1]]]),
    "first-row with a delete": PkTable("probe_first_row_delete", [("id", "INT"), ("v", "INT")], ["id"],
                                       {"bucket": "1", "merge-engine": "first-row"},
                                       [[["+I", 1, 1]], [["-D", 1, 1]]]),
    "first-row with sequence.field": PkTable("probe_first_row_sequence", [("id", "INT"), ("v", "INT")], ["id"],
                                             {"bucket": "1", "merge-engine": "first-row", "sequence.field": "v"},
                                             [[["+I", 1, 1]]]),
}


class JavaPk:
    """One JVM running tools/java/PkTables.java over Java Paimon 0.9.0."""

    def __init__(self, folder: str = "pk-tables-java"):
        from kit_java_adapter import DEFAULT_JAR, compiled, hadoop_jars

        classes = compiled(DEFAULT_JAR, JAVA_SOURCES, folder)  # (.cache/FOLDER)
        jars = hadoop_jars()
        if not jars:
            sys.exit("pk_tables: pyspark's Hadoop client jars are missing (tools/setup.sh --test installs them)")
        path = ":".join(map(str, [classes, DEFAULT_JAR, *jars]))
        self.process = subprocess.Popen(["java", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", path,
                                         "PkTables"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)

    def ask(self, request: dict) -> dict:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            sys.exit("pk_tables: the Java program stopped answering")
        return json.loads(line)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


def write(java: JavaPk, warehouse: Path, table: PkTable) -> tuple[Path | None, list[int], str | None]:
    """(the table's root, the snapshot each step made, Java's error where it refused a step)."""
    created = java.ask({"op": "create", "warehouse": str(warehouse), "table": table.name,
                        "columns": [list(c) for c in table.columns], "primary_keys": table.primary_keys,
                        "partition_keys": table.partition_keys, "options": table.options})
    if "error" in created:
        return None, [], created["error"]
    root = Path(created["path"])
    snapshots = []
    for step in table.steps:
        if step == COMPACT:
            request = {"op": "compact", "table": str(root)}
        elif isinstance(step, dict):
            request = {"op": "commit", "table": str(root), **step}
        else:
            request = {"op": "commit", "table": str(root), "rows": step}
        done = java.ask(request)
        if "error" in done:
            return root, snapshots, done["error"]
        snapshots.append(done["snapshot"])
    return root, snapshots, None


def java_reads(java: JavaPk, root: Path, table: PkTable, snapshots: list[int]) -> list[dict]:
    """Per snapshot: Java's read without a filter and under each predicate (rows sorted, files planned)."""
    from fileindex.kit.rows import sort_rows
    from fileindex.predicate.parser import parse_predicate
    from fileindex.reference.predicate_json import predicate_to_json
    from fileindex.table.metadata import load_schema
    from fileindex.table.store import TableStore

    types = load_schema(TableStore(root), 0).types()
    reads = []
    first = snapshots[table.reads_from - 1] + 1 if table.reads_from else 1
    for snapshot in range(first, max(snapshots) + 1):  # (a commit that compacts makes two snapshots)
        for text in [None, *table.predicates]:
            request = {"op": "read", "table": str(root), "snapshot": snapshot}
            if text is not None:
                request["where"] = predicate_to_json(parse_predicate(text, types), types)
            answer = java.ask(request)
            read = {"snapshot": snapshot, "where": text}
            if "error" in answer:
                read["error"] = answer["error"]
            else:
                read.update(files=answer["files"], rows=sort_rows(answer["rows"]))
            reads.append(read)
    return reads


def record(warehouse: Path, java: JavaPk, tables: list[PkTable]) -> dict:
    """Write every table and probe under ``warehouse``; Java's answers, by table."""
    answers: dict = {"writer": "Java Paimon 0.9.0 (tools/pk_tables.py, tools/java/PkTables.java)",
                     "tables": {}, "refused_writes": {}}
    for table in tables:
        root, snapshots, error = write(java, warehouse, table)
        if root is None or error is not None:
            sys.exit(f"pk_tables: Java 0.9.0 did not write {table.name}: {error}")
        answers["tables"][table.name] = {"options": table.options, "steps": len(table.steps),
                                         "snapshots": snapshots, "reads": java_reads(java, root, table, snapshots)}
    for what, probe in PROBES.items():
        _, _, error = write(java, warehouse / "probes", probe)
        if error is None:
            sys.exit(f"pk_tables: Java 0.9.0 wrote the probe {what!r}, expected a refusal")
        answers["refused_writes"][what] = {"options": probe.options, "error": error}
    return answers


def answers_text(answers: dict) -> str:
    """The answers as JSON, one read per line (a read's rows on one line keep the file small and its diffs
    readable)."""
    def dumps(value: object) -> str:
        return json.dumps(value, ensure_ascii=False)

    tables = []
    for name, table in answers["tables"].items():
        fields = [f'   {dumps(key)}: {dumps(value)}' for key, value in table.items() if key != "reads"]
        reads = ",\n".join(f"    {dumps(read)}" for read in table["reads"])
        tables.append(f"  {dumps(name)}: {{\n" + ",\n".join(fields + [f'   "reads": [\n{reads}\n   ]']) + "\n  }")
    others = [f" {dumps(key)}: {json.dumps(value, indent=1, ensure_ascii=False)}" for key, value in answers.items()
              if key != "tables"]
    text = "{\n" + ",\n".join(others + [' "tables": {\n' + ",\n".join(tables) + "\n }"]) + "\n}\n"
    assert json.loads(text) == answers
    return text


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "tables",
                        help=f"the folder receiving {FOLDER}/ (default: tests/tables)")
    parser.add_argument("--only", nargs="+", metavar="TABLE", choices=[make.__name__ for make in TABLES],
                        help="write these tables again, keeping the others and their answers")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "tools"))
    makers = [make for make in TABLES if args.only is None or make.__name__ in args.only]
    folder = args.out / FOLDER
    java = JavaPk()
    try:
        with tempfile.TemporaryDirectory(prefix="pk-tables-") as scratch:
            answers = record(Path(scratch), java, [make() for make in makers])
            if args.only is None:
                shutil.rmtree(folder, ignore_errors=True)
                shutil.copytree(Path(scratch) / "db.db", folder)
            else:
                kept = json.loads((folder / "java-answers.json").read_text())["tables"]
                answers["tables"] = {make.__name__: answers["tables"].get(make.__name__) or kept[make.__name__]
                                     for make in TABLES}
                for make in makers:
                    shutil.rmtree(folder / make.__name__, ignore_errors=True)
                    shutil.copytree(Path(scratch) / "db.db" / make.__name__, folder / make.__name__)
    finally:
        java.close()
    (folder / "java-answers.json").write_text(answers_text(answers))
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    print(f"wrote {len(makers)} of {len(answers['tables'])} tables under {folder} ({size} B)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
