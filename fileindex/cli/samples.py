"""``fileindex samples``: inspect and check the Java-written sample containers bundled with the package."""
from __future__ import annotations

import argparse
import shlex
from importlib import resources
from pathlib import Path

from fileindex.cli import check, inspect
from fileindex.container.file import FileIndexContainer
from fileindex.samples import SAMPLES
from fileindex.types import parse_schema

NAME = "samples"
HELP = "inspect and check the bundled Java-written sample containers"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print inspect --json objects instead of tables")


def sample_paths() -> list[str]:
    folder = resources.files("fileindex") / "samples"
    return sorted(str(p) for p in folder.iterdir() if p.name.endswith(".index"))


def shell_word(text: str) -> str:
    """``text`` quoted for a POSIX shell, in double quotes when it holds single quotes (SQL strings) and nothing
    a double-quoted word would expand."""
    if "'" in text and not any(c in text for c in '"$`\\!'):
        return f'"{text}"'
    return shlex.quote(text)


def run(args: argparse.Namespace) -> int:
    worst = check.EXIT_VALID
    for path in sample_paths():
        container = FileIndexContainer.open(path)
        description = inspect.describe(container)
        if args.json:
            description = {**description, "schema": SAMPLES[Path(path).name].schema}
        print(inspect.json.dumps(description, ensure_ascii=False) if args.json else inspect.render(description))
        sample = SAMPLES[Path(path).name]
        outcome = check.check_file(path, parse_schema(sample.schema))
        if not args.json:
            print(f"  schema: {sample.schema}")
            print(f"  try:    fileindex query {shell_word(path)} --schema {shell_word(sample.schema)} "
                  f"--where {shell_word(sample.where)}")
        print(f"  check: {check.render(outcome)}\n")

        worst = max(worst, outcome["exit_code"])
    return worst
