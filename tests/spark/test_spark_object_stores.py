"""Spark on a table in an object store (moto, behind the counting proxy): ``spark scan`` (the jobs and the data
source) and ``spark.read.format("paimon-fileindex")`` read an ``s3://`` table through the same file access as
the Python reader, with the driver's options pickled to the tasks (no Hadoop S3A jars); the options' secrets are
not in Spark's plans."""
import json

import pytest
from conftest import ROOT

from fileindex.cli import main
from fileindex.spark.datasource import FORMAT

pytestmark = pytest.mark.spark

TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"


def uploaded(store) -> str:
    for path in sorted(p for p in TABLE.rglob("*") if p.is_file()):
        store.put(f"warehouse/t/{path.relative_to(TABLE).as_posix()}", path.read_bytes())
    return store.uri("warehouse/t")


@pytest.mark.parametrize("source", ["jobs", "datasource"])
def test_spark_scan_of_an_s3_table(spark, s3_store, capsys, source):
    uri = uploaded(s3_store)
    flags = [f for key, value in s3_store.options().items() for f in ("--storage-option", f"{key}={value}")]
    code = main(["spark", "scan", uri, "--where", "f0 = 'Alice'", "--source", source, "--json", *flags])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    report = json.loads(captured.out)
    assert report["result_rows"] == 2 and report["rows_read"] == 2
    assert any(r.key and r.key.endswith(".parquet") for r in s3_store.proxy.requests)
    assert not [s for s in s3_store.secrets() if s in captured.out + captured.err]


def test_the_data_source_reads_an_s3_table_and_its_plan_shows_no_secret(spark, s3_store):
    uri = uploaded(s3_store)
    frame = spark.read.format(FORMAT).options(**s3_store.options()).option("where", "f0 = 'Bob'").load(uri)
    assert sorted(row.f0 for row in frame.collect()) == ["Bob", "Bob"]
    plans = frame._jdf.queryExecution().toString()
    assert "paimon" in plans.lower() or "BatchScan" in plans
    assert [s for s in s3_store.secrets() if s in plans] == []


def storage_flags(store) -> list[str]:
    return [f for key, value in store.options().items() for f in ("--storage-option", f"{key}={value}")]


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("object_store", ["s3", "azure"], indirect=True)
def test_spark_verify_of_a_table_on_a_store_reports_as_on_the_local_copy(spark, object_store, capsys):
    uri = uploaded(object_store)
    local = run_cli(capsys, "spark", "verify", str(TABLE), "--exhaustive", "--json")
    code, out, err = run_cli(capsys, "spark", "verify", uri, "--exhaustive", "--json", *storage_flags(object_store))
    assert code == local[0] == 0, err
    assert json.loads(out) == json.loads(local[1]) and json.loads(out)["files"] > 0
    assert any(r.key and r.key.endswith(".parquet") for r in object_store.proxy.requests)
    assert not [s for s in object_store.secrets() if s in out + err]


def test_spark_build_of_an_s3_table_into_a_local_folder_equals_the_local_build(spark, s3_store, capsys, tmp_path):
    uri = uploaded(s3_store)
    bloom = ["--option", "file-index.bloom-filter.columns=f3", "--option", "file-index.bloom-filter.f3.items=10"]
    local, remote = tmp_path / "local", tmp_path / "remote"
    assert run_cli(capsys, "spark", "build", str(TABLE), "--output-dir", str(local), *bloom)[0] == 0
    code, out, err = run_cli(capsys, "spark", "build", uri, "--output-dir", str(remote), "--json", *bloom,
                             *storage_flags(s3_store))
    assert code == 0, err
    assert json.loads(out.splitlines()[-1])["summary"]["written"] == 1
    built = sorted(p.name for p in remote.iterdir())
    assert built == sorted(p.name for p in local.iterdir()) and len(built) == 1
    assert all((remote / name).read_bytes() == (local / name).read_bytes() for name in built)
    assert any(r.key and r.key.endswith(".parquet") for r in s3_store.proxy.requests)
    assert not [r for r in s3_store.proxy.requests if r.method not in ("GET", "HEAD")]  # nothing written there
    assert not [s for s in s3_store.secrets() if s in out + err]


def test_read_table_takes_the_storage_options_of_an_s3_table(spark, s3_store):
    from fileindex.spark import read_table

    frame = read_table(spark, uploaded(s3_store), "f0 = 'Bob'", options=s3_store.options())
    assert sorted(row.f0 for row in frame.collect()) == ["Bob", "Bob"]
