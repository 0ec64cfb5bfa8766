"""``fileindex kit export|run|adapter``: the conformance kit (docs/kit.md)."""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from fileindex.cli import HANDLED, report_failure
from fileindex.cli.exits import EXIT_USAGE
from fileindex.errors import UsageError
from fileindex.storage_args import add_storage_options_argument, storage_options

NAME = "kit"
HELP = "the conformance kit: export the corpus, run implementations through it, this project's adapter"


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds: give one above 0, e.g. 30")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from fileindex.kit.protocol import TIMEOUT, add_request_arguments

    commands = parser.add_subparsers(dest="kit_command", metavar="KIT_COMMAND", required=True)

    def command(name: str, text: str) -> argparse.ArgumentParser:  # (its --help opens with the text, as others do)
        return commands.add_parser(name, help=text, description=text)

    export = command("export", "write the versioned corpus folder and its reproducible .tar.gz")
    export.add_argument("out", help="the folder to write paimon-fileindex-kit-<version>/ and its .tar.gz into")
    export.add_argument("--vectors", help="a folder laid out like tests/vectors/java (default: this checkout's)")
    export.add_argument("--tables", help="a folder laid out like tests/tables/parquet (default: this checkout's)")
    run = command("run", "run implementations (adapters) through a corpus folder")
    run.add_argument("folder", help="a corpus folder or its .tar.gz (fileindex kit export writes both)")
    run.add_argument("--impl", action="append", required=True, metavar="COMMAND",
                     help='an adapter command, e.g. "fileindex kit adapter"; repeat for producer × consumer')
    run.add_argument("--json", metavar="FILE", help="write the results as JSON (- for stdout)")
    run.add_argument("--html", metavar="FILE", help="write the results as an HTML page")
    run.add_argument("--workdir", help="where the adapters write their containers (default: a temporary folder)")
    run.add_argument("--failures", type=int, default=20, metavar="N",
                     help="list at most N failures on the terminal (default 20; --json lists every one)")
    run.add_argument("--only", action="append", metavar="PATTERN",
                     help="run only the cases of a layout (bitmap-v1, bitmap-v1@v2, multi-column, table, bad, "
                          "refusals) or whose name matches a glob (int_*); repeat for more")
    run.add_argument("--fail-fast", action="store_true", help="end the run at the first failure, with its report")
    run.add_argument("--timeout", type=_seconds, default=TIMEOUT, metavar="SECONDS",
                     help=f"the time one answer may take (default {TIMEOUT:g}); an adapter that takes longer is "
                          "stopped and the check fails")
    run.add_argument("--budget", type=_seconds, metavar="SECONDS",
                     help="the time the whole run may take; then it ends with a report of what it got (exit 1)")
    run.add_argument("--tables-at", metavar="URI",
                     help="the URI (s3://, gs://, abfs://...) the corpus's tables/ folder was copied to: Tier 2 "
                          "requests name each table there, with the --storage-option pairs (an adapter that reads "
                          "tables on that store answers them); the corpus folder is still checked as it is")
    add_storage_options_argument(run)
    adapter = command("adapter", "this project's adapter: the kit's requests answered by this package (docs/kit.md)")
    add_request_arguments(adapter)


def run(args: argparse.Namespace) -> int:
    try:
        return {"export": _export, "run": _run, "adapter": _adapter}[args.kit_command](args)
    except HANDLED as err:
        return report_failure(f"{NAME} {args.kit_command}", err, getattr(args, "folder", None) or
                              getattr(args, "out", None) or "")


def _export(args: argparse.Namespace) -> int:
    from fileindex.kit.export import export

    folder, archive, digest = export(args.out, args.vectors, args.tables)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    print(f"{folder}: kit {manifest['kit_version']}, {len(manifest['files'])} files")
    print(json.dumps(manifest["cases"], sort_keys=True))
    print(f"{archive}: sha256 {digest}")
    return 0


def _run(args: argparse.Namespace) -> int:
    from fileindex.kit import report
    from fileindex.kit.runner import run as run_kit
    from fileindex.io.reach import note_store_reached
    from fileindex.writing.outputs import write_file_output

    def progress(text: str) -> None:
        print(f"kit run: {text}", file=sys.stderr)

    check_outputs(args.folder, {"--json": args.json if args.json != "-" else None, "--html": args.html})
    if args.storage_options:
        if not args.tables_at:
            raise UsageError("--storage-option goes with --tables-at: it reaches the store the tables were copied "
                             "to (the corpus folder is read as it is)")
        note_store_reached()  # (handed on to the adapters, which open the store)
    with tempfile.TemporaryDirectory(prefix="fileindex-kit-") as scratch:
        results = run_kit(args.folder, args.impl, args.workdir or scratch, progress, only=args.only or (),
                          fail_fast=args.fail_fast, timeout=args.timeout, budget=args.budget,
                          tables_at=args.tables_at, storage_options=storage_options(args))
    if args.json == "-":
        print(json.dumps(report.to_json(results), indent=2, ensure_ascii=False))
    else:
        print(report.terminal(results, args.failures))
        if args.json:
            write_file_output(args.json, json.dumps(report.to_json(results), indent=2, ensure_ascii=False) + "\n")
    if args.html:
        write_file_output(args.html, report.to_html(results))
    return EXIT_USAGE if results.checked_nothing else 0 if results.ok else 1


def check_outputs(corpus: str, outputs: dict[str, str | None]) -> None:
    """Before a long run: each report can be written, is no symlink, and would replace no file of the
    corpus (its folder or tarball, and the tarball's .sha256) nor lie in a Paimon table."""
    from fileindex.table.store import table_holding
    from fileindex.writing.outputs import check_file_output

    inputs = [corpus, corpus + ".sha256"] if Path(corpus).is_file() else [corpus]
    for flag, output in outputs.items():
        if output:
            check_file_output(output, inputs, what=flag)
            table = table_holding(output)
            if table is not None:
                raise UsageError(f"{flag} {output} lies inside the Paimon table {table}: a report there would "
                                 "replace or join the table's own files; choose a file outside it")


def _adapter(args: argparse.Namespace) -> int:
    from fileindex.kit.adapter import handle
    from fileindex.kit.protocol import from_argv, serve

    if args.call == "batch":
        return serve(handle)
    answer = handle(from_argv(args))
    print(json.dumps(answer, ensure_ascii=False))
    return 0
