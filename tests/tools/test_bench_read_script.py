"""tools/bench_read.py runs from a plain checkout (the package not installed), and end to end on a small table
(pypaimon-rust writes it, in .venv-peer): every query's row counts agree across the readers and the engine routes
(the script asserts it), each row is printed with its figures, and the Polars and DuckDB routes open the files the
scan reads. Not a timing: the figures are whatever a tiny table gives; this keeps the script from breaking unseen."""
import subprocess
import sys

import pytest
from conftest import ROOT

QUERIES = ("one id", "rare category", "IN of 3 ids", "OR of 2 categories", "20-minute window", "full scan",
           "amount > 100 (most rows)")
ENGINE_QUERIES = QUERIES[:5]
# A Python with the dependencies but without this package installed (as a plain checkout is): the editable
# install's import finder removed, then the script loaded (not run) and its reader used on a shared table.
PLAIN_CHECKOUT = """
import runpy, sys
sys.meta_path[:] = [f for f in sys.meta_path if "__editable__" not in getattr(f, "__module__", "")]
bench = runpy.run_path(sys.argv[1], run_name="bench_read")
table = bench["ROOT"] / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"
print(bench["PaimonTable"](table).scan("f1 = 20").to_arrow().num_rows)
"""


def test_bench_read_runs_from_a_plain_checkout():
    done = subprocess.run([sys.executable, "-c", PLAIN_CHECKOUT, str(ROOT / "tools" / "bench_read.py")],
                          capture_output=True, text=True, timeout=300, cwd="/")
    assert done.returncode == 0 and done.stdout.split() == ["3"], done.stderr[-3000:]


def test_bench_read_only_refuses_a_name_no_query_has_before_building_the_table(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "bench_read.py"), "--data", str(tmp_path),
                           "--only", "no such query"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "--only: no query's name contains 'no such query'" in done.stderr, done.stderr
    assert not any(tmp_path.iterdir())  # (refused before the table was written)


@pytest.mark.peer
@pytest.mark.slow
def test_bench_read_prints_every_query_with_agreeing_counts(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "bench_read.py"), "--files", "4", "--rows", "3000",
                           "--repeat", "1", "--data", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    scans, engines = done.stdout.split("\nengine routes:")
    lines = {line[:26].strip(): line[26:].split() for line in scans.splitlines()}
    for query in QUERIES:
        rows, files, ours, peer_sql, _, plain, *_ = lines[query]
        assert int(rows.replace(",", "")) >= 1 and 1 <= int(files) <= 4, lines[query]
        assert min(float(ours), float(peer_sql), float(plain)) > 0, lines[query]
    assert lines["full scan"][:2] == ["12,000", "4"]
    assert int(lines["one id"][0]) == 1
    routes = {line[:26].strip(): line[26:].split() for line in engines.splitlines()[2:]}
    assert sorted(routes) == sorted(ENGINE_QUERIES)
    for query in ENGINE_QUERIES:
        rows, files, *figures = routes[query]
        assert rows == lines[query][0]  # (the script asserts that every route counts the same rows)
        where, polars, duck = files.split("/")
        assert where == polars == duck == lines[query][1], routes[query]  # the routes open the files where reads
        assert all(float(wall) > 0 and float(cpu) >= 0 for wall, cpu in (f.split("/") for f in figures[:4]))


@pytest.mark.peer
@pytest.mark.slow
def test_bench_read_interleaved_and_cold_sections_print_every_contender(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "bench_read.py"), "--files", "2", "--rows", "2000",
                           "--repeat", "1", "--data", str(tmp_path), "--sections", "interleaved,cold",
                           "--checkout", f"again={ROOT}", "--memory"],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    interleaved, cold = done.stdout.split("\ncold:", 1)  # (the cold section says which install it measured first)
    rows = {line[:26].strip(): line[26:].split() for line in interleaved.splitlines()}
    for query in QUERIES:  # ours, the checkout again, DuckDB over the Parquet files, the peer; two ratios
        figures = rows[query]
        assert len(figures) == 6 and all(float(f.split("/")[0]) > 0 for f in figures[:4]), figures
    rows = {line[:26].strip(): line[26:].split() for line in cold.splitlines()}
    for query in ("one id", "rare category", "IN of 3 ids", "import"):
        assert all(float(f.split("/")[0]) > 0 for f in rows[query][:4]), rows[query]
    assert float(rows["import"][4].split("/")[0]) > 0  # (pyarrow.parquet's import, the imports' baseline)
    for name in ("ours", "again"):  # (--memory: each checkout's streamed full scan, in processes of their own)
        assert f"full scan through to_batches(), {name}: peak " in cold
