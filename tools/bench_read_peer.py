"""The pypaimon-rust side of tools/bench_read.py, run with the peer's own interpreter (.venv-peer).

    PEER_PYTHON tools/bench_read_peer.py write WAREHOUSE PARQUET_FILE [PARQUET_FILE ...]
    PEER_PYTHON tools/bench_read_peer.py time WAREHOUSE REQUEST_JSON
    PEER_PYTHON tools/bench_read_peer.py serve WAREHOUSE
    PEER_PYTHON tools/bench_read_peer.py cold WAREHOUSE SQL_WHERE
    PEER_PYTHON tools/bench_read_peer.py answers WAREHOUSE REQUEST_JSON

``write`` creates ``default.orders`` with the benchmark's index options and commits each Parquet file as
one data file (printing the table's root); ``time`` answers {"queries": [{"sql": ..., "filter": ...}],
"repeat": N} with the median seconds (for SQL: wall and CPU) and row count of each query through the peer's
SQL and, where a filter is given, its ReadBuilder (plan + read), after one untimed warm-up each.
``serve`` answers one query per line read (a JSON string: the WHERE, "" for none) with one line, [wall
seconds, CPU seconds, rows] of running it once, so that tools/bench_read.py can interleave its contenders
round by round; ``cold`` imports pypaimon-rust, runs one query and prints its rows (what a new process
pays; the caller times the process). ``answers`` times whole SQL queries ({"queries": [{"sql": "SELECT
count(*) FROM {table} WHERE ...", "rows": false}]}): their median wall and CPU seconds and the answer (the
count; with "rows", the rows as JSON).
"""
import json
import statistics
import sys
import time

TABLE = "paimon.`default`.orders"
OPTIONS = {"bucket": "-1", "file-index.bloom-filter.columns": "id", "file-index.bitmap.columns": "category",
           "file-index.range-bitmap.columns": "ts"}


def context(warehouse: str):
    from pypaimon_rust.datafusion import SQLContext

    ctx = SQLContext()
    ctx.register_catalog("paimon", {"warehouse": warehouse}, default_database="")
    return ctx


def write(warehouse: str, files: list[str]) -> None:
    import pyarrow.parquet as pq
    from pypaimon_rust.datafusion import PaimonCatalog

    ctx = context(warehouse)
    ctx.sql("CREATE DATABASE paimon.`default`")
    first = pq.read_schema(files[0])
    items = pq.read_metadata(files[0]).num_rows
    options = {**OPTIONS, "file-index.bloom-filter.id.items": str(items)}
    with_clause = ", ".join(f"'{k}' = '{v}'" for k, v in options.items())
    columns = {"id": "BIGINT", "category": "STRING", "ts": "TIMESTAMP(6)", "amount": "DECIMAL(12, 2)"}
    assert list(first.names) == list(columns), first.names
    ctx.sql(f"CREATE TABLE {TABLE} ({', '.join(f'{n} {t}' for n, t in columns.items())}) WITH ({with_clause})")
    table = PaimonCatalog({"warehouse": warehouse}).get_table("default.orders")
    for path in files:
        commit_batches(table, pq.read_table(path).to_batches(max_chunksize=1 << 20))


def commit_batches(table, batches) -> None:
    """Write ``batches`` through the table's batch write builder and commit them: one data file per bucket
    (shared with tools/kit_pypaimon_rust_peer.py)."""
    builder = table.new_batch_write_builder()
    writer = builder.new_write()
    for batch in batches:
        writer.write_arrow(batch)
    messages = writer.prepare_commit()
    writer.close()
    commit = builder.new_commit()
    commit.commit(messages)
    commit.close()


def medians(run, repeat: int) -> tuple[float, float, int]:
    """(median wall seconds, median CPU seconds of this process, over ``repeat`` runs after one untimed run; the
    rows the last run counted); shared with tools/bench_read.py (this module imports pypaimon-rust only inside
    the functions that need it)."""
    rows = run()
    walls, cpus = [], []
    for _ in range(repeat):
        started, cpu = time.perf_counter(), time.process_time()
        rows = run()
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), rows


def median_of(run, repeat: int) -> tuple[float, int]:
    """(median wall seconds, rows): :func:`medians` without the CPU time."""
    wall, _, rows = medians(run, repeat)
    return wall, rows


def time_queries(warehouse: str, request: dict) -> list[dict]:
    from pypaimon_rust.datafusion import PaimonCatalog

    ctx = context(warehouse)
    table = PaimonCatalog({"warehouse": warehouse}).get_table("default.orders")
    answers = []
    for query in request["queries"]:
        answer = {}
        sql = f"SELECT * FROM {TABLE}" + (f" WHERE {query['sql']}" if query["sql"] else "")
        answer["sql"] = medians(lambda sql=sql: sum(b.num_rows for b in ctx.sql(sql)), request["repeat"])

        def read_builder(query=query):
            builder = table.new_read_builder()
            if query["filter"] is not None:
                builder = builder.with_filter(query["filter"])
            plan = builder.new_scan().plan()
            return sum(b.num_rows for b in builder.new_read().read(plan.splits()))

        if query.get("filter", "none") != "none":
            answer["read_builder"] = median_of(read_builder, request["repeat"])
        answers.append(answer)
    return answers


def select(where: str) -> str:
    return f"SELECT * FROM {TABLE}" + (f" WHERE {where}" if where else "")


def serve(warehouse: str) -> None:
    ctx = context(warehouse)
    for line in sys.stdin:
        sql = select(json.loads(line))
        started, cpu = time.perf_counter(), time.process_time()
        rows = sum(b.num_rows for b in ctx.sql(sql))
        print(json.dumps([time.perf_counter() - started, time.process_time() - cpu, rows]), flush=True)


def cold(warehouse: str, where: str) -> None:
    print(sum(b.num_rows for b in context(warehouse).sql(select(where))))
def time_answers(warehouse: str, request: dict) -> list[list]:
    ctx = context(warehouse)

    def answer(sql: str, rows: bool):
        batches = ctx.sql(sql.format(table=TABLE))
        if rows:
            return [row for batch in batches for row in batch.to_pylist()]
        return sum(batch.column(0).to_pylist()[0] for batch in batches if batch.num_rows)

    return [list(medians(lambda query=query: answer(query["sql"], query.get("rows", False)), request["repeat"]))
            for query in request["queries"]]


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "serve":
        serve(sys.argv[2])
    elif sys.argv[1] == "cold":
        cold(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "answers":
        print(json.dumps(time_answers(sys.argv[2], json.loads(sys.argv[3])), default=str))
    else:
        print(json.dumps(time_queries(sys.argv[2], json.loads(sys.argv[3]))))
