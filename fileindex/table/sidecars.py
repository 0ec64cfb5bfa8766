"""The index files a table's snapshots name: Paimon reads them as its data files' indexes, so no
writer of this project may replace one, whichever snapshot (or tag) still names it.
"""
from __future__ import annotations

from pathlib import Path

from fileindex.table.metadata import live_files, load_schema, read_snapshot
from fileindex.table.store import TableStore, table_holding
from fileindex.writing.outputs import real


def enclosing_table(path: str | Path) -> Path | None:
    """The root of the Paimon table that ``path`` lies in (its real path), or None."""
    return table_holding(real(path).parent)


def named_index_files(root: str | Path) -> dict[Path, str]:
    """Every index file that a snapshot or tag of the table names (real paths), with the snapshot
    or tag file that names it (the first found)."""
    store = TableStore(Path(root))
    named: dict[Path, str] = {}
    for path in store.snapshot_and_tag_files():
        if not path.is_file():
            continue
        snapshot = read_snapshot(store, path)
        schema = load_schema(store, snapshot.schema_id)
        for entry in live_files(store, snapshot):
            folder = Path(store.data_file(entry, schema)).parent
            for name in entry.index_files:
                named.setdefault(real(folder / name), snapshot.file)
    return named


def naming_snapshot(path: str | Path, table_root: str | Path | None = None,
                    cache: dict[Path, dict[Path, str]] | None = None) -> str | None:
    """The snapshot (or tag) file that names ``path`` as an index file, of ``table_root`` or else the
    table ``path`` lies in; None when none does. ``cache`` keeps each table's names across calls."""
    root = real(table_root) if table_root is not None else enclosing_table(path)
    if root is None:
        return None
    cache = {} if cache is None else cache
    if root not in cache:
        cache[root] = named_index_files(root)
    return cache[root].get(real(path))
