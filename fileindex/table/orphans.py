"""Files of a table that no snapshot or tag names: superseded index sidecars (a rewrite leaves them, as
Java does, and expiration never deletes them), and manifests or manifest lists of failed or expired
commits. Listing only: deleting stays with Paimon's ``remove_orphan_files``.

A file is named when a snapshot or tag lists it (manifest lists, index manifest), one of those lists
names it (manifests), or any entry of those manifests, ADD or DELETE, names it as an extra file; the
snapshots and tags of every branch count (branches share the table's manifests and files).
"""
from __future__ import annotations

from pathlib import Path

from fileindex.table.metadata import (
    load_schema,
    manifest_entries,
    manifest_list_names,
    read_snapshot,
)
from fileindex.table.errors import TableError
from fileindex.table.names import local_external_path
from fileindex.table.store import METADATA_FOLDERS, TableStore


def named_files(store: TableStore) -> set[Path]:
    """Every file a snapshot or tag of any branch names (see the module's docstring)."""
    root = store.root
    named: set[Path] = set()
    manifests: dict[str, str] = {}  # name -> the manifest list naming it
    snapshots = [(branch, path) for branch in store.every_branch()  # every branch's snapshots name the manifests
                 for path in branch.snapshot_and_tag_files()]
    for branch, path in snapshots:
        if not branch.is_file(path):
            continue
        snapshot = read_snapshot(branch, path)
        for listing in (snapshot.base_manifest_list, snapshot.delta_manifest_list, snapshot.changelog_manifest_list):
            if listing is not None:
                named.add(store.manifest_file(listing))
                for name in manifest_list_names(store, store.manifest_file(listing),
                                                f"manifest list named by {snapshot.file}"):
                    manifests.setdefault(name, f"manifest/{listing}")
        if snapshot.index_manifest is not None:
            named.add(store.manifest_file(snapshot.index_manifest))
    schema = load_schema(store, store.latest_schema_id())
    for manifest, listed_in in manifests.items():
        path = store.manifest_file(manifest)
        named.add(path)
        for entry in manifest_entries(store, path, listed_in):
            if entry.external_path:  # (a file on storage this reader cannot list cannot be an orphan here)
                try:
                    folder = local_external_path(entry.external_path).parent
                except TableError:
                    continue
            else:
                folder = root / store.data_folder(entry, schema)
            named.update(folder / name for name in entry.extra_files)
    return named


LOOKS_FOR = ("index files (*.index beside data files), manifests and manifest lists (manifest/) and temporary "
             "files (*.tmp) that no snapshot or tag names; data files are not looked for (Paimon's "
             "remove_orphan_files removes those too)")


def orphan_files(root: str | Path) -> list[Path]:
    """Index files (``*.index`` beside data files), manifests, manifest lists and leftover temporary
    files of the table that nothing names, sorted."""
    store = TableStore.at(root)
    root = store.root
    named = named_files(store)
    if store.remote:
        return sorted((p for p in _listed_candidates(store) if p not in named), key=str)
    folder = store.manifest_dir
    candidates = [p for p in folder.iterdir() if p.is_file()] if folder.is_dir() else []
    for path in root.rglob("*"):
        relative = path.relative_to(root).parts
        if relative[0] in METADATA_FOLDERS:
            continue
        if path.is_file() and (path.name.endswith(".index") or path.name.endswith(".tmp")):
            candidates.append(path)
    return sorted(p for p in candidates if p not in named)


def _listed_candidates(store: TableStore) -> list:
    """The candidates of a table on an object store, by LIST requests (one per folder and thousand entries):
    the files of ``manifest/``, and the ``*.index`` and ``*.tmp`` files under every other folder."""
    io, root = store.io, store.root
    manifests = store.manifest_dir
    found = [manifests / f.name for f in io.list(str(manifests)) if f.kind == "file"]
    folders = [root / f.name for f in io.list(str(root)) if f.kind == "folder" and f.name not in METADATA_FOLDERS]
    while folders:
        folder = folders.pop()
        for entry in io.list(str(folder)):
            if entry.kind == "folder":
                folders.append(folder / entry.name)
            elif entry.kind == "file" and entry.name.endswith((".index", ".tmp")):
                found.append(folder / entry.name)
    return found
