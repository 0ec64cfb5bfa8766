"""Java Paimon 0.9.0 timed in the same run as tools/bench.py (tools/java/PaimonBench.java).

Ratios against Java figures recorded on another machine mislead by 2x or more; the jar the tests
use covers the container, bloom-filter and bitmap V1, so those rows are timed here, now. Rows only
newer Java has (bitmap V2, bsi, range-bitmap) keep the recorded figure, scaled by how this machine
compares with the recording machine on the rows timed in both.
"""
from __future__ import annotations

import atexit
import functools
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
SOURCE = TOOLS / "java" / "PaimonBench.java"
CONTAINER = ROOT / "fileindex" / "samples" / "container_12col.index"


class JavaRow(NamedTuple):
    seconds: float  # median seconds per op
    check: str  # what the row computed (the payload's SHA-256, a cardinality, ...), as java_results records it
    cpu_seconds: float  # median CPU seconds per op of the timing thread (the JIT and the collector run on others)


def jar() -> Path:
    sys.path.insert(0, str(TOOLS))
    import fetch_java_oracle

    if not fetch_java_oracle.JAR.is_file():
        fetch_java_oracle.main()
    return fetch_java_oracle.JAR


def compile_bench(classes: str) -> Path:
    """Compile PaimonBench.java into ``classes``; the Paimon jar it was compiled against."""
    if not (shutil.which("javac") and shutil.which("java")):
        raise RuntimeError("no JDK (javac, java): bash tools/setup.sh --test installs one")
    classpath = jar()
    subprocess.run(["javac", "-d", classes, "-cp", str(classpath), str(SOURCE)], check=True)
    return classpath


@functools.cache
def compiled_bench() -> tuple[str, Path]:
    """PaimonBench compiled once per process (each javac took seconds: the tests call run three times): its
    classes folder, removed at exit, and the Paimon jar."""
    classes = tempfile.mkdtemp(prefix="paimon-bench-")
    atexit.register(shutil.rmtree, classes, ignore_errors=True)
    return classes, compile_bench(classes)


def plan_tables(warehouse: Path, files: int, rows: int, repeat: int) -> tuple[dict[str, JavaRow], dict[str, Path], int]:
    """Java 0.9 planning filtered scans of two tables it writes into ``warehouse`` when absent (``files``
    data files of ``rows`` rows, indexes embedded or in sidecars): its rows, the tables' roots by kind
    (embedded, sidecar), and the key its ``k = KEY`` row looked up."""
    sys.path.insert(0, str(ROOT / "tests"))
    from java_oracle import hadoop_jars

    warehouse.mkdir(parents=True, exist_ok=True)
    classes, jar_path = compiled_bench()
    classpath = ":".join([classes, str(jar_path), *map(str, hadoop_jars())])
    out = subprocess.run(["java", "-Xms1g", "-Xmx2g", "-cp", classpath, "PaimonBench", "tables", str(warehouse),
                          str(files), str(rows), str(repeat)], check=True, capture_output=True, text=True).stdout
    figures, roots, key = {}, {}, 0
    for line in out.splitlines():
        fields = line.split("\t")
        if fields[0] == "table":
            roots[fields[1]], key = Path(fields[2]), int(fields[3])
        elif len(fields) == 4:
            figures[fields[0]] = JavaRow(float(fields[1]), fields[2], float(fields[3]))
    return figures, roots, key


def run(repeat: int, only: str = "") -> dict[str, JavaRow]:
    """Java row name -> its timing and check, measured now. ``only`` (a bench.py row filter) runs just the
    kind of rows it names (container, bloom or bitmap). Raises RuntimeError when there is no JDK."""
    classes, classpath = compiled_bench()
    kind = next((k for k in ("container", "bloom", "bitmap") if k in only), "")
    out = subprocess.run(["java", "-Xms2g", "-Xmx2g", "-cp", f"{classes}:{classpath}", "PaimonBench",
                          str(CONTAINER), str(repeat), kind], check=True, capture_output=True, text=True).stdout
    figures = {}
    for line in out.splitlines():
        name, seconds, check, cpu_seconds = line.split("\t")
        figures[name] = JavaRow(float(seconds), check, float(cpu_seconds))
    return figures


def machine_factor(same_run: dict[str, JavaRow], recorded: dict[str, float], *, cpu: bool = False) -> float:
    """How much slower (> 1) this machine runs Java than the recording machine did (median ratio): by wall, or
    by the timing thread's CPU (``cpu``: a loaded machine stretches wall far more than CPU; the recording
    machine was quiet, its wall about its CPU)."""
    ratios = [(row.cpu_seconds if cpu else row.seconds) / recorded[name] for name, row in same_run.items()
              if name in recorded]
    return statistics.median(ratios) if ratios else 1.0
