"""``fileindex build DATA.parquet [-o OUT] --option KEY=VALUE ...``: the container Java would write."""
from __future__ import annotations

import argparse

from . import HANDLED, parse_key_values, report_failure

NAME = "build"
HELP = "build a Parquet or ORC file's index container from Paimon table options, byte-identical to Java"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="a Parquet or ORC data file")
    parser.add_argument("-o", "--output", help="where to write the container (default: DATA.index)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a Paimon table option, e.g. file-index.bloom-filter.columns=id or "
                             "file-index.bloom-filter.id.fpp=0.01; repeat for more")
    parser.add_argument("--schema", help="column types overriding those read from the Parquet file")


def parse_option_args(pairs: list[str]) -> dict[str, str]:
    return parse_key_values(pairs, "--option", "file-index.bitmap.columns=name")


def run(args: argparse.Namespace) -> int:
    from ..data_file_index_writer import build_data_file_index
    from ..types import parse_schema

    try:
        options = parse_option_args(args.option)
        schema = parse_schema(args.schema) if args.schema else None
        built = build_data_file_index(args.data, options, schema)
    except HANDLED as err:
        return report_failure(NAME, err, args.data)
    output = args.output or f"{args.data}.index"
    with open(output, "wb") as out:
        out.write(built.data)
    where = (f"Paimon would embed it in the manifest (<= file-index.in-manifest-threshold, "
             f"{built.in_manifest_threshold} bytes)" if built.embedded else
             f"Paimon would write it as a sidecar file (> file-index.in-manifest-threshold, "
             f"{built.in_manifest_threshold} bytes)")
    indexes = ", ".join(f"{r.column}:{r.index_type}" for r in built.requests)
    print(f"wrote {output}: {len(built.data)} bytes, {built.row_count} rows, indexes {indexes}; {where}")
    return 0
