"""Running the command line on hostile inputs: in a subprocess under a memory limit (RLIMIT_AS) and a
time limit, with what a refusal must look like (one line on stderr, no traceback)."""
import resource
import subprocess
import sys
from dataclasses import dataclass

MEMORY_LIMIT = 2 << 30  # enough for the interpreter and its libraries, far below what a bomb asks for


@dataclass
class Finished:
    returncode: int
    stdout: str
    stderr: str

    @property
    def error_lines(self) -> list[str]:
        """stderr without the progress lines ``kit run`` prints."""
        return [line for line in self.stderr.splitlines() if not line.startswith("kit run: ")]


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def fileindex(*args, cwd=None, timeout: float = 120) -> Finished:
    """``fileindex ARGS`` under the memory limit (a TimeoutExpired fails the test: nothing may hang)."""
    done = subprocess.run([sys.executable, "-m", "fileindex", *map(str, args)], capture_output=True, text=True,
                          preexec_fn=_limit_memory, timeout=timeout, cwd=cwd)
    return Finished(done.returncode, done.stdout, done.stderr)


def python(script: str, timeout: float = 120) -> Finished:
    """``python -c SCRIPT`` under the memory limit: input the command line cannot pass (an argument over 128 KiB)."""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, preexec_fn=_limit_memory,
                          timeout=timeout)
    return Finished(done.returncode, done.stdout, done.stderr)


def refused(done: Finished, *fragments: str, code: int = 3) -> str:
    """The one error line of a refusal with exit ``code`` that holds every fragment."""
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr, done.stderr[-2000:]
    assert done.returncode == code, (done.returncode, done.stdout[-1000:], done.stderr[-1000:])
    assert len(done.error_lines) == 1, done.stderr
    line = done.error_lines[0]
    for fragment in fragments:
        assert fragment in line, (fragment, line)
    return line
