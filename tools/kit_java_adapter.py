#!/usr/bin/env python3
"""The conformance kit's Java Paimon 0.9.0 adapter: compiles tools/java/KitAdapter.java against the 0.9.0
jar (once, into .cache/kit-java/) and runs it with the arguments given.

    fileindex kit run KIT_DIR --impl "fileindex kit adapter" --impl "python tools/kit_java_adapter.py"

Needs a JDK (javac, java; tools/setup.sh --test installs one) and the jar tools/fetch_java_oracle.py
fetches (--jar or $PAIMON_KIT_JAR names another Paimon jar with its dependencies shaded in). Tier 2
(scanning tables) also needs the Hadoop client jars, taken from the pyspark package when installed.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tools" / "java" / "KitAdapter.java"
DEFAULT_JAR = ROOT / ".cache" / "paimon-python-java-bridge-0.9.0.jar"


def compiled(jar: Path, sources: tuple[Path, ...] = (SOURCE,), folder: str = "kit-java") -> Path:
    """The folder ``.cache/FOLDER`` holding ``sources`` compiled together against ``jar`` (rebuilt when a
    source is newer than its class). Processes compiling at once (CI runs test jobs side by side) each build
    into a scratch folder; the first renamed into place stays, for a JVM may already be loading from it."""
    target = ROOT / ".cache" / folder

    def fresh() -> bool:
        built = [target / f"{source.stem}.class" for source in sources]
        return all(c.is_file() and c.stat().st_mtime >= s.stat().st_mtime for c, s in zip(built, sources, strict=True))

    if fresh():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=target.parent, prefix=f"{folder}-"))
    done = subprocess.run(["javac", "-nowarn", "-d", str(scratch), "-cp", str(jar), *map(str, sources)],
                          capture_output=True, text=True)
    if done.returncode:
        shutil.rmtree(scratch)
        sys.exit(f"kit_java_adapter: javac failed:\n{done.stderr}")
    if target.exists() and not fresh():  # a stale build: set aside, never deleted under a running JVM's feet
        with contextlib.suppress(OSError):  # (another process may have set it aside first)
            target.rename(Path(tempfile.mkdtemp(dir=target.parent, prefix=f"{folder}-stale-")) / folder)
    try:
        scratch.rename(target)
    except OSError:  # another process's build is in place now: either will do
        shutil.rmtree(scratch, ignore_errors=True)
    return target


def hadoop_jars() -> list[Path]:
    """The Hadoop client jars Paimon's Parquet reader needs; the pyspark package ships them."""
    import importlib.util

    spec = importlib.util.find_spec("pyspark")
    jars = sorted(Path(spec.origin).parent.glob("jars/hadoop-client-*.jar")) if spec and spec.origin else []
    return jars if len(jars) >= 2 else []


def main(argv: list[str]) -> int:
    jar = Path(os.environ.get("PAIMON_KIT_JAR", DEFAULT_JAR))
    if argv[:1] == ["--jar"]:
        jar, argv = Path(argv[1]), argv[2:]
    for tool in ("javac", "java"):
        if shutil.which(tool) is None:
            sys.exit(f"kit_java_adapter: no {tool} on PATH: tools/setup.sh --test installs a JDK")
    if not jar.is_file():
        sys.exit(f"kit_java_adapter: {jar} is missing: python tools/fetch_java_oracle.py fetches it")
    classes = compiled(jar)
    hadoop = hadoop_jars()  # reading tables (scan) needs them; without them the adapter declares no tables
    options = ["-Dkit.tables=true", "--add-opens=java.base/java.nio=ALL-UNNAMED"] if hadoop else []
    path = os.pathsep.join([str(classes), str(jar), *map(str, hadoop)])
    os.execvp("java", ["java", *options, "-cp", path, "KitAdapter", *argv])
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
