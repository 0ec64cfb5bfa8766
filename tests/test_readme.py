"""The README's short examples run as written (those that need no Spark), from a folder laid out like the
repository, so they cannot rot; and the README stays a few screens long."""
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT

README = (ROOT / "README.md").read_text()
NOT_HERE = ("spark", "setup.sh", "pytest", "ruff")  # Spark's examples (tests/spark), and the commands of CI


def bash_blocks() -> dict[str, list[str]]:
    """The commands of each bash block the test runs, by the heading above it."""
    blocks = {}
    for section in re.split(r"^## ", README, flags=re.M)[1:]:
        heading = section.splitlines()[0]
        for block in re.findall(r"```bash\n(.*?)```", section, re.S):
            commands = [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
            if not any(word in line for line in commands for word in NOT_HERE):
                blocks.setdefault(heading, []).extend(commands)
    return blocks


@pytest.fixture
def checkout(tmp_path):
    """A folder with the repository's samples and tables, and a .venv/bin running this checkout's package."""
    for name in ("fileindex", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name, command in (("python", f'"{sys.executable}"'), ("fileindex", f'"{sys.executable}" -m fileindex')):
        (bin_dir / name).write_text(f'#!/bin/sh\nexec {command} "$@"\n')
        (bin_dir / name).chmod(0o755)
    return tmp_path


def run_commands(folder, commands: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for command in commands:
        result = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True,
                                timeout=600)
        assert result.returncode == 0, (command, result.stdout[-2000:], result.stderr[-2000:])
        assert result.stdout.strip() or "fileindex" not in command, command  # a command of ours says what it did


def test_the_readme_is_a_few_screens_and_starts_with_the_two_commands():
    assert len(README.splitlines()) <= 200
    first = re.findall(r"```bash\n(.*?)\n```", README, re.S)[:2]
    assert first == ["bash tools/setup.sh && .venv/bin/fileindex demo",
                     "bash tools/setup.sh --test && .venv/bin/python -m pytest"]
    assert "about 2 minutes the first time" in README
    assert '-m "not spark and not java and not browser and not slow and not node"' in README


def test_the_readme_runs_an_example_of_each_use():
    assert set(bash_blocks()) >= {"Inspect and explain a file", "Query a file", "Build and verify a data file's index",
                                  "Check a Paimon table's indexes", "Read a table into pandas, DuckDB or Polars",
                                  "Add indexes to a table", "Run the conformance kit"}


@pytest.mark.parametrize("heading", [h for h in bash_blocks() if h != "Run the conformance kit"])
def test_a_readme_example_runs(checkout, heading):
    run_commands(checkout, bash_blocks()[heading])


@pytest.mark.slow
def test_the_readme_conformance_kit_example_runs(checkout):
    run_commands(checkout, bash_blocks()["Run the conformance kit"])


@pytest.mark.parametrize("heading,printed", [("From Python", r"ROWS|Rows"),
                                             ("Read a table into pandas, DuckDB or Polars", r"Lucy[\s\S]*file_index")])
def test_the_readme_python_examples_run(checkout, heading, printed):
    code = re.search(rf"## {re.escape(heading)}\n.*?```python\n(.*?)```", README, re.S).group(1)
    result = subprocess.run([sys.executable, "-c", code], cwd=checkout, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert re.search(printed, result.stdout), result.stdout


def test_every_link_of_the_readme_leads_somewhere():
    targets = [t for t in re.findall(r"\]\(([^)#]+)", README) if not t.startswith("https://")]
    assert targets and all((ROOT / t).is_file() for t in targets), [t for t in targets if not (ROOT / t).is_file()]
