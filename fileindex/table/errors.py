"""The table layer's errors (the package's tree is ``fileindex.errors``)."""
from __future__ import annotations

from fileindex.errors import FileIndexError


class TableError(FileIndexError):
    """Table metadata that is missing, unreadable or does not follow Paimon's layout.

    The message names the file (relative to the table root), what it was read as (snapshot, schema,
    manifest list, manifest, index manifest, deletion-vector index file) and, where known, the field.
    """


class UnsafeNameError(TableError):
    """A name in a table's metadata that would lead a read or a write outside the table's folders."""


class CommitConflict(FileIndexError):
    """Other writers took every snapshot (or schema) id a commit tried, as many times as it was allowed to
    retry: nothing was committed, and a re-run may succeed. The command line exits with its own code."""
