"""``fileindex build DATA.parquet [-o OUT] --option KEY=VALUE ...``: the container Java would write."""
from __future__ import annotations

import argparse
import io
import os
import sys
from pathlib import Path

from fileindex.cli import HANDLED, column_types, parse_key_values, report_failure
from fileindex.storage_args import add_storage_options_argument
from fileindex.errors import UsageError

NAME = "build"
HELP = "build a Parquet or ORC file's index container from Paimon table options, byte-identical to Java"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="a Parquet or ORC data file (a path or a store's URI: s3://, gs://, abfs://, ...)")
    parser.add_argument("-o", "--output", help="where to write the container (default: DATA.index); on an object "
                                               "store it is created only if absent, never replacing an object")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a Paimon table option, e.g. file-index.bloom-filter.columns=id or "
                             "file-index.bloom-filter.id.fpp=0.01; repeat for more. "
                             "file-index.format.version=2 writes the experimental container version 2 "
                             "(experimental: Paimon PR #10101, not merged; 1 is the default)")
    parser.add_argument("--schema", help='types of the columns it names, overriding those read from the data '
                                         'file, e.g. "id BIGINT"')
    parser.add_argument("--writer-version", default="latest", metavar="VERSION",
                        help="the Paimon release whose writer to reproduce: latest (default) writes every index "
                             "type a column is declared under; 0.9, 1.0 and 1.1 write one type per column "
                             "(bloom-filter, else bitmap, else bsi), as those releases do")
    parser.add_argument("--force", action="store_true",
                        help="overwrite an existing OUT that is not a file-index container")
    add_storage_options_argument(parser)


def parse_option_args(pairs: list[str]) -> dict[str, str]:
    return parse_key_values(pairs, "--option", "file-index.bitmap.columns=name")


def run(args: argparse.Namespace) -> int:
    from fileindex.types import parse_schema
    from fileindex.io.atomic import replacing
    from fileindex.io.staleness import write_source_record
    from fileindex.pipeline.build import source_of
    from fileindex.writing.data_file import build_data_file_index
    from fileindex.writing.options import one_type_notes

    from fileindex.io.reach import names_a_store

    output = args.output or f"{args.data}.index"
    on_store = names_a_store(output)
    try:
        options = parse_option_args(args.option)
        schema = parse_schema(args.schema) if args.schema else None
        data = open_data_file(args.data)
        if on_store:
            check_store_output(output, args.data)
            built, written = build_into_store(output, data, options, schema, args.writer_version)
        else:
            check_output(output, args.data, force=args.force, named=args.output is not None)
            source = source_of(args.data, output)
            with replacing(output) as temporary, open(temporary, "wb") as out:
                built = build_data_file_index(data, options, schema, out, writer=args.writer_version)
            if source is not None:
                write_source_record(args.data, output, source)
            written = None
    except HANDLED as err:
        return report_failure(NAME, err, args.data)
    where = (f"Paimon would embed it in the manifest (<= file-index.in-manifest-threshold, "
             f"{built.in_manifest_threshold} bytes)" if built.embedded else
             f"Paimon would write it as a sidecar file (> file-index.in-manifest-threshold, "
             f"{built.in_manifest_threshold} bytes)")
    indexes = ", ".join(f"{r.column}:{r.index_type}" for r in built.requests)
    version = " (container version 2, experimental)" if built.version == 2 else ""
    print(f"wrote {output}: {built.size} bytes{version}, {built.row_count} rows, indexes {indexes}; {where}")
    for note in one_type_notes(options, args.writer_version):
        print(f"fileindex {NAME}: {note}", file=sys.stderr)
    column_types.warn_imprecise_timestamps(NAME, data, [r.column for r in built.requests], schema or {})
    data_bytes = data.size if not isinstance(data, str) else Path(data).stat().st_size
    print_advice(io.BytesIO(written) if written is not None else output, data_bytes=data_bytes,
                 options=built.index_options)
    return 0


def open_data_file(data: str):
    """A data file named by a store's URI opened once (its footer, advice and warnings read from the one
    opening); a local path as given, refused (exit 2, as verify) when a folder or no Parquet or ORC file."""
    from fileindex.cli.verify import refuse_folder
    from fileindex.io.reach import names_a_store, open_location

    if names_a_store(data):
        return open_location(data, "data file")
    if os.path.isdir(data):
        refuse_folder(data, NAME)
    if os.path.isfile(data):
        column_types.refuse_non_data_file(data, NAME)
    return data


def build_into_store(output: str, data, options, schema, writer: str):
    """The container built in memory, then created at ``output`` only if absent (one conditional PUT: a
    store offers no rename over a name, and an object there may be one a table's snapshot names)."""
    from fileindex.io.reach import file_io_at
    from fileindex.writing.data_file import build_data_file_index

    buffer = io.BytesIO()
    built = build_data_file_index(data, options, schema, buffer, writer=writer)
    written = buffer.getvalue()
    if not file_io_at(output).create(output, written):
        raise UsageError(f"-o {output} exists: on an object store build never replaces an object (a table's "
                         "snapshot may name it); delete it first or name another")
    return built, written


def check_store_output(output: str, data: str) -> None:
    """Refuse, before building, an output on a store that would destroy data: the input itself, a folder,
    another data file's index (an existing object is refused when created: see build_into_store)."""
    from fileindex.arrow.data_files import FORMATS
    from fileindex.io.locations import parse_location
    from fileindex.io.reach import file_io_at, names_a_store

    target = parse_location(output)
    if output.endswith("/") or not target.key:
        raise UsageError(f"-o {output} is a folder: name the object to write, e.g. "
                         f"{output.rstrip('/')}/{data.rstrip('/').rsplit('/', 1)[-1]}.index")
    if names_a_store(data) and _same_object(target, parse_location(data)):
        raise UsageError(f"-o {output} is the data file itself: building would replace the data with its index")
    indexed = output.removesuffix(".index")
    if (indexed != output and Path(indexed).suffix.lower() in FORMATS
            and not (names_a_store(data) and _same_object(parse_location(indexed), parse_location(data)))
            and file_io_at(indexed).info(indexed) is not None):
        raise UsageError(f"-o {output} is the index of data file {indexed}: {data}'s index there would answer for "
                         f"{indexed}'s rows; name another object")


def _same_object(one, other) -> bool:
    return (one.store, one.account, one.host, one.bucket, one.key) == (other.store, other.account, other.host,
                                                                        other.bucket, other.key)


def print_advice(output, *, data_bytes: int, options=None) -> None:
    """Every index that costs more than it can save (``fileindex.indexes.advice``), one line each on stderr;
    ``output`` the container's path or its bytes as a stream, ``options`` each index's (``index_options``)."""
    from fileindex.container.file import FileIndexContainer
    from fileindex.indexes.advice import advise_container

    with FileIndexContainer.open(output) as container:
        for advice in advise_container(container, data_bytes=data_bytes, options=options):
            print(f"fileindex {NAME}: {advice.column}:{advice.index_type} {advice.verdict}: {advice.advice}",
                  file=sys.stderr)


def check_output(output: str, data: str, *, force: bool, named: bool = True) -> None:
    """Refuse an output that would destroy data: the input itself, a folder, another data file's
    index, an index file that a table's snapshot names, a file that is no container (without --force).
    ``named``: ``output`` was given with -o (else it is the default, beside the data file)."""
    from fileindex.arrow.data_files import data_file_format
    from fileindex.container.head import MAGIC
    from fileindex.table.sidecars import enclosing_table, naming_snapshot
    from fileindex.writing.outputs import real

    target = Path(output)
    if target.is_dir():
        example = target / (Path(data).name + ".index")
        if example.exists() and naming_snapshot(example):
            example = _outside_table(example, data)
        raise UsageError(f"-o {output} is a folder: name the file to write, e.g. {example}")
    if not target.parent.is_dir():
        raise UsageError(f"-o {output}: folder {target.parent} does not exist")
    if real(output) == real(data):
        raise UsageError(f"-o {output} is the data file itself: building would replace the data with its index")
    indexed = Path(output.removesuffix(".index"))
    if output.endswith(".index") and indexed.is_file() and data_file_format(indexed) and real(indexed) != real(data):
        raise UsageError(f"-o {output} is the index of data file {indexed}: {data}'s index there would answer for "
                         f"{indexed}'s rows; name another file")
    table = enclosing_table(target)
    if table is not None and not output.endswith(".index"):  # Paimon reads the table's other files as its own
        raise UsageError(f"-o {output} lies in table {table} and is not an .index file: a table's data and metadata "
                         "are never written by build (even with --force); name a file ending in .index")
    if not target.exists():
        return
    snapshot = naming_snapshot(target)
    if snapshot:
        given = f"-o {output}" if named else f"the default output, {output} (beside the data file),"
        raise UsageError(f"{given} is the index file that {snapshot} of its table names (Paimon reads it): "
                         f"never replaced; name another file with -o, e.g. -o {_outside_table(target, data)}")
    with open(target, "rb") as existing:
        is_container = existing.read(len(MAGIC)) == MAGIC
    if not is_container and not force:
        raise UsageError(f"-o {output} exists and is not a file-index container; pass --force to overwrite it")


def _outside_table(index: Path, data: str) -> Path:
    """A file for the index of ``data`` beside the table that ``index`` lies in, where build may write it."""
    from fileindex.table.sidecars import enclosing_table

    table = enclosing_table(index)
    return (table.parent if table is not None else index.parent) / (Path(data).name + ".index")
