"""docs/cli.md is every command's --help as the parser prints it now (tools/cli_reference.py writes it)."""
import subprocess
import sys

from conftest import ROOT


def test_the_cli_reference_is_fresh():
    result = subprocess.run([sys.executable, "tools/cli_reference.py", "--check"], cwd=ROOT, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_cli_reference_holds_every_command():
    from fileindex.cli.app import COMMANDS

    page = (ROOT / "docs" / "cli.md").read_text()
    assert all(f"## `fileindex {name}`" in page for name in COMMANDS)
    assert "## `fileindex spark scan`" in page and "## `fileindex kit run`" in page


def test_every_commands_help_says_what_it_does():
    """trial18: `kit adapter --help` (and kit's other commands) went from the usage line straight to the arguments."""
    sys.path.insert(0, str(ROOT / "tools"))
    from cli_reference import commands

    from fileindex.cli import build_parser

    assert [" ".join(path) for path, parser in commands(build_parser()) if not parser.description] == []
