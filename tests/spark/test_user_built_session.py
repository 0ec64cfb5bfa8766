"""The Spark guide's data source in a SparkSession the user built: its snippet runs as written (a fresh process,
so the workers' Python is only what the snippet sets)."""
import os
import re
import subprocess
import sys

from conftest import ROOT

from fileindex import PaimonTable

def guide_snippet() -> str:
    guide = (ROOT / "docs" / "guide" / "spark.md").read_text()
    section = guide[guide.index("In a `SparkSession` you built yourself"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_guide_snippet_reads_a_table_with_the_workers_python_it_sets():
    """Run as written from the checkout's root (the snippet names a table of the repository)."""
    code = guide_snippet()
    assert 'os.environ["PYSPARK_PYTHON"]' in code and "register(spark)" in code
    path, where = re.search(r'\.load\("([^"]+)"\)\.where\("([^"]+)"\)', code).groups()
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    table = [line for line in run.stdout.splitlines() if line.startswith("|")]
    expected = PaimonTable(ROOT / path).scan(where).to_arrow()
    assert expected.num_rows >= 1 and len(table) == 1 + expected.num_rows, run.stdout  # (a header, then the rows)
    assert all(str(name) in run.stdout for name in expected.column("f0").to_pylist()), run.stdout
