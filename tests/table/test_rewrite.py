"""rewrite_file_index on copies of the shared 1.x-written tables (tests/tables/): the commit's shape (the
table's own Avro schemas, DELETE before ADD, nothing else changed, the latest snapshot's keys), the new
verdicts, idempotence, dry runs, refusals, sidecar names, and failures injected at every stage."""
import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import fastavro
import pytest
from conftest import manifest_rows, ROOT

from fileindex.cli.app import main
from fileindex.errors import UsageError
from fileindex.indexes.result import Rows
from fileindex.table.metadata import live_files, load_schema, load_snapshot, read_json
from fileindex.table.options_alter import alter_table_options
from fileindex.table.orphans import orphan_files
from fileindex.table.rewrite import rewrite_file_index
from fileindex.table.rewrite_plan import next_sidecar_name, options_for_file
from fileindex import PaimonTable
from fileindex.table.stages import Stage, watching
from fileindex.table.store import TableStore

TABLES = ROOT / "tests" / "tables" / "parquet"


def copy(tmp_path: Path, name: str) -> Path:
    source = next((TABLES / f"{name}.db").glob(f"{name}"))
    target = tmp_path / name
    shutil.copytree(source, target)
    return target


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_sidecar_names_follow_javas_chain():
    assert next_sidecar_name(None, "data-1-0.orc") == "data-1-0.orc.index"
    assert next_sidecar_name("data-1-0.orc.index", "data-1-0.orc") == "data-1-0.orc-1.index"
    assert next_sidecar_name("data-1-0.orc-1.index", "data-1-0.orc") == "data-1-0.orc-2.index"
    assert next_sidecar_name("data-1-0.orc-9.index", "data-1-0.orc") == "data-1-0.orc-10.index"


def test_options_follow_field_ids_into_an_older_files_names(tmp_path):
    root = copy(tmp_path, "append_with_bitmap_alter_table")
    old, new = load_schema(TableStore(root), 0), load_schema(TableStore(root), 1)
    options = {"file-index.bitmap.columns": "f1,f4,f5", "file-index.bitmap.f4.version": "1", "bucket": "-1"}
    mapped = options_for_file(options, new, old)
    names = {f.id: f.name for f in old.fields}
    assert mapped == {"file-index.bitmap.columns": f"{names[1]},{names[0]}",  # f5 (id 4) is not in the file
                      f"file-index.bitmap.{names[0]}.version": "1", "bucket": "-1"}


@pytest.mark.parametrize("options, message", [
    ({"file-index.bitmap.columns": "f1,f0"}, "file-index.bitmap.columns names column f0, which the table's schema "
     "(schema-1) no longer has: renamed to f4 (field id 0); rewriting now would drop its indexes from every file: "
     "fileindex table {root} --set file-index.bitmap.columns=f1,f4"),
    ({"file-index.bloom-filter.columns": "f4", "file-index.bloom-filter.f0.fpp": "0.01"},
     "file-index.bloom-filter.f0.fpp names column f0, which the table's "
     "schema (schema-1) no longer has: renamed to f4 (field id 0); rewriting now would drop its indexes from every "
     "file: fileindex table {root} --set file-index.bloom-filter.f4.fpp=0.01 --reset file-index.bloom-filter.f0.fpp"),
    ({"file-index.bloom-filter.columns": "f2"}, "file-index.bloom-filter.columns names column f2, which the table's "
     "schema (schema-1) no longer has: dropped (field id 2); rewriting now would drop its indexes from every file: "
     "fileindex table {root} --reset file-index.bloom-filter.columns"),
    ({"file-index.bitmap.columns": "f1,nope"}, "file-index.bitmap.columns names column nope, which the table's schema "
     "(schema-1) no longer has: no schema of the table has it; rewriting now would drop its indexes from every "
     "file: fileindex table {root} --set file-index.bitmap.columns=f1"),
])
def test_options_naming_a_column_the_schema_no_longer_has_are_refused_naming_it(tmp_path, capsys, options, message):
    """A RENAME COLUMN in Java 0.9 leaves the options naming the old name (f0, now f4): rewrite refuses them, in one
    line naming the column it likely became, where it silently dropped that column's indexes from every file."""
    root = copy(tmp_path, "append_with_bitmap_alter_table")
    path = TableStore(root).schema_file(1)
    document = json.loads(path.read_text())
    document["options"].update(options)
    path.write_text(json.dumps(document))
    before = files(root)
    assert main(["rewrite", str(root)]) == 2
    assert capsys.readouterr().err == f"fileindex rewrite: {message.format(root=root)}\n"
    assert files(root) == before
    fix = message.format(root=root).rpartition(": fileindex table ")[2].split()
    assert main(["table", *fix]) == 0 and main(["rewrite", str(root), "--dry-run"]) == 0  # the fix it names works


def test_rewrite_commits_javas_delta_in_the_tables_own_shape(tmp_path):
    root = copy(tmp_path, "append_with_bitmap")
    before = load_snapshot(TableStore(root))
    latest_json = read_json(TableStore(root), root / "snapshot" / before.file.split("/")[-1], "snapshot")
    old_live = {f.file_name: f for f in live_files(TableStore(root), before)}
    alter_table_options(root, set={"file-index.bitmap.columns": "f0", "file-index.bsi.columns": "f1",
                                   "file-index.in-manifest-threshold": "1 B"})
    result = rewrite_file_index(root)
    assert result.mode == "delta" and result.snapshot_id == before.id + 1
    new_json = read_json(TableStore(root), root / "snapshot" / f"snapshot-{result.snapshot_id}", "snapshot")
    assert list(new_json) == list(latest_json)
    assert (new_json["commitKind"], new_json["schemaId"], new_json["deltaRecordCount"]) == ("COMPACT", 1, 0)
    assert new_json["totalRecordCount"] == latest_json["totalRecordCount"]
    assert new_json["deltaManifestListSize"] == (root / "manifest" / new_json["deltaManifestList"]).stat().st_size
    delta_list = root / "manifest" / new_json["deltaManifestList"]
    old_list = root / "manifest" / latest_json["deltaManifestList"]
    with open(delta_list, "rb") as ours, open(old_list, "rb") as javas:
        assert fastavro.reader(ours).writer_schema == fastavro.reader(javas).writer_schema
    (meta,) = manifest_rows(delta_list)
    entries = manifest_rows(root / "manifest" / meta["_FILE_NAME"])
    assert [e["_KIND"] for e in entries] == [1, 0] * len(old_live)
    assert (meta["_NUM_ADDED_FILES"], meta["_NUM_DELETED_FILES"]) == (len(old_live), len(old_live))
    for deleted, added in zip(entries[::2], entries[1::2], strict=True):
        assert deleted["_FILE"]["_FILE_NAME"] == added["_FILE"]["_FILE_NAME"]
        changed = {k for k in added["_FILE"] if added["_FILE"][k] != deleted["_FILE"][k]}
        assert changed == {"_EXTRA_FILES", "_EMBEDDED_FILE_INDEX"}
        assert added["_FILE"]["_EXTRA_FILES"] == [added["_FILE"]["_FILE_NAME"] + ".index"]
    base_names = [r["_FILE_NAME"] for r in manifest_rows(root / "manifest" / new_json["baseManifestList"])]
    assert base_names == [r["_FILE_NAME"] for name in ("baseManifestList", "deltaManifestList")
                          for r in manifest_rows(root / "manifest" / latest_json[name])]
    (verdict,) = PaimonTable(root).plan("f1 = 20")
    assert (verdict.index, verdict.result) == ("sidecar", Rows([4, 6, 7]))
    # a re-run with unchanged options commits nothing and writes nothing
    written = files(root)
    again = rewrite_file_index(root)
    assert again.snapshot_id is None and not again.changed and files(root) == written


def test_dry_run_reports_and_writes_nothing(tmp_path, capsys):
    root = copy(tmp_path, "append_with_bitmap_no_embedding")
    alter_table_options(root, set={"file-index.bloom-filter.columns": "f0"}, reset=["file-index.bitmap.columns"])
    written = files(root)
    assert main(["rewrite", str(root), "--dry-run", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[-1]["summary"]["dry_run"] and lines[-1]["summary"]["changed"] == len(lines) - 1 > 0
    assert all(line["old"] == "sidecar" and line["new"] == "sidecar" and line["sidecar"].endswith("-1.index")
               for line in lines[:-1])
    assert files(root) == written


def test_dropping_every_index_leaves_none(tmp_path):
    root = copy(tmp_path, "append_with_bsi_bitmap_bloomfilter")
    options = load_schema(TableStore(root), TableStore(root).latest_schema_id()).options
    alter_table_options(root, reset=[k for k in options if k.endswith(".columns")])
    assert rewrite_file_index(root).snapshot_id is not None
    table = PaimonTable(root)
    assert {table.index_location(entry)[0] for entry, _ in table.live()} == {"none"}
    assert len(list(table.plan("f1 = 1"))) == len(table.live())


@pytest.mark.parametrize("threshold", ["4096 B", "1 B"])  # embedded, then sidecars
def test_an_index_added_then_dropped_gives_the_file_back_its_first_entry_and_it_stays_live(tmp_path, threshold):
    root = copy(tmp_path, "append_with_bitmap")
    (original,) = live_files(TableStore(root), load_snapshot(TableStore(root)))
    alter_table_options(root, set={"file-index.in-manifest-threshold": threshold,
                                   "file-index.bitmap.columns": "f0,f1,f2,f3"})
    assert rewrite_file_index(root).snapshot_id is not None
    alter_table_options(root, set={"file-index.bitmap.columns": "f0,f1,f2"})
    assert rewrite_file_index(root).snapshot_id is not None
    store = TableStore(root)
    (entry,) = live_files(store, load_snapshot(store))  # a DELETE earlier in the manifests does not hide it
    assert entry.file_name == original.file_name and entry.row_count == 8
    if threshold == "4096 B":
        assert entry.identifier == original.identifier  # the same embedded bytes as before the first rewrite
    assert next(PaimonTable(root).plan("f0 = 'Alice'")).result == Rows([0, 7])


@pytest.mark.parametrize("name, message", [("pk_with_bitmap_dv", "primary-key table"),
                                           ("data_evolution_with_index", "data-evolution")])
def test_tables_out_of_scope_are_refused(tmp_path, name, message):
    root = copy(tmp_path, name)
    with pytest.raises(UsageError, match=message):
        rewrite_file_index(root)


@pytest.mark.parametrize("option, message", [("deletion-vectors.enabled=true", "deletion vectors"),
                                             ("manifest.format=orc", "manifest.format=orc")])
def test_table_options_out_of_scope_are_refused(tmp_path, option, message):
    root = copy(tmp_path, "append_with_bitmap")
    key, value = option.split("=")
    schema = root / "schema" / "schema-0"
    data = json.loads(schema.read_text())
    data["options"][key] = value
    schema.write_text(json.dumps(data))
    with pytest.raises(UsageError, match=message):
        rewrite_file_index(root)


def test_a_rest_catalog_is_refused():
    """(Tables on object stores are rewritten: tests/io/test_tables_on_stores.py.)"""
    with pytest.raises(UsageError, match="REST catalog"):
        rewrite_file_index("https://catalog/v1/db/t")


def test_a_file_uri_is_a_local_table(tmp_path):
    root = copy(tmp_path, "append_with_bitmap")
    alter_table_options(root, set={"file-index.in-manifest-threshold": "1 B"})
    assert rewrite_file_index(f"file://{root}").snapshot_id == 2


def test_floor_refusals_name_the_option(tmp_path):
    root = copy(tmp_path, "append_with_bitmap")  # 1.2-written: floor 1.1
    alter_table_options(root, set={"file-index.range-bitmap.columns": "f1"})
    with pytest.raises(UsageError, match=r"file-index.range-bitmap.columns: Paimon 1.3"):
        rewrite_file_index(root)
    assert rewrite_file_index(root, compat="none").snapshot_id is not None
    alter_table_options(root, set={"file-index.format.version": "2"}, reset=["file-index.range-bitmap.columns"])
    with pytest.raises(UsageError, match="file-index.format.version"):
        rewrite_file_index(root)


def test_alter_refuses_what_it_cannot_set(tmp_path):
    root = copy(tmp_path, "append_with_bitmap")
    with pytest.raises(UsageError, match="bucket"):
        alter_table_options(root, set={"bucket": "4"})
    with pytest.raises(UsageError, match="no column 'nope'"):
        alter_table_options(root, set={"file-index.bloom-filter.columns": "nope"})
    with pytest.raises(UsageError, match="unknown index type"):
        alter_table_options(root, set={"file-index.blooom.columns": "f0"})
    with pytest.raises(UsageError, match="did you mean file-index.bloom-filter.columns"):
        alter_table_options(root, set={"file-index.bloom-filter.column": "f0"})
    assert not (root / "schema" / "schema-1").exists()
    assert alter_table_options(root, set={"file-index.bitmap.columns": "f0,f1,f2"}) is None  # unchanged


def test_a_sidecar_name_taken_by_a_stray_file_is_skipped(tmp_path):
    root = copy(tmp_path, "append_with_bitmap")
    alter_table_options(root, set={"file-index.in-manifest-threshold": "1 B"})
    (entry,) = live_files(TableStore(root), load_snapshot(TableStore(root)))
    stray = root / "bucket-0" / (entry.file_name + ".index")
    stray.write_bytes(b"not ours")
    (change,) = rewrite_file_index(root).changes
    assert change.sidecar == entry.file_name + "-1.index" and stray.read_bytes() == b"not ours"


def test_a_sidecar_name_a_tag_names_is_skipped_though_its_file_is_gone(tmp_path):
    """A tag keeps the name of a sidecar the latest snapshot no longer names; with its file deleted, the next
    rewrite's first name is free on disk, but writing it would give the tag another index."""
    root = copy(tmp_path, "append_with_bitmap")
    alter_table_options(root, set={"file-index.in-manifest-threshold": "1 B"})
    (first,) = rewrite_file_index(root).changes
    tagged = load_snapshot(TableStore(root))
    (root / "tag").mkdir(exist_ok=True)
    shutil.copy(root / "snapshot" / f"snapshot-{tagged.id}", root / "tag" / "tag-t1")
    alter_table_options(root, set={"file-index.in-manifest-threshold": "1 MB"})
    assert rewrite_file_index(root).changes[0].location == "embedded"
    (root / "bucket-0" / first.sidecar).unlink()
    alter_table_options(root, set={"file-index.in-manifest-threshold": "1 B"})
    for dry_run in (True, False):
        (change,) = rewrite_file_index(root, dry_run=dry_run).changes
        assert change.sidecar != first.sidecar and change.sidecar == next_sidecar_name(first.sidecar, first.job.name
                                                                                       .rpartition("/")[2])
    assert not (root / "bucket-0" / first.sidecar).exists()


@pytest.mark.parametrize("stage", [Stage.SIDECARS, Stage.MANIFESTS, Stage.SNAPSHOT])
def test_a_failure_before_the_link_removes_exactly_what_the_run_wrote(tmp_path, stage):
    root = copy(tmp_path, "append_with_bitmap")
    alter_table_options(root, set={"file-index.in-manifest-threshold": "1 B"})
    before = files(root)

    def fail(at):
        if at == stage:
            raise RuntimeError(f"injected at {at}")

    with pytest.raises(RuntimeError, match="injected"), watching(fail):
        rewrite_file_index(root)
    assert files(root) == before
    assert rewrite_file_index(root).snapshot_id == 2


def test_a_failure_after_the_link_keeps_the_commit(tmp_path):
    root = copy(tmp_path, "append_with_bitmap")
    alter_table_options(root, set={"file-index.in-manifest-threshold": "1 B"})

    def fail(at):
        if at == Stage.LATEST:
            raise RuntimeError("injected after the link")

    with pytest.raises(RuntimeError), watching(fail):
        rewrite_file_index(root)
    assert (root / "snapshot" / "LATEST").read_text() == "1"
    with pytest.warns(UserWarning, match="LATEST"):
        table = PaimonTable(root)
    assert table.snapshot.id == 2 and all(table.data_path(e).is_file() for e, _ in table.live())
    assert all((table.data_path(e).parent / n).is_file() for e, _ in table.live() for n in e.extra_files)
    with pytest.warns(UserWarning):
        assert rewrite_file_index(root).snapshot_id is None  # done already


KILL = """
import os, sys
from fileindex.table.rewrite import rewrite_file_index
from fileindex.table.stages import Stage, watching
stage = Stage(sys.argv[2])
with watching(lambda at: os._exit(9) if at == stage else None):
    rewrite_file_index(sys.argv[1])
"""


@pytest.mark.parametrize("stage", ["sidecars", "manifests", "snapshot", "latest"])
def test_a_killed_run_leaves_a_readable_table_and_a_rerun_completes(tmp_path, stage):
    root = copy(tmp_path, "append_with_bitmap")
    alter_table_options(root, set={"file-index.in-manifest-threshold": "1 B"})
    before = files(root)
    killed = subprocess.run([sys.executable, "-c", KILL, str(root), stage], env={**os.environ}, timeout=120)
    assert killed.returncode == 9
    after = files(root)
    assert {k: after[k] for k in before} == before  # nothing named was changed or removed
    leftovers = set(after) - set(before)
    if stage == "latest":  # killed after the link: committed, LATEST still names snapshot 1
        assert "snapshot/snapshot-2" in leftovers and after["snapshot/LATEST"] == b"1"
        with pytest.warns(UserWarning, match="LATEST"):
            assert rewrite_file_index(root).snapshot_id is None  # nothing left to do
    else:
        assert {str(p.relative_to(root)) for p in orphan_files(root)} >= leftovers
        assert bool(leftovers) == (stage != "sidecars")
        assert len(list(PaimonTable(root).plan("f0 = 'Alice'"))) == 1
        assert rewrite_file_index(root).snapshot_id == 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the LATEST hint after a kill past the link
        (verdict,) = PaimonTable(root).plan("f0 = 'Alice'")
    assert verdict.index == "sidecar" and isinstance(verdict.result, Rows)


def test_a_concurrent_rewrite_of_the_same_files_drops_them_and_removes_our_sidecars(tmp_path):
    root = copy(tmp_path, "append_with_bitmap")
    alter_table_options(root, set={"file-index.in-manifest-threshold": "1 B"})
    inner = []

    def concurrent(at):
        if at == Stage.MANIFESTS and not inner:
            inner.append(rewrite_file_index(root))

    with watching(concurrent):
        result = rewrite_file_index(root)
    assert inner[0].snapshot_id == 2 and result.snapshot_id is None and len(result.dropped) == 1
    (entry,) = live_files(TableStore(root), load_snapshot(TableStore(root)))
    assert entry.extra_files == (entry.file_name + "-1.index",)  # the inner run's; ours was removed
    assert not (root / "bucket-0" / (entry.file_name + ".index")).exists()


APPEND_TABLES = sorted(p for p in (ROOT / "tests" / "tables").glob("**/*.db/*")
                       if (p / "snapshot").is_dir() and not p.name.startswith(("pk_", "data_evolution", "timestamp")))


@pytest.mark.parametrize("source", APPEND_TABLES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_shared_append_table_rewritten_answers_exactly(tmp_path, source):
    """Copies of the shared tables, re-indexed with a bitmap (sidecars) on field 0, whatever it is named now
    and whatever its type: our reader's verdicts are exactly the rows holding each value."""
    from fileindex.arrow.data_files import DataFileReader
    from fileindex.indexes.result import REMAIN, SKIP
    from fileindex.predicate.tree import Leaf

    root = tmp_path / source.name
    shutil.copytree(source, root)
    schema = load_schema(TableStore(root), TableStore(root).latest_schema_id())
    column = schema.by_id()[0].name
    alter_table_options(root, set={"file-index.bitmap.columns": column, "file-index.in-manifest-threshold": "1 B"},
                        reset=[k for k in schema.options if k.startswith("file-index.") and k.count(".") >= 2])
    if schema.options.get("manifest.format", "avro") != "avro":
        with pytest.raises(UsageError, match="manifest.format=orc: rewrite writes Avro manifests only"):
            rewrite_file_index(root)
        return
    result = rewrite_file_index(root)
    assert result.snapshot_id is not None and {c.location for c in result.changed} == {"sidecar"}
    table = PaimonTable(root)
    values = {}
    for entry, _ in table.live():
        name = table.data_schema(entry).by_id()[0].name
        values[entry.file_name] = DataFileReader(table.data_path(entry)).column(name).to_pylist()
    for value in sorted({v for column_values in values.values() for v in column_values if v is not None})[:4]:
        for entry, _ in table.live():
            verdict = table.verdict(entry, Leaf("eq", column, (value,)))  # (a literal of the column's own type)
            rows = [i for i, v in enumerate(values[entry.file_name]) if v == value]
            expected = SKIP if not rows else REMAIN if len(rows) == entry.row_count else Rows(rows)
            assert (verdict.index, verdict.result) == ("sidecar", expected)


def test_mistakes_a_user_makes_get_what_to_do(tmp_path, capsys):
    root = copy(tmp_path, "append_with_bitmap")
    cases = [
        (["table", root, "--reset", "file-index.bitmap.column"], "did you mean file-index.bitmap.columns?"),
        (["rewrite", tmp_path / "nope"], "does not exist: give a Paimon table's root folder"),
        (["rewrite", root / "schema" / "schema-0"], f"is a file inside a table: give the table's root, {root}"),
        (["rewrite", root, "--partition", "dt=2020"], "the table is not partitioned; leave --partition out"),
    ]
    for argv, message in cases:
        assert main([str(a) for a in argv]) == 2
        assert message in capsys.readouterr().err
    database = tmp_path / "db.db"
    shutil.copytree(root, database / "orders")
    assert main(["rewrite", str(database)]) == 2
    assert f"holds tables (a database folder?): give one of {database / 'orders'}" in capsys.readouterr().err
    assert not (root / "schema" / "schema-1").exists()
    assert main(["table", str(root), "--orphans"]) == 0
    assert "orphan file(s): index files (*.index beside data files), manifests and manifest lists" in \
        capsys.readouterr().err


def test_orphans_are_listed_relative_to_the_root_saying_what_is_and_is_not_looked_for(tmp_path, capsys):
    root = copy(tmp_path, "append_with_bitmap")
    alter_table_options(root, set={"file-index.in-manifest-threshold": "1 B"})
    rewrite_file_index(root)
    alter_table_options(root, set={"file-index.bitmap.columns": "f0"})
    rewrite_file_index(root)  # supersedes the first sidecar, which the earlier snapshots still name
    (root / "bucket-0" / "stray.parquet.index").write_bytes(b"x")
    (root / "bucket-0" / "data-x.parquet.tmp").write_bytes(b"x")
    assert main(["table", str(root), "--orphans"]) == 0
    out, err = capsys.readouterr()
    listed = out.splitlines()
    assert "bucket-0/stray.parquet.index" in listed and "bucket-0/data-x.parquet.tmp" in listed
    assert all(not line.startswith("/") for line in listed) and any(line.startswith("manifest/") for line in listed)
    assert err.endswith(f"{len(listed)} orphan file(s): index files (*.index beside data files), manifests and "
                        "manifest lists (manifest/) and temporary files (*.tmp) that no snapshot or tag names; data "
                        "files are not looked for (Paimon's remove_orphan_files removes those too)\n")
    assert main(["table", str(root), "--orphans", "--json"]) == 0
    assert '{"orphan": "bucket-0/stray.parquet.index"}' in capsys.readouterr().out.splitlines()


def test_setting_options_of_a_table_rewrite_refuses_says_so_instead_of_suggesting_it(tmp_path, capsys):
    root = copy(tmp_path, "pk_with_bitmap_dv")
    assert main(["table", str(root), "--set", "file-index.bloom-filter.columns=f1"]) == 2  # (refused, unforced)
    assert "primary-key" in capsys.readouterr().err and not (root / "schema" / "schema-1").exists()
    assert main(["table", str(root), "--set", "file-index.bloom-filter.columns=f1", "--force"]) == 0
    out = capsys.readouterr().out
    assert "wrote schema/schema-" in out and "fileindex rewrite cannot rebuild" in out and "primary-key" in out
    assert "run fileindex rewrite" not in out


def test_rewrite_gives_the_sizing_advice_build_gives(tmp_path, capsys):
    root = copy(tmp_path, "append_with_bitmap")
    alter_table_options(root, set={"file-index.bloom-filter.columns": "f3"})  # Java's default: 1M items
    assert main(["rewrite", str(root), "--dry-run"]) == 0
    err = capsys.readouterr().err
    assert "f3:bloom-filter larger than its data" in err and "items=8" in err
    assert main(["rewrite", str(root), "--dry-run", "--json"]) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"file"' in line]
    assert any("f3:bloom-filter" in advice for advice in row["advice"])
    assert main(["rewrite", str(root)]) == 0 and "larger than its data" in capsys.readouterr().err
