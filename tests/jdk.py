"""Compile and run small Java programs of our own (tests/java/*.java) with the machine's JDK."""
from __future__ import annotations

import atexit
import shutil
import subprocess
import tempfile
from pathlib import Path

from conftest import ROOT, unavailable

JAVA_SOURCES = ROOT / "tests" / "java"
_COMPILED: dict[tuple[str, tuple[str, ...]], Path] = {}  # (class, classpath) -> its classes, compiled once a session


def compiled(main_class: str, classpath: list[Path]) -> Path:
    """The folder holding ``tests/java/<main_class>.java`` compiled against ``classpath``: javac runs once per
    test session for each (a dozen modules start the oracle; each compile took seconds of CPU)."""
    key = (main_class, tuple(map(str, classpath)))
    if key not in _COMPILED:
        folder = Path(tempfile.mkdtemp(prefix=f"javac-{main_class}-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        subprocess.run(["javac", "-d", str(folder), "-cp", ":".join([str(folder), *key[1]]),
                        str(JAVA_SOURCES / f"{main_class}.java")], check=True)
        _COMPILED[key] = folder
    return _COMPILED[key]


def require_jdk() -> None:
    if shutil.which("javac") and shutil.which("java"):
        return
    unavailable("a JDK (javac, java)", "tools/setup.sh --test installs openjdk-17-jdk-headless")


class JavaProgram:
    """One JVM answering line-based requests on stdin/stdout."""

    def __init__(self, main_class: str, workdir: Path, classpath: list[Path] = (), jvm_args: list[str] = ()):
        require_jdk()
        shutil.copytree(compiled(main_class, list(classpath)), workdir, dirs_exist_ok=True)
        path = [str(workdir), *map(str, classpath)]
        self.process = subprocess.Popen(
            ["java", *jvm_args, "-cp", ":".join(path), main_class], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True)

    def ask(self, line: str) -> str:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise RuntimeError("the Java program stopped answering")
        return answer.rstrip("\n")

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)
        self.process.stdout.close()
