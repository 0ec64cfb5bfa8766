"""Output piped into a reader that has gone (``| head -1``): every command ends quietly, exit 0, without blaming
its input for the closed pipe."""
import subprocess
import sys

import pytest
from conftest import JAVA_VECTORS, ROOT

VECTOR = JAVA_VECTORS / "str_high_card_100k__bitmap_v2.index"
TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"


@pytest.mark.parametrize("argv", [
    ["read", TABLE, "--json"],
    ["table", TABLE, "--indexes", "--json"],
    ["table", TABLE, "--indexes"],
    ["explain", VECTOR, "--schema", "c STRING"],
    ["query", VECTOR, "--schema", "c STRING", "--where", "c IS NOT NULL"],
], ids=["read", "table --indexes --json", "table --indexes", "explain", "query"])
def test_a_closed_pipe_ends_the_command_quietly(argv):
    process = subprocess.Popen([sys.executable, "-m", "fileindex", *map(str, argv)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    process.stdout.close()  # before the command writes a line
    err = process.stderr.read()
    assert process.wait(timeout=120) == 0 and err == "", err
