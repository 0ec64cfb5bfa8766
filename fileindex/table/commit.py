"""Committing rewritten manifest entries as one ``COMPACT`` snapshot (rewrite design §1.3-§1.6, §2.4-§2.5).

* **delta** (Java's shape): per file, DELETE of the old entry immediately before the ADD of the new
  one, in one new delta manifest; the base list is the latest snapshot's base and delta manifests.
  The order matters: Java's expiration forgets a data file only after its ADD follows its DELETE.
* **fold** (Java's manifest compaction; default on 0.9 tables): every live entry, rewritten ones in
  place, in new ADD-only base manifests and an empty delta. 0.9's manifest merge throws on a delta
  holding DELETE+ADD of one file, and its scans read every entry's embedded index, so this is also
  the repair of a table poisoned by a body 0.9 cannot read.

The snapshot is the latest one's JSON (same keys, same order) with the new lists, ``COMPACT`` and the
latest schema id, created as ``snapshot-(N+1)`` only if absent. On a lost race the commit rebases on
the new latest snapshot: changes whose old entry is no longer live (a concurrent compaction or rewrite)
are dropped (their new sidecars deleted) and reported, the rest retried. ``LATEST`` follows a won race.

:func:`commit_changes` returns what happened (a :class:`CommitOutcome`). Until the snapshot is linked, a
failure deletes every sidecar of the changes (nothing may reference them) and is raised; after it, the
files are the table's and a failure (writing ``LATEST``) is raised with nothing deleted.
"""
from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from fileindex.table.errors import CommitConflict
from fileindex.table.manifest_entry import ADD, DELETE, ManifestEntry
from fileindex.table.manifest_writer import ManifestWriter
from fileindex.table.metadata import (
    Snapshot,
    TableError,
    latest_snapshot_id,
    live_entries,
    load_snapshot,
    read_json,
    read_rows,
)
from fileindex.table.rewrite_plan import FileChange, RewritePlan, manifest_shapes
from fileindex.table.stages import Stage, reached

COMMIT_IDENTIFIER = 2**63 - 1  # Java's BatchWriteBuilder.COMMIT_IDENTIFIER
ENTRIES_PER_MANIFEST = 20000  # fold: roughly manifest.target-file-size (8 MB) of entries


@dataclass(frozen=True)
class CommitOutcome:
    snapshot_id: int | None  # the linked snapshot; None when every change was dropped
    committed: list[FileChange] = field(default_factory=list)
    dropped: list[FileChange] = field(default_factory=list)  # their old entry was no longer live
    attempts: int = 0


def remove_written(changes: Iterable[FileChange]) -> None:
    """Delete the sidecars these changes wrote (for changes no snapshot references)."""
    for change in changes:
        if change.written and change.job.io is not None:  # (on a remote store: through its file access)
            change.job.io.delete(change.written)
        elif change.written:
            Path(change.written).unlink(missing_ok=True)


def delta_entries(changes: list[FileChange]) -> list[ManifestEntry]:
    """DELETE(old) immediately followed by ADD(new), per file, nothing else changed."""
    entries: list[ManifestEntry] = []
    for change in changes:
        if change.new_entry is None:
            raise ValueError(f"{change.job.name}: an unchanged file has no entries to commit")
        entries += [replace(change.job.entry, kind=DELETE), replace(change.new_entry, kind=ADD)]
    names = [(e.partition, e.bucket, e.file_name) for e in entries[::2]]
    if len(set(names)) != len(names):
        raise TableError("one data file is rewritten twice in one commit: its DELETE would not precede its ADD")
    return entries


def snapshot_json(latest: dict, *, snapshot_id: int, schema_id: int, base: tuple[str, int],
                  delta: tuple[str, int], commit_user: str) -> dict:
    """The latest snapshot's keys, in its order, with a compaction's values."""
    new = dict(latest)
    new.update(id=snapshot_id, schemaId=schema_id, baseManifestList=base[0], deltaManifestList=delta[0],
               changelogManifestList=None, commitUser=commit_user, commitIdentifier=COMMIT_IDENTIFIER,
               commitKind="COMPACT", timeMillis=int(time.time() * 1000), deltaRecordCount=0)
    optional = {"baseManifestListSize": base[1], "deltaManifestListSize": delta[1],
                "changelogManifestListSize": None, "changelogRecordCount": 0}
    new.update({key: value for key, value in optional.items() if key in new})
    if "uuid" in new:
        new["uuid"] = str(uuid.uuid4())
    if new.get("statistics") is not None and latest.get("schemaId") != schema_id:
        new["statistics"] = None  # Java keeps statistics only when written under the same schema
    new.pop("writerVersion", None)
    return new


def _chunks(entries: list[ManifestEntry], size: int) -> list[list[ManifestEntry]]:
    return [entries[i:i + size] for i in range(0, len(entries), size)] or [[]]


def _write_lists(plan: RewritePlan, snapshot: Snapshot, live: list[ManifestEntry],
                 changes: list[FileChange], writer: ManifestWriter) -> tuple[tuple[str, int], tuple[str, int]]:
    store = plan.store
    if plan.mode == "fold":
        replaced = {c.job.identifier: c.new_entry for c in changes if c.new_entry is not None}
        entries = [replaced.get(entry.identifier, entry) for entry in live]
        metas = [writer.manifest(chunk) for chunk in _chunks(entries, ENTRIES_PER_MANIFEST) if chunk]
        return writer.manifest_list(metas), writer.manifest_list([])
    meta = writer.manifest(delta_entries(changes))
    base_rows = []
    for listing in (snapshot.base_manifest_list, snapshot.delta_manifest_list):
        base_rows += read_rows(store, store.manifest_file(listing), "manifest list")
    return writer.manifest_list(base_rows), writer.manifest_list([meta])


def commit_changes(plan: RewritePlan, changes: list[FileChange], *, max_attempts: int = 10) -> CommitOutcome:
    """Commit ``changes`` (changed files only) as one COMPACT snapshot; see the module docstring."""
    try:
        outcome, snapshot, text = _link_snapshot(plan, changes, max_attempts)
    except BaseException:
        remove_written(changes)  # not committed: nothing may reference them
        raise
    if outcome.snapshot_id is None:
        return outcome
    reached(Stage.LATEST)
    plan.store.write_latest_hint(outcome.snapshot_id)
    if plan.store.read_bytes(snapshot, "snapshot", len(text) + 1) != text:
        raise TableError(f"snapshot/{snapshot.name} was replaced by another committer right after this commit "
                         "wrote it (a writer without create-if-absent): check the table")
    return outcome


def _link_snapshot(plan: RewritePlan, changes: list[FileChange],
                   max_attempts: int) -> tuple[CommitOutcome, Path, bytes]:
    """Write the manifests and link the snapshot, rebasing on a lost race: the outcome, the snapshot's path and
    its bytes (the outcome's ``snapshot_id`` is None, and nothing is written, when every change was dropped)."""
    store = plan.store
    pending, dropped = list(changes), []
    commit_user = f"paimon-fileindex-{uuid.uuid4()}"
    for attempt in range(max_attempts):
        latest_id = latest_snapshot_id(store)
        snapshot = load_snapshot(store, latest_id)
        live = live_entries(store, snapshot)
        live_ids = {entry.identifier for entry in live}
        gone = [c for c in pending if c.job.identifier not in live_ids]
        remove_written(gone)
        dropped += gone
        pending = [c for c in pending if c.job.identifier in live_ids]
        target = store.snapshot_file(latest_id + 1)
        if not pending:
            return CommitOutcome(None, [], dropped, attempt + 1), target, b""
        entry_shape, list_shape = manifest_shapes(store, snapshot)
        if entry_shape is None:
            raise TableError(f"snapshot-{latest_id}: names no manifest, yet files were planned")
        schema_id = store.latest_schema_id()
        writer = ManifestWriter(store, entry_shape, list_shape,
                                [plan.schema.by_name()[k].type for k in plan.schema.partition_keys], schema_id,
                                int(plan.schema.options.get("file.compression.zstd-level", "1")))
        try:
            reached(Stage.MANIFESTS)
            base, delta = _write_lists(plan, snapshot, live, pending, writer)
            latest_json = read_json(store, store.snapshot_file(latest_id), "snapshot")
            new = snapshot_json(latest_json, snapshot_id=latest_id + 1, schema_id=schema_id, base=base,
                                delta=delta, commit_user=commit_user)
            text = json.dumps(new, indent=2, ensure_ascii=False).encode()
            reached(Stage.SNAPSHOT)
            won = store.link(target, text)
        except BaseException:
            writer.remove_created()
            raise
        if won:
            return CommitOutcome(latest_id + 1, pending, dropped, attempt + 1), target, text
        writer.remove_created()
        time.sleep(min(0.05 * 2 ** attempt, 1.0))
    raise CommitConflict(f"other writers committed {max_attempts} times while this commit tried; nothing was "
                         "committed: re-run the rewrite")
