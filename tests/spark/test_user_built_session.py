"""The Spark guide's data source in a SparkSession the user built: its snippet runs as written (a fresh process,
so the workers' Python is only what the snippet sets)."""
import os
import re
import subprocess
import sys

from conftest import ROOT

TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"


def guide_snippet() -> str:
    guide = (ROOT / "docs" / "guide" / "spark.md").read_text()
    section = guide[guide.index("In a `SparkSession` you built yourself"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_guide_snippet_reads_a_table_with_the_workers_python_it_sets():
    code = guide_snippet()
    assert 'os.environ["PYSPARK_PYTHON"]' in code and "register(spark)" in code
    code = code.replace('"warehouse/db.db/orders"', repr(str(TABLE))).replace('"id = 5"', "\"f0 = 'Alice'\"")
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT.parent,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    rows = [line for line in run.stdout.splitlines() if line.startswith("|") and "Alice" in line]
    assert len(rows) == 2, run.stdout
