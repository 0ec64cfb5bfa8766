"""Files of a table that no snapshot or tag names: superseded index sidecars (a rewrite leaves them, as
Java does, and expiration never deletes them), and manifests or manifest lists of failed or expired
commits. Listing only: deleting stays with Paimon's ``remove_orphan_files``.

A file is named when a snapshot or tag lists it (manifest lists, index manifest), one of those lists
names it (manifests), or any entry of those manifests, ADD or DELETE, names it as an extra file.
"""
from __future__ import annotations

from pathlib import Path

from fileindex.java.binary_row import partition_path
from fileindex.table.metadata import load_schema, read_json, read_rows, shown
from fileindex.table.options_alter import latest_schema_id

SNAPSHOT_LISTS = ("baseManifestList", "deltaManifestList", "changelogManifestList")


def _named(root: Path) -> set[Path]:
    named: set[Path] = set()
    manifests: set[str] = set()
    for path in sorted(root.glob("snapshot/snapshot-*")) + sorted(root.glob("tag/tag-*")):
        if not path.is_file():
            continue
        snapshot = read_json(root, path, "snapshot")
        for key in SNAPSHOT_LISTS:
            listing = snapshot.get(key)
            if isinstance(listing, str):
                named.add(root / "manifest" / listing)
                manifests.update(row["_FILE_NAME"] for row in
                                 read_rows(root / "manifest" / listing, f"manifest list named by {shown(root, path)}",
                                           root))
        if isinstance(snapshot.get("indexManifest"), str):
            named.add(root / "manifest" / snapshot["indexManifest"])
    schema = load_schema(root, latest_schema_id(root))
    folders: dict[tuple, Path] = {}
    for manifest in manifests:
        path = root / "manifest" / manifest
        named.add(path)
        for row in read_rows(path, "manifest", root):
            meta = row["_FILE"]
            external = meta.get("_EXTERNAL_PATH")
            if external:
                folder = Path(external.removeprefix("file:")).parent
            else:
                partition, bucket = row["_PARTITION"], row["_BUCKET"]
                if (partition, bucket) not in folders:
                    prefix = partition_path(partition, schema) + "/" if schema.partition_keys else ""
                    folders[(partition, bucket)] = root / f"{prefix}bucket-{bucket}"
                folder = folders[(partition, bucket)]
            named.update(folder / name for name in meta.get("_EXTRA_FILES") or ())
    return named


def orphan_files(root: str | Path) -> list[Path]:
    """Index files (``*.index`` beside data files), manifests, manifest lists and leftover temporary
    files of the table that nothing names, sorted."""
    root = Path(root)
    named = _named(root)
    candidates = [p for p in (root / "manifest").iterdir() if p.is_file()] if (root / "manifest").is_dir() else []
    for path in root.rglob("*"):
        relative = path.relative_to(root).parts
        if relative[0] in ("manifest", "snapshot", "schema", "tag", "index", "statistics", "changelog"):
            continue
        if path.is_file() and (path.name.endswith(".index") or path.name.endswith(".tmp")):
            candidates.append(path)
    return sorted(p for p in candidates if p not in named)
