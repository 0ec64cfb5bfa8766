"""Whether a plain data file's index was built from the file as it is now.

A data file rewritten after its sidecar was built is newer than the sidecar: the index answers for the old rows,
and a scan trusting it drops rows the file holds now. Nothing in an index records its data file's bytes (a body
may record the row count, which the evaluator checks), so the modification times are what tells.
"""
from __future__ import annotations

import os
from pathlib import Path


def stale_index_note(data_file: str | Path, index_file: str | Path) -> str | None:
    """Why ``index_file`` is not used for ``data_file`` (it is older: the data was rewritten since it was built),
    or None (it is not older, or either is not a local file: a store's objects are not compared)."""
    if "://" in str(data_file) or "://" in str(index_file):
        return None
    try:
        data_time, index_time = os.stat(data_file).st_mtime_ns, os.stat(index_file).st_mtime_ns
    except OSError:
        return None  # (a missing file is reported where it is opened)
    if index_time >= data_time:
        return None
    return (f"index not used: {index_file} is older than its data file (rewritten since the index was built); "
            "rebuild it")
