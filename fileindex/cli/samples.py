"""``fileindex samples``: inspect and check the Java-written sample containers bundled with the package."""
from __future__ import annotations

import argparse
from importlib import resources

from fileindex.cli import check, inspect
from fileindex.container.file import FileIndexContainer

NAME = "samples"
HELP = "inspect and check the bundled Java-written sample containers"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print inspect --json objects instead of tables")


def sample_paths() -> list[str]:
    folder = resources.files("fileindex") / "samples"
    return sorted(str(p) for p in folder.iterdir() if p.name.endswith(".index"))


def run(args: argparse.Namespace) -> int:
    worst = check.EXIT_VALID
    for path in sample_paths():
        container = FileIndexContainer.open(path)
        description = inspect.describe(container)
        print(inspect.json.dumps(description, ensure_ascii=False) if args.json else inspect.render(description))
        outcome = check.check_file(path)
        print(f"  check: {check.render(outcome)}\n")
        worst = max(worst, outcome["exit_code"])
    return worst
