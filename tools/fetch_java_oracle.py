#!/usr/bin/env python3
"""Fetch the Java Paimon 0.9.0 jar the oracle tests run against (hash-pinned pip download of pypaimon 0.2.0).

    python tools/fetch_java_oracle.py       # -> .cache/paimon-python-java-bridge-0.9.0.jar

Idempotent: does nothing when the jar is already there.
"""
from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache"
JAR_NAME = "paimon-python-java-bridge-0.9.0.jar"
JAR = CACHE / JAR_NAME
REQUIREMENTS = ROOT / "tools" / "java-oracle-requirements.txt"


def main() -> int:
    if JAR.is_file():
        return 0
    CACHE.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                        "--no-deps", "--no-binary", ":all:", "--require-hashes", "-r", str(REQUIREMENTS),
                        "-d", tmp], check=True)
        (sdist,) = Path(tmp).glob("pypaimon-*.tar.gz")
        with tarfile.open(sdist) as archive:
            member = next(m for m in archive.getmembers() if m.name.endswith("/" + JAR_NAME))
            with archive.extractfile(member) as source:
                partial = JAR.with_suffix(".partial")
                partial.write_bytes(source.read())
                partial.rename(JAR)
    print(f"{JAR.relative_to(ROOT)}: {JAR.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
