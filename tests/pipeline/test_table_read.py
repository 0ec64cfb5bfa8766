"""``PaimonTable.scan``: every shared table read through the index-pruned scan, ``to_duckdb`` and ``to_polars``
gives exactly the rows of a plain read (every live row, deleted rows left out) filtered with the same semantics,
for predicates, projections and limits drawn by Hypothesis; ``explain`` counts what is opened; bad input is
one line."""
from __future__ import annotations

import json
import os
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from drawn_predicates import SHARED_TABLES, TABLES, Subject, plain_rows, predicates, row_key
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fileindex
from fileindex.cli.app import main
from fileindex.errors import UsageError
from fileindex import PaimonTable
from fileindex.scan.truth import matches
from fileindex.predicate.parser import parse_predicate
from fileindex.types import parse_type

READABLE = [p for p in SHARED_TABLES if "data_evolution" not in str(p)]
SETTINGS = settings(max_examples=12, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def subjects() -> dict[str, Subject]:
    found = {}
    for path in READABLE:
        types, rows = plain_rows(path)
        found[str(path)] = Subject(str(path), types, rows)
    return found


def expected(subject: Subject, where: str | None, columns: list[str]) -> list[str]:
    rows = subject.rows
    if where is not None:
        rows = rows.filter(matches(rows, parse_predicate(where, subject.types), subject.types))
    return [row_key(r) for r in rows.select(columns).to_pylist()]


def keys(table: pa.Table) -> list[str]:
    return [row_key(r) for r in table.to_pylist()]


@pytest.mark.parametrize("path", READABLE, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_a_scan_without_a_predicate_is_the_plain_read(subjects, path):
    subject = subjects[str(path)]
    scan = PaimonTable(path).scan()
    assert keys(scan.to_arrow()) == expected(subject, None, subject.rows.column_names)
    assert scan.explain().stages[-1].rows_after == subject.rows.num_rows


@pytest.mark.parametrize("path", READABLE, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
@SETTINGS
@given(data=st.data())
def test_every_drawn_scan_is_exact(subjects, path, data):
    subject = subjects[str(path)]
    where = data.draw(predicates(subject))
    names = subject.rows.column_names
    columns = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=len(names), unique=True))
    limit = data.draw(st.none() | st.integers(0, 5))
    table = PaimonTable(path)
    truth = expected(subject, where, columns)
    got = keys(table.scan(where, columns, limit).to_arrow())
    if limit is None:
        assert got == truth, where
    else:  # the first rows in the table's order
        assert got == truth[:limit], where
    relation = table.scan(where, columns).to_duckdb()
    assert sorted(keys(relation.to_arrow_table())) == sorted(truth), where
    assert relation.aggregate("count(*)").fetchall() == [(len(truth),)]  # a second query on the same relation
    frame = table.scan(where, columns).to_polars().collect()
    assert sorted(row_key(r) for r in frame.to_arrow().to_pylist()) == sorted(truth), where


def test_pandas_polars_and_duckdb_see_the_same_rows():
    path = TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"
    scan = fileindex.PaimonTable(path).scan("f1 = 20", ["f0", "f3"])
    assert isinstance(scan, fileindex.TableScan)
    assert scan.to_pandas()["f0"].tolist() == ["Lucy", "Tony", "Alice"]
    import duckdb
    import polars

    connection = duckdb.connect()
    scan.to_duckdb(connection, name="people")
    assert connection.sql("SELECT f0 FROM people WHERE f3 > 16 ORDER BY f0").fetchall() == [("Alice",), ("Tony",)]
    assert connection.sql("SELECT count(*) FROM people").fetchall() == [(3,)]
    assert polars.DataFrame(scan).height == 3  # the Arrow PyCapsule stream
    lazy = fileindex.PaimonTable(path).scan().to_polars()
    assert lazy.filter(polars.col("f1") == 20).select("f0").head(2).collect()["f0"].to_list() == ["Lucy", "Tony"]
    assert lazy.select(polars.len()).collect().item() == 8


def test_explain_counts_the_files_actually_opened(opened_files):
    path = TABLES / "parquet" / "append_with_bitmap_alter_table.db" / "append_with_bitmap_alter_table"
    opened = opened_files
    for where in ("f4 = 'Alice'", "f4 = 'nobody'", None):
        opened.clear()
        scan = PaimonTable(path).scan(where)
        explained = scan.explain()
        read = [f for f in explained.files if f.read != "none"]
        scan.to_arrow()
        assert len(set(opened)) == len(read) == explained.stages[-1].files_after, (where, opened)
        as_dict = explained.as_dict()
        (index_stage,) = [s for s in explained.stages if s.name == "file_index"]
        assert as_dict["file_skipping"] == {"before": index_stage.files_before, "after": index_stage.files_after}
        lines = len(explained.stages) + len(explained.files) + bool(explained.stages)  # (a header above the stages)
        assert json.dumps(as_dict) and str(explained).count("\n") == lines
        if where is not None:  # the column was renamed f0 -> f4: each file's index is named as the file has it
            assert sorted(f["indexes"] for f in as_dict["files"]) == [["f0:bitmap"], ["f4:bitmap"]]


def test_deleted_rows_and_orc_row_selections(subjects):
    for kind in ("parquet", "orc"):
        path = TABLES / kind / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"
        scan = PaimonTable(path).scan("f1 = 20")
        stages = {s.name: s for s in scan.explain().stages}
        assert stages["deletion_vectors"].rows_after < stages["deletion_vectors"].rows_before or \
            stages["file_index"].rows_after < stages["file_index"].rows_before
        assert keys(scan.to_arrow()) == expected(subjects[str(path)], "f1 = 20", subjects[str(path)].rows.column_names)


def test_a_missing_or_corrupt_index_reads_the_file(tmp_path):
    root = tmp_path / "t"
    shutil.copytree(TABLES / "parquet" / "append_with_bitmap_no_embedding.db" / "append_with_bitmap_no_embedding", root)
    (sidecar,) = (root / "bucket-0").glob("*.index")
    sidecar.write_bytes(b"garbage")
    scan = PaimonTable(root).scan("f0 = 'nobody-at-all'")
    (item,) = scan.explain().files
    assert item.read == "all" and "corrupt index" in item.reason
    assert scan.to_arrow().num_rows == 0
    sidecar.unlink()
    (item,) = PaimonTable(root).scan("f0 = 'Alice'").explain().files
    assert item.read == "all" and "missing" in item.reason


def test_the_scan_reads_its_snapshot(tmp_path, capsys):
    """A commit between planning and reading (a rewrite moving every index to a sidecar) does not change what
    the scan reads: it keeps its snapshot's files and indexes."""
    root = tmp_path / "t"
    shutil.copytree(TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap", root)
    table = PaimonTable(root)
    scan = table.scan("f1 = 20")
    planned = [(f.file, f.index, f.read) for f in scan.plan()]
    assert main(["table", str(root), "--set", "file-index.in-manifest-threshold=1 b"]) == 0
    assert main(["rewrite", str(root)]) == 0
    capsys.readouterr()
    assert PaimonTable(root).snapshot.id > table.snapshot.id
    assert {f.index for f in PaimonTable(root).scan("f1 = 20").plan()} == {"sidecar"}
    assert scan.to_arrow().column("f0").to_pylist() == ["Lucy", "Tony", "Alice"]
    assert [(f.file, f.index, f.read) for f in scan.plan()] == planned


def test_progress_is_shown_once_a_read_takes_a_second(monkeypatch, capsys):
    from fileindex.cli import read as read_command

    clock = iter(range(0, 1000, 2))
    monkeypatch.setattr(read_command.time, "perf_counter", lambda: next(clock))
    root = str(TABLES / "parquet" / "append_with_bitmap_alter_table.db" / "append_with_bitmap_alter_table")
    assert main(["read", root, "--json", "--progress"]) == 0  # (stderr is no terminal here: lines on request)
    err = capsys.readouterr().err
    assert "fileindex read: " in err and "rows read" in err and "\r" not in err


@pytest.mark.parametrize("call,message", [
    (lambda t: t.scan("f9 = 1"), "unknown column 'f9'"),
    (lambda t: t.scan(columns=["f0", "f11"]), "cannot select unknown column 'f11'"),
    (lambda t: t.scan(columns="f0"), "give a list of column names"),
    (lambda t: t.scan(columns=[]), "select at least one column"),
    (lambda t: t.scan(limit=-1), "limit=-1"),
])
def test_bad_input_says_what_to_fix(call, message):
    table = PaimonTable(TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap")
    with pytest.raises(UsageError, match=message):
        call(table)


def test_the_cli_reads_prints_writes_and_refuses(tmp_path, capsys):
    root = str(TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap")
    assert main(["read", root, "--where", "f1 = 20", "--select", "f0,f3"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0].split() == ["f0", "f3"] and len(out.splitlines()) == 4 and err == "3 rows\n"
    assert main(["read", root, "--where", "f1 = 20", "--json"]) == 0
    assert [json.loads(line)["f0"] for line in capsys.readouterr().out.splitlines()] == ["Lucy", "Tony", "Alice"]
    assert main(["read", root, "--where", "f1 = 20", "--explain", "--json"]) == 0
    explained = json.loads(capsys.readouterr().out)
    assert explained["file_skipping"] == {"before": 1, "after": 1}
    assert [s["stage"] for s in explained["stages"]] == ["statistics", "file_index"]  # (no deletion vectors)
    for suffix in (".parquet", ".csv", ".jsonl"):
        output = tmp_path / f"rows{suffix}"
        assert main(["read", root, "--where", "f1 = 20", "--output", str(output)]) == 0
        assert "wrote 3 rows" in capsys.readouterr().err
        if suffix == ".parquet":
            assert pq.read_table(output).column("f0").to_pylist() == ["Lucy", "Tony", "Alice"]
        assert main(["read", root, "--output", str(output)]) == 2
        assert "--overwrite" in capsys.readouterr().err
    (tmp_path / "link.parquet").symlink_to(f"{root}/bucket-0/x.parquet")
    for argv, message in [
        (["read", root, "--output", f"{root}/bucket-0/x.parquet"], "lies inside the table"),
        (["read", root, "--output", str(tmp_path / "link.parquet")], "(a symlink to a file there) lies inside"),
        (["read", root, "--output", str(tmp_path / "x.txt")], "name a .parquet, .csv or .jsonl file"),
        (["read", root, "--where", "f9 = 1"], "unknown column 'f9'"),
        (["read", root, "--select", "f0,zz"], "cannot select unknown column 'zz'"),
        (["read", root, "--select", "f0,F3"], "did you mean f3?"),
        (["read", root, "--where", "F1 = 2"], "did you mean f1?"),
        (["read", root, "--select", "f0,"], "a column name is empty"),
        (["read", root, "--snapshot", "9"], "no snapshot 9"),
        (["read", str(tmp_path / "none")], "does not exist"),
        (["read", str(tmp_path)], "not a Paimon table root"),
    ]:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, (argv, err)


def test_a_missing_data_file_is_named(tmp_path, capsys):
    root = tmp_path / "t"
    shutil.copytree(TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap", root)
    live = {e.file_name for e, _ in PaimonTable(root).live()}
    (data,) = [p for p in (root / "bucket-0").glob("*.parquet") if p.name in live]
    data.unlink()
    assert main(["read", str(root)]) == 2
    err = capsys.readouterr().err
    assert data.name in err and err.count("\n") == 1


def test_a_primary_key_table_without_deletion_vectors_is_read_by_merging_its_buckets(tmp_path, capsys):
    """With its deletion vectors switched off, the table's rows are its buckets' files merged by key: every
    key once, in its latest version; the rows the vectors deleted (they were the vectors' to delete) come back."""
    source = TABLES / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"
    root = tmp_path / "t"
    shutil.copytree(source, root)
    assert main(["table", str(root), "--set", "deletion-vectors.enabled=false"]) == 0
    capsys.readouterr()
    merged = PaimonTable(root).scan()
    assert all(f.merge is not None for f in merged.plan() if f.to_read)
    rows, with_vectors = merged.to_arrow(), PaimonTable(source).scan().to_arrow()
    assert len(set(rows["key"].to_pylist())) == rows.num_rows > with_vectors.num_rows
    assert all(row in rows.to_pylist() for row in with_vectors.to_pylist())
    assert main(["read", str(root)]) == 0
    assert capsys.readouterr().out.count("\n") == merged.to_arrow().num_rows + 1


def test_statistics_rule_out_files_before_their_indexes_are_opened(monkeypatch):
    path = TABLES / "parquet" / "append_with_bitmap_alter_table.db" / "append_with_bitmap_alter_table"
    # f5 was added later: the older file reads it as all null (no row = 10, as Java's statistics evolution
    # says), the newer file's statistics rule 10 out
    scan = PaimonTable(path).scan("f5 = 10")
    stages = {s.name: s for s in scan.explain().stages}
    assert (stages["statistics"].files_before, stages["statistics"].files_after) == (2, 0)
    assert [f.skipped_by for f in scan.explain().files].count("statistics") == 2
    assert scan.to_arrow().num_rows == 0
    scan = PaimonTable(path).scan("f5 = 10 OR f5 IS NULL")  # the older file's 8 rows are all null: kept
    assert {s.name: s.files_after for s in scan.explain().stages}["statistics"] == 2
    assert scan.to_arrow().num_rows == 8 + 1
    scan = PaimonTable(path).scan("f1 IS NULL")  # no file holds a null f1
    assert {s.name: s.files_after for s in scan.explain().stages}["statistics"] == 0
    assert scan.to_arrow().num_rows == 0


# the table's README: f2, f0, f1 written first; then f2, f3 over the same four rows (first row id 0); then two
# new rows of f2, f3 only
EVOLVED_ROWS = [("Lily", 2, 102, 2.1), ("Alice", 4, 104, 3.1), ("Bob", 6, 106, 4.1), ("David", 8, 108, 5.1),
                (None, None, 202, 6.1), (None, None, 204, 7.1)]


@pytest.mark.parametrize("kind", ["parquet", "orc"])
@pytest.mark.parametrize("where,test", [
    (None, lambda r: True), ("f2 = 104", lambda r: r[2] == 104), ("f2 = 14", lambda r: False),
    ("f0 IS NULL", lambda r: r[0] is None), ("f3 > 5 AND f2 < 200", lambda r: r[3] > 5 and r[2] < 200),
    ("f0 = 'Bob' OR f2 = 204", lambda r: r[0] == "Bob" or r[2] == 204),
])
def test_a_data_evolution_table_reads_each_column_from_its_newest_file(kind, where, test):
    path = TABLES / kind / "data_evolution_with_index.db" / "data_evolution_with_index"
    scan = PaimonTable(path).scan(where)
    assert [tuple(r.values()) for r in scan.to_arrow().to_pylist()] == [r for r in EVOLVED_ROWS if test(r)]
    if where == "f2 = 14":  # the first write's value, overwritten: the bitmap of the newest file skips the group
        assert [f.read for f in scan.explain().files].count("none") == 3


def test_limit_stops_reading(monkeypatch):
    path = TABLES / "parquet" / "append_with_bitmap_alter_table.db" / "append_with_bitmap_alter_table"
    scan = PaimonTable(path).scan(limit=1)
    assert scan.to_arrow().num_rows == 1
    assert PaimonTable(path).scan(limit=0).to_arrow().num_rows == 0


def test_polars_filters_prune_like_where(opened_files):
    import datetime as dt

    import polars

    from fileindex.scan.polars_filters import polars_pushdown
    from fileindex.predicate.tree import conjuncts

    path = TABLES / "parquet" / "append_with_bitmap_alter_table.db" / "append_with_bitmap_alter_table"
    table = PaimonTable(path)
    types = {**table.schema.types(), "d": parse_type("DATE")}
    col = polars.col

    def pushed(expression) -> list[str]:
        from fileindex.scan.pushdown import ALL_ROWS
        from fileindex.predicate.parser import to_sql

        true = polars_pushdown(expression, types).true
        return [] if true is ALL_ROWS else [to_sql(c, types) for c in conjuncts(true)]

    assert pushed((col("f1") >= -5) & col("f4").is_null() & (polars.lit(3) < col("f5"))) == \
        ["f1 >= -5", "f4 IS NULL", "f5 > 3"]
    assert pushed((col("f4") == "it's") | (col("f1") == 1)) == ["f4 = 'it''s' OR f1 = 1"]  # pruned by the union
    assert pushed(col("f3") == 0.0) == ["f3 = 0.0 OR f3 = -0.0"]  # Polars' 0.0 is both zeros
    assert pushed(col("d") == dt.date(2024, 1, 2)) == ["d = DATE '2024-01-02'"]
    opened = opened_files
    lazy = table.scan().to_polars()
    assert lazy.filter(col("f4") == "nobody").collect().height == 0 and not opened  # every file's index skips
    assert lazy.filter((col("f4") == "Alice") & (col("f3") > 0)).collect()["f4"].to_list() == ["Alice"] * 3
    assert lazy.filter(col("f4") == "Alice").head(1).collect().height == 1
    opened.clear()
    assert lazy.filter(col("f3") == 11.1).collect().height == 1 and opened  # no index on f3: read and filtered
    limited = table.scan(limit=1).to_polars()  # the frame is the scan's first row, then Polars' filter
    first = table.scan(limit=1).to_arrow().column("f4")[0].as_py()
    opened.clear()
    assert limited.filter(col("f4") == "nobody").collect().height == 0 and not opened  # pruned all the same
    assert limited.filter(col("f4") == first).collect().height == 1
    assert lazy.head(3).filter(col("f4") == "Alice").collect()["f4"].to_list() == \
        [r for r in table.scan(limit=3).to_arrow().column("f4").to_pylist() if r == "Alice"]


def test_what_a_new_user_met(tmp_path, capsys):
    """Found by a new-user trial: options a combination ignores are refused; a write that fails says so;
    the output's suffix is taken in any case; a named DuckDB view is in DuckDB's default connection;
    explain notes a missing data file without a predicate; a data-evolution funnel counts rows once."""
    import duckdb

    root = str(TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap")
    for argv, message in [
        (["read", root, "--explain", "--output", str(tmp_path / "a.csv")], "--explain prints the plan"),
        (["read", root, "--json", "--output", str(tmp_path / "a.csv")], "leave --json out"),
        (["read", root, "--overwrite"], "--overwrite goes with --output"),
    ]:
        assert main(argv) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "a.csv").exists()
    assert main(["read", root, "--output", str(tmp_path / "UPPER.CSV")]) == 0
    assert (tmp_path / "UPPER.CSV").read_text().startswith('"f0","f1"')
    capsys.readouterr()
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        code = main(["read", root, "--output", str(locked / "x.parquet")])
        err = capsys.readouterr().err
        if os.geteuid() != 0:  # (root writes anyway)
            assert code == 2 and "cannot write it" in err and ".tmp" not in err, err
    finally:
        locked.chmod(0o700)
    PaimonTable(root).scan("f1 = 20").to_duckdb(name="readme_orders")
    assert duckdb.sql("SELECT count(*) FROM readme_orders").fetchall() == [(3,)]
    assert repr(PaimonTable(root).scan("f1 = 20", ["f0"], 2)).startswith("TableScan(")
    copy = tmp_path / "t"
    shutil.copytree(root, copy)
    live = {e.file_name for e, _ in PaimonTable(copy).live()}
    next(p for p in (copy / "bucket-0").glob("*.parquet") if p.name in live).unlink()
    (item,) = PaimonTable(copy).scan().explain().files
    assert item.reason == "kept: data file is missing"
    evolved = TABLES / "parquet" / "data_evolution_with_index.db" / "data_evolution_with_index"
    (stage,) = PaimonTable(evolved).scan().explain().stages
    assert (stage.rows_before, stage.rows_after) == (6, 6)


def test_an_interrupted_write_leaves_one_line(tmp_path):
    """SIGINT while ``read --output`` writes: one line, exit 130, no temporary file, no finalizer's traceback."""
    import signal
    import subprocess
    import sys

    output = tmp_path / "rows.parquet"
    table = str(TABLES / "orc" / "append_with_bitmap.db" / "append_with_bitmap")
    script = ("import sys, time, fileindex.cli.read as r\n"
              "original = r.Progress.add\n"
              "def slow(self, rows):\n"
              "    original(self, rows); print('writing', file=sys.stderr, flush=True); time.sleep(60)\n"
              "r.Progress.add = slow\n"
              "from fileindex.cli.app import main\n"
              f"raise SystemExit(main(['read', {table!r}, '--output', {str(output)!r}]))\n")
    process = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None and process.stderr.readline() == "writing\n"  # a batch written, more to come
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert err.strip().splitlines()[-1] == "fileindex: interrupted", err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("method, module", [("to_pandas", "pandas"), ("to_polars", "polars"), ("to_duckdb", "duckdb")])
def test_a_missing_engine_is_one_line_naming_what_to_install(monkeypatch, method, module):
    import importlib.util

    from fileindex.errors import UsageError

    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == module else found(name, *a))
    scan = PaimonTable(TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap").scan()
    with pytest.raises(UsageError, match=f"this needs {module}, which is not installed: pip install"):
        getattr(scan, method)()


def test_a_kept_file_is_opened_once_and_read_past_its_probe_only_where_a_row_matches(opened_files, columns_read):
    """A file the index keeps whole (a bloom filter cannot answer a range) is probed by the predicate's columns;
    the other columns are read only for matching rows, from the same opened file."""
    path = TABLES / "parquet" / "append_with_bloomfilter.db" / "append_with_bloomfilter"
    read = columns_read
    for where, found in (("f1 > 100 AND f1 < 200", 0), ("f1 > 100 AND f1 < 250", 1)):
        opened_files.clear()
        read.clear()
        scan = PaimonTable(path).scan(where)
        kept = [f for f in scan.plan() if f.read != "none"]
        assert scan.to_arrow().column("f1").to_pylist() == [200] * found
        assert len(kept) == len(opened_files) == 1 and all(f.read == "all" for f in kept), (where, opened_files)
        assert read == [["f1"]] + [["f0", "f2", "f3", "f4"]] * found, where
