"""``fileindex conformance DIR``: this implementation against a directory of expected results."""
from __future__ import annotations

import argparse

from fileindex.cli import HANDLED, report_failure

NAME = "conformance"
HELP = "check readers and writers against a folder laid out like tests/vectors/java (vectors.json, datasets/)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", help="a folder with vectors.json, datasets/*.json and the .index files")
    parser.add_argument("--failures", type=int, default=20, metavar="N", help="list at most N failures (default 20)")
    parser.add_argument("--no-manifest", action="store_true",
                        help="check a folder whose vectors.json declares no manifest (its counts then go unchecked)")


def run(args: argparse.Namespace) -> int:
    from fileindex.reference.conformance import check_directory

    try:
        report = check_directory(args.folder, require_manifest=not args.no_manifest)
    except HANDLED as err:
        return report_failure(NAME, err, args.folder)
    except (KeyError, ValueError) as err:  # JSON that is not laid out like tests/vectors/java
        print(f"fileindex conformance: {args.folder}: vectors.json is not in the expected layout ({err!r})")
        return 2
    print(report.table())
    for failure in report.failures[: args.failures]:
        print(f"FAIL {failure}")
    print("PASS" if report.ok else f"FAIL: {sum(report.failed.values())} check(s) failed")
    return 0 if report.ok else 1
