"""Java-written Paimon tables (tests/tables, listed in its README): every expected selection."""
import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import ROOT

from fileindex.cli import main
import fileindex.scan.table as scan
from fileindex.indexes.result import REMAIN, SKIP, Rows
from fileindex import PaimonTable

TABLES = ROOT / "tests" / "tables"
FORMATS = ["parquet", "orc"]


def table_root(fmt: str, name: str) -> Path:
    return TABLES / fmt / f"{name}.db" / name


def verdicts(fmt: str, name: str, where: str, **kwargs) -> list:
    return [v.result for v in PaimonTable(table_root(fmt, name)).plan(where, **kwargs)]


def shown(result):
    if result is REMAIN or result is SKIP:
        return repr(result)
    return sorted(result.bitmap)


BITMAP = [
    ("f0 = 'Alice'", [0, 7]), ("f0 <> 'Alice'", [1, 2, 3, 4, 5, 6]), ("f1 = 20", [4, 6, 7]),
    ("f2 = 1", [0, 1, 4, 5]), ("f2 IS NULL", [7]), ("f2 IS NOT NULL", [0, 1, 2, 3, 4, 5, 6]),
    ("f0 IN ('Alice', 'Bob', 'Lucy')", [0, 1, 4, 5, 7]), ("f0 NOT IN ('Alice', 'Bob', 'Lucy')", [2, 3, 6]),
    ("f0 = 'Alice' AND f1 = 20", [7]), ("f0 = 'Alice' OR f1 = 20", [0, 4, 6, 7]), ("f1 = 30", "SKIP"),
    ("f1 > 10", "REMAIN"), ("f3 = 14.1", "REMAIN"),
]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", ["append_with_bitmap", "append_with_bitmap_v1", "append_with_bitmap_no_embedding"])
@pytest.mark.parametrize("where, expected", BITMAP)
def test_bitmap_tables(fmt, name, where, expected):
    (result,) = verdicts(fmt, name, where)  # one live file: the orphan data file is never listed
    assert shown(result) == expected


BSI = [
    ("f1 = 100", [0, 5]), ("f2 <> -2", [1, 2, 3, 4, 5]), ("f1 > 100", [1, 2, 4]), ("f2 >= -1", [2, 3, 4, 5]),
    ("f2 IN (-1, 2, -2)", [0, 4, 5, 6]), ("f1 NOT IN (100, 400, 200)", [2, 3, 4, 7]),
    ("f1 > 100 AND f2 <= 0", [1, 4]),
    # the tables README says 0-4, but row 5 (Bob, 100, 2) has both values: the data decides
    ("f1 IS NOT NULL AND f2 IS NOT NULL", [0, 1, 2, 3, 4, 5]),
    ("f0 = 'Alice'", "REMAIN"), ("f4 = TIMESTAMP '2025-04-25 00:00:02.000123'", "REMAIN"),  # TIMESTAMP(9)
]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("where, expected", BSI)
def test_bsi_table(fmt, where, expected):
    (result,) = verdicts(fmt, "append_with_bsi", where)
    assert shown(result) == expected


BLOOM_KEPT = ["f0 = 'Alice'", "f1 = 200", "f2 = -1", "f3 = 13.1", "f1 <> 200", "f2 IS NULL", "f1 > 200",
              "f2 IN (-1, 2, 100)"]
BLOOM_SKIPPED = ["f0 = 'Alice2'", "f1 = 201", "f2 = 0", "f3 = 13.2", "f2 IN (-1000, 0, 1000)"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_bloom_table(fmt):
    for where in BLOOM_KEPT:
        assert verdicts(fmt, "append_with_bloomfilter", where) == [REMAIN], where
    for where in BLOOM_SKIPPED:
        assert verdicts(fmt, "append_with_bloomfilter", where) == [SKIP], where


@pytest.mark.parametrize("fmt", FORMATS)
def test_combined_table(fmt):
    name = "append_with_bsi_bitmap_bloomfilter"
    assert verdicts(fmt, name, "f3 = 14.1") == [REMAIN]
    assert verdicts(fmt, name, "f3 = 14.13") == [SKIP]
    assert [shown(r) for r in verdicts(fmt, name, "f0 = 'Alice'")] == [[0, 7]]


@pytest.mark.parametrize("fmt", FORMATS)
def test_schema_evolution(fmt):
    name = "append_with_bitmap_alter_table"
    table = PaimonTable(table_root(fmt, name))
    files = [v for v in table.plan("f4 = 'Alice'")]
    assert [(v.row_count, shown(v.result)) for v in files] == [(8, [0, 7]), (4, [0])]  # f4 was f0 in file 1
    assert [r for r in verdicts(fmt, name, "f5 IS NULL")][0] is REMAIN  # file 1 has no f5: all null
    assert shown(verdicts(fmt, name, "f1 = 10")[0]) == [0, 1, 2, 3, 5]  # BIGINT literal on file 1's INT bitmap
    assert verdicts(fmt, name, "f1 = 5000000000")[0] is REMAIN  # does not fit INT: conjunct dropped
    # Java drops a conjunct on a column the file lacks; extended mode answers it on all-null values
    assert verdicts(fmt, name, "f5 = 1")[0] is REMAIN
    assert verdicts(fmt, name, "f5 = 1", extended=True)[0] is SKIP
    assert verdicts(fmt, name, "f5 IS NULL", extended=True)[0] is REMAIN


@pytest.mark.parametrize("fmt", FORMATS)
def test_deletion_vectors(fmt):
    (result,) = verdicts(fmt, "pk_with_bitmap_dv", "f0 = 'Alice'")
    assert shown(result) == [7]  # rows 0 and 4 are deleted; Alice at row 0 is gone
    assert verdicts(fmt, "pk_with_bitmap_dv", "f0 IS NOT NULL") == [REMAIN]  # equals every kept row
    earlier = PaimonTable(table_root(fmt, "pk_with_bitmap_dv"), snapshot_id=3)
    assert len(list(earlier.plan("f0 = 'Alice'"))) == 2  # before compaction: the L5 file and a delete file


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_data_file_with_two_deletion_vectors_is_refused(fmt, tmp_path):
    """A second vector for the data file, deleting none of its rows, listed after Java's: taking the last one (as
    a map by data file does) brought rows 0 and 4 back; neither is right, so the table is malformed."""
    import zlib

    from pyroaring import BitMap
    from table_edits import copy_table, edit_rows, snapshot_of

    from fileindex.table.errors import TableError

    root = copy_table(fmt, "pk_with_bitmap_dv", tmp_path)
    framed = (1581511376).to_bytes(4, "big") + BitMap().serialize()
    (root / "index" / "index-second-0").write_bytes(b"\x01" + len(framed).to_bytes(4, "big") + framed
                                                    + zlib.crc32(framed).to_bytes(4, "big"))

    def add_second(rows: list[dict]) -> None:
        ranges = [dict(rows[0]["_DELETIONS_VECTORS_RANGES"][0], f1=1, f2=len(framed), _CARDINALITY=0)]
        rows.append(dict(rows[0], _FILE_NAME="index-second-0", _FILE_SIZE=9 + len(framed),
                         _DELETIONS_VECTORS_RANGES=ranges))

    edit_rows(root / "manifest" / json.loads(snapshot_of(root).read_text())["indexManifest"], add_second)
    with pytest.raises(TableError, match=r"row 1 ranges: data file data-\S+ has a deletion vector in index-\S+ too"):
        PaimonTable(root).scan().to_arrow()


@pytest.mark.parametrize("fmt", FORMATS)
def test_files_of_one_level_whose_key_ranges_overlap_are_refused(fmt, tmp_path):
    """A twin of the level-5 file (another name, no deletion vector) on level 5 too: the files of a
    deletion-vector table are read one by one, unmerged, so each key came out twice (14 rows for 6)."""
    import shutil

    from table_edits import copy_table, data_manifests, edit_rows

    from fileindex.scan.reader import scannable
    from fileindex.scan.task import table_inputs
    from fileindex.table.errors import TableError

    root = copy_table(fmt, "pk_with_bitmap_dv", tmp_path)
    assert len(PaimonTable(root).scan().to_arrow()) == 6

    def add_twin(rows: list[dict]) -> None:
        for row in [r for r in rows if r["_KIND"] == 0 and r["_FILE"]["_LEVEL"] > 0]:
            name = row["_FILE"]["_FILE_NAME"]
            shutil.copy(root / "bucket-0" / name, root / "bucket-0" / f"twin-{name}")
            rows.append(dict(row, _FILE=dict(row["_FILE"], _FILE_NAME=f"twin-{name}", _EXTRA_FILES=[])))

    for manifest in data_manifests(root):
        edit_rows(manifest, add_twin)
    overlap = r"data files (twin-)?data-\S+ \(keys \(0,\) to \(7,\)\) and \S+ .* of bucket 0 overlap on level 5"
    with pytest.raises(TableError, match=overlap):
        PaimonTable(root).scan().to_arrow()
    with pytest.raises(TableError, match=overlap):  # the file-by-file read (Spark's) too
        scannable(table_inputs(PaimonTable(root)))


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_file_above_level_0_with_retractions_is_not_read_unmerged(fmt, tmp_path):
    """Snapshot 3's level-0 file of two -D records moved to level 1: Java merges such a bucket (its keys 0 and 4
    deleted); read file by file, the -D records came out as rows (10 rows, keys 0 and 4 twice)."""
    from table_edits import copy_table, data_manifests, edit_rows

    from fileindex.errors import UsageError
    from fileindex.scan.reader import scannable
    from fileindex.scan.task import table_inputs

    root = copy_table(fmt, "pk_with_bitmap_dv", tmp_path)
    assert len(PaimonTable(root, snapshot_id=3).scan().to_arrow()) == 8  # (its level-0 file is not read)

    def to_level_1(rows: list[dict]) -> None:
        for row in rows:
            if row["_FILE"]["_DELETE_ROW_COUNT"]:
                row["_FILE"]["_LEVEL"] = 1

    for manifest in {*data_manifests(root), *(root / "manifest").glob("manifest-[!l]*")}:
        edit_rows(manifest, to_level_1)
    retractions = r"data file data-\S+ \(bucket 0, level 1\) records 2 retraction rows"
    with pytest.raises(UsageError, match=retractions):
        PaimonTable(root, snapshot_id=3).scan().to_arrow()
    with pytest.raises(UsageError, match=retractions):
        scannable(table_inputs(PaimonTable(root, snapshot_id=3)))


@pytest.mark.parametrize("fmt", FORMATS)
def test_data_evolution_follows_the_newest_writer(fmt):
    name = "data_evolution_with_index"
    rows = lambda where: [(v.row_count, v.result) for v in PaimonTable(table_root(fmt, name)).plan(where)]  # noqa: E731
    kept = rows("f2 = 102")
    assert [r for n, r in kept if n == 4] == [REMAIN, REMAIN]  # group 0: B says remain
    assert [r for n, r in kept if n == 2] == [SKIP]  # file C
    assert all(r is SKIP for _, r in rows("f2 = 103"))  # B vetoes; the stale index of A never counts
    assert all(r is SKIP for _, r in rows("f2 = 203"))


def test_missing_sidecar_is_reported_and_kept(capsys):
    root = table_root("orc", "timestamp_index")
    assert main(["table", str(root), "--where", "ts_milli IS NULL", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0]["result"] == "REMAIN" and "missing" in lines[0]["note"]
    assert lines[-1]["summary"]["problems"] == 1


@pytest.mark.parametrize("damage", ["missing", "corrupt"])
def test_indexes_counts_an_index_problem_as_where_does(capsys, tmp_path, damage):
    import shutil

    root = tmp_path / "t"
    shutil.copytree(table_root("parquet", "append_with_bitmap_no_embedding"), root)
    (sidecar,) = (root / "bucket-0").glob("*.index")
    if damage == "missing":
        sidecar.unlink()
    else:
        sidecar.write_bytes(b"garbage")
    assert main(["table", str(root), "--where", "f0 = 'Bob'"]) == 0
    where_out = capsys.readouterr().out
    assert main(["table", str(root), "--indexes"]) == 0
    listed, summary = capsys.readouterr().out.splitlines()
    assert where_out.rstrip().endswith("; 1 index problem(s)") and summary.endswith("; 1 index problem(s)")
    note = where_out.split("  (", 1)[1].split(")\n", 1)[0]
    assert listed.endswith(f"sidecar  ({note})")  # the same note: missing, or corrupt index: ...
    assert main(["table", str(root), "--indexes", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1]) == {
        "summary": {"files": 1, "files_indexed": 0, "indexes": 0, "problems": 1}}  # (what the text's last line says)
    assert main(["table", str(TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"), "--indexes"]) == 0
    assert "problem" not in capsys.readouterr().out


def test_external_path_resolution():
    table_dir = TABLES / "parquet" / "append_with_bitmap_no_embedding.db"
    table = PaimonTable(table_root("parquet", "append_with_bitmap_no_embedding"),
                        external_roots=[table_dir / "external-path"])
    from fileindex.table.metadata import live_files

    (entry,) = live_files(table.store, table.snapshot)
    external = table_dir / "external-path" / "bucket-0" / entry.file_name
    moved = replace(entry, external_path=str(external))
    where, container, note = table.container(moved)
    assert where == "sidecar" and container is not None and not note
    assert container.source.startswith(str(external.parent))


def test_table_command_json_shape(capsys):
    root = table_root("parquet", "append_with_bitmap_alter_table")
    assert main(["table", str(root), "--where", "f4 = 'Alice'", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0] == {"where": "f4 = 'Alice'", "file": lines[0]["file"], "row_count": 8, "index": "embedded",
                        "result": "ROWS", "cardinality": 2, "ranges": [[0, 0], [7, 7]]}
    assert lines[0]["file"].startswith("bucket-0/data-")
    assert lines[-1] == {"where": "f4 = 'Alice'",
                         "summary": {"files": 2, "files_kept": 2, "rows": 12, "rows_kept": 3, "problems": 0}}
    assert main(["table", str(root), "--where", "nope = 1"]) == 2
    assert main(["table", str(TABLES), "--where", "f = 1"]) == 2


def test_rows_results_are_row_sets():
    (result,) = verdicts("parquet", "append_with_bitmap", "f0 = 'Alice'")
    assert isinstance(result, Rows) and result.cardinality == 2


def test_orc_data_with_one_row_per_stripe():
    root = TABLES / "append_with_bitmap_multi_stripes.db" / "append_with_bitmap_multi_stripes"
    (verdict,) = PaimonTable(root).plan("f0 = 'Alice' OR f2 IS NULL")
    assert verdict.index == "sidecar" and shown(verdict.result) == [0, 7]


def test_table_answers_every_where_on_its_own(capsys):
    root = table_root("parquet", "append_with_bitmap_alter_table")
    alone = {}
    for where in ("f4 = 'Alice'", "f4 = 'nobody'"):
        assert main(["table", str(root), "--where", where, "--json"]) == 0
        alone[where] = capsys.readouterr().out.splitlines()
    assert alone["f4 = 'Alice'"] != alone["f4 = 'nobody'"]
    assert main(["table", str(root), "--where", "f4 = 'Alice'", "--where", "f4 = 'nobody'", "--json"]) == 0
    assert capsys.readouterr().out.splitlines() == alone["f4 = 'Alice'"] + alone["f4 = 'nobody'"]
    assert main(["table", str(root), "--where", "f4 = 'Alice'", "--where", "f4 = 'nobody'"]) == 0
    out = capsys.readouterr().out
    assert "where f4 = 'Alice':" in out and "where f4 = 'nobody':" in out and out.count("kept ") == 2


ALL_TABLES = sorted(p.parent for p in TABLES.glob("*/*.db/*/schema"))


@pytest.mark.parametrize("root", ALL_TABLES, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_index_listing_has_a_row_per_entry_of_every_live_container(root, capsys):
    table = PaimonTable(root)
    expected = []
    for entry, _ in table.live():
        where, container, _ = table.container(entry)
        expected += [(table.relative(entry), where, e.column, e.index_type, max(e.length, 0), e.is_empty)
                     for e in (container or ())]
    assert main(["table", str(root), "--indexes", "--json"]) == 0
    *rows, summary = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert summary["summary"]["indexes"] == len(expected) and summary["summary"]["files"] == len(table.live())
    assert {r["file"] for r in rows} == {table.relative(e) for e, _ in table.live()}
    listed = [(r["file"], r["index"], r["column"], r["index_type"], r["payload_bytes"], r["empty"])
              for r in rows if "column" in r]
    assert listed == expected and all(r["version"] == 1 for r in rows if "column" in r)


def test_a_version_2_sidecar_answers_alike_and_is_listed(tmp_path, capsys):
    import shutil

    from fileindex.container.writer import reframe

    source = table_root("parquet", "append_with_bloomfilter")
    copy = tmp_path / "t"
    shutil.copytree(source, copy)
    where = ["--where", "f0 = 'Alice'", "--where", "f0 = 'nobody'"]
    assert main(["table", str(copy), *where, "--json"]) == 0
    before = capsys.readouterr().out
    for sidecar in copy.rglob("*.index"):
        sidecar.write_bytes(reframe(sidecar.read_bytes(), 2))
    assert main(["table", str(copy), *where, "--json"]) == 0
    assert capsys.readouterr().out == before and '"SKIP"' in before
    assert main(["table", str(copy), "--indexes", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()[:-1]]
    assert rows and all(r["version"] == 2 for r in rows)


WHERES = ["f0 = 'Alice'", "f0 IN ('Alice', 'Bob')", "f0 IS NULL", "f1 = 20 OR f2 = 1", "f2 = 102",
          "f0 = 'nobody' AND f1 = 10", "f1 > 10"]


@pytest.mark.parametrize("root", ALL_TABLES, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_several_predicates_planned_together_equal_each_alone_and_open_each_index_once(root, monkeypatch):
    table = PaimonTable(root)
    names = set(table.schema.types())
    wheres = [w for w in WHERES if all(f"f{i}" in names or f"f{i}" not in w for i in range(5))]
    alone = [[(v.file, v.index, shown(v.result), v.note) for v in table.plan(w)] for w in wheres]
    opened = []
    container = PaimonTable.container
    monkeypatch.setattr(PaimonTable, "container", lambda self, entry, *predicates: opened.append(entry) or container(
        self, entry, *predicates))
    shared = scan.embedded_container  # (what planning opens an embedded index with)
    monkeypatch.setattr(scan, "embedded_container", lambda data: opened.append(data) or shared(data))
    together = PaimonTable(root).plan_many(wheres)  # (a new table: ``table`` keeps the indexes it opened)
    assert [[(v.file, v.index, shown(v.result), v.note) for v in plan] for plan in together] == alone
    if not table.data_evolution:  # its groups are judged one predicate at a time
        assert len(opened) == len(table.live())


def test_a_corrupt_body_answers_remain_only_for_the_predicates_that_read_it(tmp_path):
    import shutil

    copy = tmp_path / "t"
    shutil.copytree(table_root("parquet", "append_with_bsi_bitmap_bloomfilter"), copy)
    table = PaimonTable(copy)
    entry, _ = table.live()[0]
    where, container, _ = table.container(entry)
    bitmap = next(e for e in container if e.index_type == "bitmap")  # the first column's
    assert (bitmap.column, where) == ("f0", "sidecar")
    wheres = [table.parse("f0 IS NULL"), table.parse("f2 > 1")]  # the second reads f2's bsi
    before = table.verdicts(entry, wheres)
    assert isinstance(before[1].result, Rows) and "corrupt" not in before[0].note
    sidecar = Path(container.source)
    broken = bytearray(sidecar.read_bytes())
    broken[bitmap.start:bitmap.start + bitmap.length] = b"\xff" * bitmap.length
    container.close()
    sidecar.write_bytes(bytes(broken))
    first, second = PaimonTable(copy).verdicts(entry, wheres)  # (a new table: ``table`` keeps what it opened)
    assert first.result is REMAIN and first.note.startswith("corrupt index:")
    assert second == before[1]
