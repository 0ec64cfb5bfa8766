"""The merge's errors (the package's tree is ``fileindex.errors``)."""
from __future__ import annotations

from fileindex.errors import FileIndexError


class MergeError(FileIndexError):
    """Records of one key that the table's merge cannot combine, where Java's merge fails too (a delete under
    partial-update with no option saying what it means, a retraction of an aggregate that has none, ...). The
    message names the key and what Java would have said."""
