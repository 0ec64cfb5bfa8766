"""Where ``query`` and ``check`` take column types from: ``--schema``, a data file, or a Paimon table.

An index body only decodes under the type it was built for, so the types are best read from the
data the index describes: ``--data FILE`` (Parquet or ORC), the data file beside a sidecar
(``x.parquet`` for ``x.parquet.index``, found automatically), or ``--table ROOT`` (the table's
latest schema). ``--schema`` overrides the columns it names. The command says which source it used.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from fileindex.errors import FileIndexError, UsageError
from fileindex.types import DataType, parse_schema

if TYPE_CHECKING:
    from fileindex.io import InputFile

SIDECAR_SUFFIX = ".index"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--schema", help='column types, e.g. "id INT, name STRING, attrs MAP<STRING, INT>"; '
                                         "overrides the types read from --data or --table")
    parser.add_argument("--data", metavar="FILE", help="read column types from this Parquet or ORC data file "
                                                       "(default: the data file beside a sidecar X.index, if any)")
    parser.add_argument("--table", metavar="ROOT", help="read column types from this Paimon table's latest schema")


def resolve(command: str, args: argparse.Namespace, index_path: str) -> dict[str, DataType] | None:
    """The column types for ``index_path`` (None when no source gives any); tells stderr where from."""
    return resolve_read(command, args, index_path)[0]


def resolve_read(command: str, args: argparse.Namespace,
                 index_path: str) -> tuple[dict[str, DataType] | None, dict[str, DataType]]:
    """:func:`resolve`'s types, and those of them read from a data file or a table (none for ``--schema`` alone):
    the columns the data has, beside those the index holds."""
    override = parse_schema(args.schema) if args.schema is not None else {}
    if args.data and args.table:
        raise UsageError("give --data or --table, not both")
    source, data_file, schema = _read(args.data, args.table, index_path)
    if source is None:
        return override or None, {}
    read = dict(schema)
    if data_file is not None:
        indexed = list(schema) if index_path == "-" else indexed_columns(index_path)  # (stdin is read once, later)
        warn_imprecise_timestamps(command, data_file, indexed, override)
    if index_path != "-":
        warn_retyped_columns(command, index_path, schema, override)
    schema.update(override)
    overridden = f", {', '.join(override)} from --schema" if override else ""
    print(f"fileindex {command}: column types from {source}{overridden}", file=sys.stderr)
    return schema, read


def told_data_type(err: Exception, read: dict[str, DataType]) -> Exception:
    """A schema that does not fit a body of a column whose type the data file or table gives (``read``): the hint
    names that type, not the first of those the body fits (a bsi of small values fits SMALLINT as well as INT)."""
    from fileindex.errors import SchemaMisfitError
    from fileindex.indexes.type_fit import misfit_message
    from fileindex.types import column_type

    if not isinstance(err, SchemaMisfitError) or not err.index_type:
        return err
    data_type = column_type(read, err.column)
    if data_type is None or data_type == err.given:
        return err
    return SchemaMisfitError(misfit_message(err.column, err.given, err.index_type, err.fits, err.cause, data_type),
                             column=err.column, given=err.given, fits=err.fits, index_type=err.index_type,
                             cause=err.cause)


def _read(data: str | None, table: str | None,
          index_path: str) -> tuple[str | None, str | None, dict[str, DataType]]:
    """(where the types come from, as shown; the data file they were read from, if one; the types)."""
    if table:
        from fileindex.scan.table import PaimonTable

        schema = PaimonTable(table).schema
        return f"table {table} (schema {schema.id})", None, schema.types()
    if data:
        return data, data, data_file_types(data)
    beside = data_file_beside(index_path)
    if beside is not None:
        return f"{beside} (the data file beside the index)", beside, data_file_types(beside)
    return None, None, {}


def refuse_data_file(path: str) -> None:
    """A data file given where an index is expected: say so, and where its index is (its sidecar, or the table's
    manifest it is embedded in); a folder (a table's): name the command that reads a table's indexes."""
    from fileindex.arrow.data_files import FORMATS, data_file_format
    from fileindex.io.reach import names_a_store

    if path == "-":
        return
    on_store = names_a_store(path)
    if not on_store and Path(path).is_dir():
        refuse_folder(path)
    if on_store:  # (told by the name alone: no request before the index is read)
        kind = FORMATS.get(PurePosixPath(path).suffix.lower())
    else:
        kind = data_file_format(path) if Path(path).is_file() else None
    if kind is not None:
        raise UsageError(f"{path} is a {kind.capitalize()} data file, not a file index; {index_hint(path)}")


def index_hint(data_file: str) -> str:
    """Where the data file's index is (its sidecar, or the manifest of the table it lies in), or how to build
    one."""
    in_table = _index_in_table(data_file)
    if in_table:
        return in_table
    sidecar = f"{data_file}{SIDECAR_SUFFIX}"
    if _is_file(sidecar):
        return f"did you mean {sidecar}?"
    return f"build its index with: fileindex build {data_file} --option file-index.bloom-filter.columns=..."


def _index_in_table(data_file: str) -> str | None:
    """Where the index of a live data file of the table holding it lives, as a hint (None: not such a file, or no
    index the table names)."""
    from fileindex.scan.table import PaimonTable

    root = _table_holding(data_file)
    if root is None:
        return None
    try:
        table = PaimonTable(root)
        entry = table.find(data_file)
        if entry is None:
            return None
        _, found, _ = table.index_location(entry)
    except (OSError, FileIndexError):
        return None
    if isinstance(found, bytes):
        return (f"its index is embedded in the table's manifest: fileindex table {root} --explain "
                f"{table.relative(entry)} shows it")
    return f"did you mean {os.path.join(os.path.dirname(data_file), found.name)}?" if found is not None else None


def _table_holding(data_file: str) -> str | None:
    """The root of the table a data file lies in: locally the folder holding snapshot/ and schema/; on a store
    (where looking costs requests) the folder above its ``bucket-N`` and partition (``k=v``) folders."""
    from fileindex.io.reach import names_a_store
    from fileindex.table.store import table_holding

    if not names_a_store(data_file):  # (relative, as the path given is: ".." from inside bucket-0)
        found = table_holding(data_file)
        return None if found is None else str(found) if os.path.isabs(data_file) else os.path.relpath(found)
    parts = data_file.split("/")
    above = len(parts) - 2
    if above < 3 or not parts[above].startswith("bucket-"):
        return None
    above -= 1
    while above > 2 and "=" in parts[above]:
        above -= 1
    return "/".join(parts[: above + 1])


def _is_file(path: str) -> bool:
    from fileindex.io.reach import file_io_at, names_a_store

    if not names_a_store(path):
        return Path(path).is_file()
    try:
        found = file_io_at(path).info(path)
    except (OSError, FileIndexError):
        return False
    return found is not None and found.kind == "file"


def refuse_folder(path: str) -> None:
    from fileindex.table.store import is_table_root

    if is_table_root(path):
        raise _table_folder(path)
    if any(is_table_root(child) for child in Path(path).iterdir() if child.is_dir()):
        raise UsageError(f"{path} is a folder of tables, not a file index: give one table to fileindex table "
                         "... --indexes")
    raise _folder(path)


def _table_folder(path: str) -> UsageError:
    return UsageError(f"{path} is a Paimon table's folder, not a file index: list its indexes with fileindex "
                      f"table {path} --indexes (and explain one with --explain FILE)")


def _folder(path: str) -> UsageError:
    return UsageError(f"{path} is a folder, not a file index (a table's folder goes to fileindex table)")


def named_folder(path: str, err: Exception) -> Exception:
    """For a store's URI that names no object (``err``, as opening it failed): a folder there, or a table's, said
    as :func:`refuse_folder` says it of a local one (one listing, after the failure); else ``err``."""
    from fileindex.io.reach import file_io_at, names_a_store

    if not isinstance(err, FileNotFoundError) or not names_a_store(path):
        return err
    folder = path.rstrip("/")
    try:
        names = {child.name for child in file_io_at(folder).list(folder)}
    except (OSError, FileIndexError):
        return err
    if not names:
        return err
    return _table_folder(folder) if {"snapshot", "schema"} <= names else _folder(folder)


def refuse_non_data_file(path: str, command: str = "verify") -> None:
    """Anything but a Parquet or ORC file given where a data file is expected: say what it is instead."""
    from fileindex.arrow.data_files import data_file_format
    from fileindex.container.head import MAGIC

    if data_file_format(path) is not None:
        return
    with open(path, "rb") as file:
        is_index = file.read(len(MAGIC)) == MAGIC
    if is_index and command != "verify":
        raise UsageError(f"{path} is a file index, not a data file: fileindex {command} takes its data file")
    if is_index:
        beside = data_file_beside(path)
        order = f"fileindex verify {beside} {path}" if beside else f"fileindex verify DATA_FILE {path}"
        raise UsageError(f"{path} is a file index, not a data file; give the data file first: {order}")
    raise UsageError(f"{path} is not a Parquet or ORC data file")


def data_file_beside(index_path: str) -> str | None:
    """The data file a sidecar ``X.index`` lies beside (``X``, a Parquet or ORC file), if any."""
    from fileindex.arrow.data_files import data_file_format

    if not index_path.endswith(SIDECAR_SUFFIX):
        return None
    candidate = index_path[: -len(SIDECAR_SUFFIX)]
    return candidate if Path(candidate).is_file() and data_file_format(candidate) else None


def data_file_types(path: str) -> dict[str, DataType]:
    from fileindex.arrow.data_files import DataFileReader
    from fileindex.arrow.types import schema_of

    return schema_of(DataFileReader(path).arrow_schema, skip_untyped=True)


def warn_imprecise_timestamps(command: str, data: str | InputFile, columns: list[str],
                              override: dict[str, DataType]) -> None:
    """One line on stderr when ``columns`` of the data file hold ORC timestamps typed without ``--schema``."""
    from fileindex.arrow.data_files import DataFileReader
    from fileindex.writing.data_file import imprecise_timestamps, imprecise_timestamps_warning

    imprecise = imprecise_timestamps(DataFileReader(data), dict.fromkeys(columns), override)
    if imprecise:
        print(imprecise_timestamps_warning(command, imprecise), file=sys.stderr)


def warn_retyped_columns(command: str, index: str, read: dict[str, DataType],
                         override: dict[str, DataType]) -> list[str]:
    """One line on stderr for a column ``--schema`` types otherwise than its data where the index's bytes cannot tell
    (every other misfit is an error): a bloom filter keeps only hashes, and every index keeps a timestamp as
    milliseconds or microseconds and a decimal unscaled, with no precision or scale. Its answers are wrong.
    Returns those columns as shown (``name TYPE (the data: TYPE)``), none when ``--schema`` keeps the data's."""
    retyped = [name for name, given in override.items() if name in read and read[name].root != given.root]
    blooms = set(indexed_columns(index, "bloom-filter")) if retyped else set()
    named = [f"{name} {override[name]} (the data: {read[name]})" for name in retyped if name in blooms]
    if named:
        print(f"fileindex {command}: warning: --schema types bloom-filter column(s) otherwise than the data: "
              f"{', '.join(named)}; a bloom filter keeps only hashes, so under another type its answers are "
              "wrong (it may skip a file that holds the value): leave them out of --schema", file=sys.stderr)
    rescaled = [f"{name} {given} (the data: {read[name]})" for name, given in override.items()
                if name in read and read[name].root == given.root and _unit(read[name]) != _unit(given)]
    if rescaled:
        print(f"fileindex {command}: warning: --schema gives {', '.join(rescaled)}; an index keeps a timestamp as "
              "milliseconds (precision 3 or less) or microseconds and a decimal unscaled, so under another precision "
              "or scale its answers are wrong: leave them out of --schema", file=sys.stderr)
    return named + rescaled


def _unit(data_type: DataType) -> int | None:
    """What an index's numbers count for a type whose bytes do not record it: a timestamp's milliseconds (3) or
    microseconds (6), a decimal's scale; None for any other type."""
    if data_type.is_timestamp:
        return 3 if (data_type.precision or 0) <= 3 else 6
    return data_type.scale if data_type.root == "DECIMAL" else None


def indexed_columns(index: str, index_type: str | None = None) -> list[str]:
    """The columns the container indexes (``index_type``: those with a body of that type); none when it cannot
    be opened (the command reports why)."""
    from fileindex.container.file import FileIndexContainer
    from fileindex.errors import FileIndexError

    try:
        with FileIndexContainer.open(index) as container:
            if index_type is None:
                return container.columns
            return [record.name for record in container.head.column_records
                    if any(entry.index_type == index_type for entry in record.indexes)]
    except (FileIndexError, OSError):
        return []
