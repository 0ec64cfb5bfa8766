"""Compile and run small Java programs of our own (tests/java/*.java) with the machine's JDK."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from conftest import ROOT, unavailable

JAVA_SOURCES = ROOT / "tests" / "java"


def require_jdk() -> None:
    if shutil.which("javac") and shutil.which("java"):
        return
    unavailable("a JDK (javac, java)", "tools/setup.sh --test installs openjdk-17-jdk-headless")


class JavaProgram:
    """One JVM answering line-based requests on stdin/stdout."""

    def __init__(self, main_class: str, workdir: Path, classpath: list[Path] = (), jvm_args: list[str] = ()):
        require_jdk()
        source = JAVA_SOURCES / f"{main_class}.java"
        path = [str(workdir), *map(str, classpath)]
        subprocess.run(["javac", "-d", str(workdir), "-cp", ":".join(path), str(source)], check=True)
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
