"""The table's layout lives in one object (``fileindex.table.store.TableStore``): no other module of the package
builds a path of a table's metadata, hints, branches or bucket folders, and the store's paths are Paimon's."""
import ast
import pickle
import shutil

from pathlib import Path

import pytest
from conftest import ROOT
from hypothesis import given
from hypothesis import strategies as st

from fileindex.errors import UsageError
from fileindex.table.errors import TableError
from fileindex.io.locations import UriPath
from fileindex.table.store import MAIN, TableStore, _plainly_below, is_table_root, not_a_table

PACKAGE = ROOT / "fileindex"
TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"

# folder names of Paimon's layout, and the prefixes of its numbered or named files
FOLDERS = {"snapshot", "schema", "manifest", "index", "tag", "branch", "statistics", "changelog", "LATEST",
           "EARLIEST"}
PREFIXES = ("snapshot-", "schema-", "bucket-", "branch-", "tag-", "snapshot/", "schema/", "manifest/", "branch/",
            "tag/", "index/")
JOINS = {"glob", "rglob", "joinpath", "with_name", "join"}  # Path methods and os.path.join


def _text(node: ast.AST) -> str | None:
    """The string a constant or an f-string starts with (None: neither)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        head = node.values[0] if node.values else None
        return head.value if isinstance(head, ast.Constant) and isinstance(head.value, str) else ""
    return None


def _layout_name(node: ast.AST) -> bool:
    text = _text(node)
    return text is not None and (text in FOLDERS or text.startswith(PREFIXES))


def layout_paths(source: str) -> list[int]:
    """The lines of ``source`` that join a layout name into a path: ``x / "snapshot"``, ``x / f"bucket-{n}"``,
    ``folder.glob("snapshot-*")``, ``os.path.join(x, "manifest")``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            if _layout_name(node.left) or _layout_name(node.right):
                lines.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in JOINS:
            if any(_layout_name(arg) for arg in node.args):
                lines.append(node.lineno)
    return sorted(set(lines))


def test_the_detector_finds_every_way_of_building_a_path():
    built = ['root / "snapshot" / f"snapshot-{n}"', 'root / f"bucket-{b}"', 'folder.glob("snapshot-*")',
             'os.path.join(root, "manifest")', 'root.glob("tag/tag-*")', 'root / "branch" / name',
             'hint = folder / "LATEST"']
    for line in built:
        assert layout_paths(line) == [1], line
    for line in ['f"schema/schema-{n} (schema): the file is missing"', 'row["index"] = where',
                 'options.get("snapshot")', 'root / name']:
        assert layout_paths(line) == [], line


def test_no_module_but_the_store_builds_a_table_path():
    store = PACKAGE / "table" / "store.py"
    found = {str(path.relative_to(ROOT)): lines for path in sorted(PACKAGE.rglob("*.py"))
             if path != store and path.relative_to(PACKAGE).parts[0] not in ("generated", "specs")  # (byte layouts)
             and (lines := layout_paths(path.read_text()))}
    assert found == {}, "build these paths with fileindex.table.store.TableStore"


def test_the_layout_is_paimons(tmp_path):
    main = TableStore(tmp_path)
    assert main.meta == tmp_path and main.branch == MAIN
    assert main.snapshot_file(3) == tmp_path / "snapshot" / "snapshot-3"
    assert (main.latest_hint, main.earliest_hint) == (tmp_path / "snapshot" / "LATEST",
                                                      tmp_path / "snapshot" / "EARLIEST")
    assert main.schema_file(0) == tmp_path / "schema" / "schema-0"
    assert main.manifest_file("manifest-list-x-0") == tmp_path / "manifest" / "manifest-list-x-0"
    assert main.index_file("index-y-0") == tmp_path / "index" / "index-y-0"
    assert main.bucket_dir(None, 2) == tmp_path / "bucket-2"
    assert main.bucket_dir("dt=2024-01-01/hh=3", 0) == tmp_path / "dt=2024-01-01" / "hh=3" / "bucket-0"
    branch = TableStore(tmp_path, "b")
    assert branch.meta == tmp_path / "branch" / "branch-b"
    assert branch.snapshot_file(1) == tmp_path / "branch" / "branch-b" / "snapshot" / "snapshot-1"
    assert branch.schema_file(1) == tmp_path / "branch" / "branch-b" / "schema" / "schema-1"
    # manifests, index files and data are the table's, shared by its branches
    assert branch.manifest_file("m") == main.manifest_file("m")
    assert branch.bucket_dir(None, 0) == main.bucket_dir(None, 0)
    assert pickle.loads(pickle.dumps(branch)) == branch


def test_ids_hints_and_branches_of_a_real_table(tmp_path):
    root = shutil.copytree(TABLE, tmp_path / "t")
    store = TableStore.at(f"file://{root}")
    assert store.root == root and is_table_root(root) and not is_table_root(root / "snapshot")
    snapshots = sorted(int(p.name.split("-")[1]) for p in (root / "snapshot").glob("snapshot-*"))
    assert store.snapshot_ids() == snapshots and store.snapshot_ids()
    assert store.latest_schema_id() == store.schema_ids()[-1] == max(
        int(p.name.split("-")[1]) for p in (root / "schema").glob("schema-*"))
    assert store.snapshot_and_tag_files()[0] == root / "snapshot" / f"snapshot-{snapshots[0]}"
    assert store.every_branch() == [store] and store.branch_names() == []
    (root / "branch" / "branch-b" / "schema").mkdir(parents=True)
    (root / "branch" / "not-a-branch").mkdir()
    assert store.branch_names() == ["b"] and store.every_branch() == [store, TableStore(root, "b")]
    assert TableStore.at(root, "b").meta == root / "branch" / "branch-b"
    assert TableStore.at(root, "main") == TableStore.at(root) == store
    with pytest.raises(UsageError, match=r"has no branch c \(its branches: main, b\)"):
        TableStore.at(root, "c")
    with pytest.raises(UsageError, match="not a branch name"):
        TableStore.at(root, "../b")


def test_numbered_files_are_those_of_ascii_digits(tmp_path):
    """'snapshot-\u00b2' is no snapshot (``str.isdigit`` says it is digits; ``int`` refuses it)."""
    root = shutil.copytree(TABLE, tmp_path / "t")
    store = TableStore.at(root)
    snapshots, schemas = store.snapshot_ids(), store.schema_ids()
    for name in ("snapshot/snapshot-\u00b2", "snapshot/snapshot-\u0661", "schema/schema-\u00b2"):
        (root / name).write_text("{}")
    assert store.snapshot_ids() == snapshots and store.schema_ids() == schemas


def test_the_latest_hint_and_the_create_if_absent_link(tmp_path):
    store = TableStore(tmp_path)
    store.snapshot_dir.mkdir()
    assert store.link(store.snapshot_file(1), b"one") and store.snapshot_file(1).read_bytes() == b"one"
    assert not store.link(store.snapshot_file(1), b"two") and store.snapshot_file(1).read_bytes() == b"one"
    store.write_latest_hint(1)
    store.write_latest_hint(7)  # a hint is replaced, never linked
    assert store.latest_hint.read_text() == "7"


def test_a_missing_schema_is_no_table_or_a_broken_one(tmp_path):
    with pytest.raises(UsageError, match="no schema/schema-N file: not a Paimon table root"):
        TableStore(tmp_path).latest_schema_id()
    (tmp_path / "snapshot").mkdir()
    (tmp_path / "snapshot" / "snapshot-1").write_text("{}")
    with pytest.raises(TableError, match="no schema-N file"):
        TableStore(tmp_path).latest_schema_id()



def test_a_table_on_a_store_that_is_not_one_is_named_by_its_whole_uri():
    """(Path() would collapse ``s3://`` to ``s3:/``.)"""
    for root in (UriPath("s3://lake/w/db.db/nosuch"), "s3://lake/w/db.db/nosuch"):
        message = str(not_a_table(root, "no snapshot/ folder with snapshots"))
        assert message.startswith("s3://lake/w/db.db/nosuch is not a Paimon table's root"), message


@given(st.lists(st.sampled_from(["a", "b", "", ".", "..", "c.d"]), max_size=5),
       st.lists(st.sampled_from(["a", "b", "", ".", "..", "c.d"]), max_size=4), st.booleans())
def test_a_file_is_named_relative_to_its_folder_as_pathlib_names_it(below, folder_parts, trailing):
    """A plan names each metadata file relative to the table from the strings where nothing needs normalizing, and
    through pathlib otherwise: the same name either way."""
    folder = "/" + "/".join(folder_parts) + ("/" if trailing else "")
    path = folder.rstrip("/") + "/" + "/".join(below)
    try:
        expected = str(Path(path).relative_to(folder))
    except ValueError:
        expected = None
    found = _plainly_below(path, folder)
    assert found is None or found == expected


def test_a_stores_names_of_its_files_are_relative_to_the_table():
    store = TableStore(TABLE)
    manifest = store.manifest_file("manifest-list-x")
    assert store.shown(manifest) == "manifest/manifest-list-x"
    assert store.shown(TABLE / "." / "manifest" / "m") == "manifest/m"
    assert store.shown(Path("/elsewhere/m")) == "/elsewhere/m"
