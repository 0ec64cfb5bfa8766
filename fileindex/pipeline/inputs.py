"""The data files a job works on: a Paimon table's live files, or Parquet/ORC files, folders and globs.

A table is read through its snapshot (latest or a given one) and manifests, never a listing; each
task then knows where the table says its index lives and its deletion vector. A plain data file's
index is the sidecar ``<file>.index`` that ``fileindex build`` writes next to it, or
``INDEX_DIR/<file name>.index`` when the job was given an index folder.
"""
from __future__ import annotations

import glob
import os
from pathlib import Path

from fileindex.arrow.data_files import data_file_format
from fileindex.errors import UsageError
from fileindex.scan.table import PaimonTable
from fileindex.scan.task import DataFileTask, Inputs, table_inputs
from fileindex.table.store import is_table_root
from fileindex.writing.outputs import input_paths


def given_paths(inputs: str | list[str] | Inputs) -> list[str]:
    """The paths a job reads, for checking its outputs against: as given (globs expanded), or a
    resolved job's table root and data files."""
    if isinstance(inputs, Inputs):
        return ([str(inputs.table.root)] if inputs.table is not None else []) + [t.path for t in inputs.tasks]

    return input_paths([inputs] if isinstance(inputs, str) else list(inputs))


def driver_path(path: str | os.PathLike[str]) -> str:
    """A path the user gave, as every Spark executor must see it: a local path made absolute here, where it was
    given (an executor resolves a relative path against its own working directory); a URI as given."""
    text = os.fspath(path)
    return text if "://" in text else os.path.abspath(text)


def check_index_dir(index_dir: str | None) -> None:
    """An index folder to read indexes from must be there: a misspelt one would find no index, and a verify or
    scan without indexes checks or prunes nothing."""
    if index_dir is not None and "://" not in index_dir and not os.path.isdir(index_dir):
        raise UsageError(f"--index-dir {index_dir}: no such folder")


def resolve_inputs(inputs: list[str], *, snapshot: int | None = None, index_dir: str | None = None,
                   external_roots: tuple[str, ...] = ()) -> Inputs:
    """Tasks for a Paimon table path (its data files under external paths read from ``external_roots``, see
    ``PaimonTable``), or for Parquet/ORC files, folders (searched recursively) and globs; their paths and the
    index folder's are absolute (``driver_path``), as executors must see them."""
    if not inputs:
        raise UsageError("name a Paimon table, or Parquet/ORC data files, folders or globs")
    index_dir = None if index_dir is None else driver_path(index_dir)
    tables = [p for p in inputs if is_table_root(Path(p))]
    if tables:
        if len(inputs) > 1:
            raise UsageError(f"{tables[0]} is a Paimon table: give one table per job, without other inputs")
        table = PaimonTable(driver_path(tables[0]), snapshot, external_roots=external_roots)
        return table_inputs(table, index_dir)
    if snapshot is not None:
        raise UsageError("--snapshot applies to a Paimon table, and no input is one")
    paths: list[str] = []
    for given in inputs:
        if any(ch in given for ch in "*?["):
            found = [p for p in sorted(glob.glob(given, recursive=True)) if data_file_format(p)]
            if not found:
                raise UsageError(f"{given}: the pattern matches no Parquet or ORC file")
        elif os.path.isdir(given):
            found = sorted(str(p) for p in Path(given).rglob("*") if p.suffix.lower() in (".parquet", ".orc")
                           and not any(part.startswith((".", "_")) for part in p.relative_to(given).parts))
            if not found:
                raise UsageError(f"{given}: the folder holds no .parquet or .orc file")
        elif os.path.isfile(given):
            found = [given]
        else:
            raise UsageError(f"{given}: no such file, folder or table")
        paths += found
    unique = list(dict.fromkeys(os.path.abspath(p) for p in paths))
    if index_dir is not None:
        names = [Path(p).name for p in unique]
        clashes = sorted({n for n in names if names.count(n) > 1})
        if clashes:
            raise UsageError(f"an index folder holds one index per file name, and {clashes[0]!r} names "
                             "more than one input: index them in separate jobs")
    return Inputs([DataFileTask(p, p, os.path.getsize(p), index_dir=index_dir) for p in unique])



