"""``fileindex rewrite TABLE_PATH``: add, rebuild and drop the file indexes of an existing Paimon table from its
current options, committed as one COMPACT snapshot Java reads (Paimon's ``CALL sys.rewrite_file_index``)."""
from __future__ import annotations

import argparse
import json
import sys

from fileindex.cli import HANDLED, report_failure
from fileindex.storage_args import add_storage_options_argument

NAME = "rewrite"
HELP = ("rebuild the file indexes of a Paimon append table from its current file-index options (set them with "
        "fileindex table ROOT --set ...) and commit them as one COMPACT snapshot, as Paimon's rewrite_file_index")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``rewrite`` and ``spark rewrite``."""
    parser.add_argument("table", help="the table root (the folder holding snapshot/, schema/, manifest/): a path or "
                                      "a URI (s3://, gs://, abfs://, ...)")
    parser.add_argument("--partition", metavar="SPEC",
                        help="only these partitions: k=v[,k=v][;k=v...] (';' separates partitions), as Java's "
                             "procedure")
    parser.add_argument("--mode", choices=("auto", "delta", "fold"), default="auto",
                        help="delta: DELETE+ADD entries as Java's rewrite; fold: every live entry in new ADD-only "
                             "manifests (repairs a table whose old entries Paimon 0.9 cannot read); auto (default): "
                             "fold on tables Paimon 0.9 wrote, delta otherwise")
    parser.add_argument("--compat", default="auto", metavar="FLOOR",
                        help="the oldest Paimon that must read the table: auto (default: from its manifests), "
                             "0.9, 1.0, 1.1, 1.3, or none (no check); indexes it cannot read are refused")
    parser.add_argument("--writer-version", default="auto", metavar="VERSION",
                        help="the Paimon release whose writers to reproduce: auto (default: 0.9 or 1.0 when the "
                             "table's manifests have that shape, else latest), a release such as 0.9, 1.1 or 1.2, or "
                             "latest; below 1.2 one index type per column (bloom-filter, else bitmap, else bsi)")
    parser.add_argument("--branch", metavar="NAME",
                        help="the branch to rewrite: main (default) only; another branch is refused")
    parser.add_argument("--allow-external-paths", action="store_true",
                        help="rewrite data files under external paths (data-file.external-paths) too, writing their "
                             "index files beside them, outside the table (refused by default)")
    add_storage_options_argument(parser)
    parser.add_argument("--dry-run", action="store_true",
                        help="print what would change per file (location, sizes, sidecar names); write nothing")
    parser.add_argument("--json", action="store_true", help="JSON lines: one object per data file, then a summary")


def run(args: argparse.Namespace) -> int:
    from fileindex.table.rewrite import rewrite_file_index

    try:
        result = rewrite_file_index(args.table, partitions=args.partition, mode=args.mode, compat=args.compat,
                                    dry_run=args.dry_run, allow_external=args.allow_external_paths,
                                    writer=args.writer_version, branch=args.branch)
    except HANDLED as err:
        return report_failure(NAME, err, args.table)
    print_result(result, as_json=args.json)
    return 0


ADVISED_FILES_SHOWN = 5  # sizing advice is printed for this many files; --json carries every file's


def print_result(result, *, as_json: bool, command: str = NAME) -> None:
    advised = 0
    for change in result.changes:
        row = change.as_dict()
        if as_json:
            print(json.dumps(row, ensure_ascii=False))
        elif change.changed:
            verb = "would write" if result.dry_run else "wrote"
            where = f"sidecar {change.sidecar}" if change.location == "sidecar" else change.location
            print(f"{row['file']}  {row['old']} {row['old_bytes']} B -> {where} {row['new_bytes']} B"
                  + (f"  ({verb} {change.sidecar})" if change.written or (result.dry_run and change.sidecar) else ""))
        else:
            print(f"{row['file']}  unchanged ({row['old']})")
        if not as_json and change.advice:
            advised += 1
            for advice in change.advice if advised <= ADVISED_FILES_SHOWN else ():
                print(f"fileindex {command}: {row['file']}: {advice}", file=sys.stderr)
    if advised > ADVISED_FILES_SHOWN:
        print(f"fileindex {command}: sizing advice for {advised - ADVISED_FILES_SHOWN} more file(s) left out; "
              "--json lists every file's", file=sys.stderr)
    summary = result.as_dict()
    if not as_json:
        for note in result.notes:
            print(f"fileindex {command}: {note}", file=sys.stderr)
    if as_json:
        print(json.dumps({"summary": summary}))
        return
    for name in result.dropped:
        print(f"fileindex {command}: {name}: a concurrent commit changed it first; not rewritten (re-run to "
              "index it)", file=sys.stderr)
    counts = f"{summary['changed']} of {summary['files']} file(s) to rewrite, {summary['unchanged']} unchanged"
    if result.dry_run:
        print(f"dry run at snapshot {result.base_snapshot_id} (mode {result.mode}, reader floor "
              f"{result.floor or 'none'}, writers {summary['writer']}): {counts}; nothing written")
    elif result.snapshot_id is None:
        print(f"nothing to commit: {counts}")
    else:
        print(f"committed snapshot {result.snapshot_id} (COMPACT, mode {result.mode}): {counts}"
              + (f", {len(result.dropped)} dropped" if result.dropped else ""))
