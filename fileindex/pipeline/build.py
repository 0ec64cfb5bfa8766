"""Building one data file's index container: the work of one build task.

The container is what ``fileindex build`` writes for the same file and options (the same code
builds it), written atomically as ``<file>.index`` (or into the index folder). A table's own
``file-index.*`` options, those of the schema each file was written with, apply; the job's options
override them. An existing sidecar is kept unless ``overwrite``, or unless it is stale (``fileindex.io.staleness``:
its data file rewritten since: rebuilt, status ``rebuilt``); a plain file's sidecar gets a source record beside it, what
tells later whether it is stale. A file that cannot be read or indexed becomes a
failed row with its reason; it never stops the other files.
"""
from __future__ import annotations

import json
from pathlib import Path
from collections.abc import Callable, Mapping

from fileindex.container.file import FileIndexContainer
from fileindex.errors import FileIndexError, UsageError
from fileindex.pipeline.inputs import given_paths
from fileindex.scan.task import DataFileTask, Inputs, open_error
from fileindex.io.reach import names_a_store
from fileindex.table.sidecars import enclosing_table, naming_snapshot
from fileindex.io.atomic import write_atomically
from fileindex.io.staleness import FileSeen, judged, renew_source_record, write_source_record
from fileindex.writing.data_file import build_from_reader
from fileindex.writing.outputs import check_apart

SUMMARY_FIELDS = ("file", "output", "status", "rows", "bytes", "embedded", "indexes", "bloom", "advice", "error")


def effective_options(task: DataFileTask, options: Mapping[str, str]) -> dict[str, str]:
    """The options of the schema the file was written with (as Paimon's writer had them), then the job's."""
    merged = dict(task.table.data_schema(task.table_entry()).options) if task.table is not None else {}
    merged.update(options)
    return merged


def check_build_outputs(given: list[str], resolved: Inputs, *, output_dir: str | None, overwrite: bool) -> None:
    """Refuse a build that would destroy data: an ``--output-dir`` that is, contains or lies inside
    an input, or ``--overwrite`` of an index file that a table's snapshot (any, not only the one
    read) names, which Paimon reads as that data file's index."""
    if output_dir is not None:
        check_apart(output_dir, given + given_paths(resolved), what="--output-dir")
    if not overwrite:
        return  # existing files are kept
    names: dict = {}
    for task in resolved.tasks:
        output = task.sidecar_path()
        named = output.exists() and naming_snapshot(output, task.table.root if task.table else None, names)
        if named:
            raise UsageError(f"{output} is the index file that {named} of its table names (Paimon reads it): "
                             "--overwrite never replaces a table's own index; build without --overwrite (existing "
                             "files are kept) or into --output-dir DIR")


def build_file(task: DataFileTask, options: Mapping[str, str], *, overwrite: bool = False,
               before_rename: Callable[[Path], None] | None = None) -> dict:
    """Build and write the file's container; a summary row (``SUMMARY_FIELDS``)."""
    output = task.sidecar_path()
    row = dict.fromkeys(SUMMARY_FIELDS)
    row.update(file=task.name, output=str(output), rows=0, bytes=0, indexes="[]", bloom="[]", advice="[]", error="")
    stale, renewed = judged(task.path, output) if not overwrite and task.table is None and output.exists() else \
        (None, None)
    if not overwrite and output.exists() and not stale:
        if renewed is not None:  # (a copy that kept no times: its record told by hashing, now by the times again)
            renew_source_record(task.path, output, renewed)
        row["status"] = "kept"
        row["bytes"] = output.stat().st_size
        return row
    try:
        source = source_of(task.path, output) if task.table is None else None
        reader = task.open()
        built = build_from_reader(reader, effective_options(task, options), task.types(reader))
        written = write_atomically(output, built.held, overwrite=overwrite or bool(stale),
                                   before_rename=before_rename)
        if written and source is not None:
            write_source_record(task.path, output, source)
    except (FileIndexError, OSError, OverflowError) as err:
        row.update(status="failed", error=open_error(err))
        return row
    status = ("rebuilt" if stale else "written") if written else "kept"
    row.update(status=status, rows=built.row_count, bytes=len(built.held),
               embedded=built.embedded,
               **describe_container(built.held, data_bytes=task.size, options=built.index_options))
    return row


def source_of(data_file: str, output: str | Path) -> FileSeen | None:
    """The data file as it is before it is read, for the source record of a local output outside any table
    (``fileindex.io.staleness``); None for a store's file, or an output in a table (only Paimon writes there)."""
    if names_a_store(data_file) or names_a_store(output) or enclosing_table(output) is not None:
        return None
    return FileSeen.of(data_file)


def describe_container(data: bytes, *, data_bytes: int | None = None,
                       options: Mapping[tuple[str, str], Mapping[str, str]] | None = None) -> dict:
    """Bytes per column and index type, each bloom filter's sizing verdict, and the advice for every
    index that costs more than it can save (``fileindex.indexes.advice``; ``options``: each index's, as built),
    as JSON text."""
    from fileindex.indexes.advice import advise_container
    from fileindex.indexes.registry import INDEX_TYPES

    container = FileIndexContainer.from_bytes(data)
    indexes, blooms = [], []
    for entry in container:
        indexes.append({"column": entry.column, "index_type": entry.index_type, "bytes": max(entry.length, 0)})
        index = INDEX_TYPES.get(entry.index_type)
        if index is not None and index.filter_sizing is not None and not entry.is_empty:
            diagnosis = index.filter_sizing.diagnose(container.body(entry),
                                                     (options or {}).get((entry.column, entry.index_type)))
            blooms.append({"column": entry.column, "verdict": diagnosis.verdict, "advice": diagnosis.advice})
    advice = [a.as_dict() for a in advise_container(container, data_bytes=data_bytes, options=options)]
    return {"indexes": json.dumps(indexes), "bloom": json.dumps(blooms), "advice": json.dumps(advice)}
