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
