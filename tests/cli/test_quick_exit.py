"""A command line's own process running a command of ``app.ENDS_WITHOUT_TEARDOWN`` ends without the interpreter's
teardown (#54): its output complete, its exit code kept, the exit handlers run; and collects garbage less often.
Another command, or ``main`` called by a program, ends as Python ends, the collector left as it was."""
import subprocess
import sys

import pytest
from conftest import ROOT

TABLE = "tests/tables/parquet/append_with_bitmap.db/append_with_bitmap"

# a global whose finalizer runs only in the interpreter's teardown, and an exit handler
PROGRAM = """
import atexit, gc, sys
from fileindex.cli import main

class Teardown:
    def __del__(self):
        print("teardown", file=sys.stderr, flush=True)

kept = Teardown()
atexit.register(lambda: print(f"exit handler, collecting every {{gc.get_threshold()[0]}}", file=sys.stderr))
sys.argv[1:] = sys.argv[2:]
{call}
"""


def run(call: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PROGRAM.format(call=call), "-", *args], cwd=ROOT,
                          capture_output=True, text=True)


@pytest.mark.parametrize("where, code, rows", [("f0 = 'Alice'", 0, 2), ("nope = 1", 2, 0)])
def test_a_read_ends_without_teardown_its_output_and_code_kept(where, code, rows):
    done = run("sys.exit(main())", "read", TABLE, "--where", where, "--json")
    assert done.returncode == code, done.stderr
    assert len(done.stdout.splitlines()) == rows
    assert "exit handler, collecting every 50000" in done.stderr and "teardown" not in done.stderr


def test_other_commands_and_programs_calling_main_end_as_python_ends():
    other = run("sys.exit(main())", "demo", "--help")
    assert other.returncode == 0 and "exit handler" in other.stderr and "teardown" in other.stderr
    called = run("assert main(sys.argv[1:]) == 0", "read", TABLE, "--where", "f0 = 'Alice'", "--json")
    assert called.returncode == 0 and len(called.stdout.splitlines()) == 2 and "teardown" in called.stderr
    assert "exit handler, collecting every 700" in called.stderr
