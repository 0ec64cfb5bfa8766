"""Every index type gets advice when it costs more than it can save (fileindex.indexes.advice)."""
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fileindex.cli import main
from fileindex.container.file import FileIndexContainer
from fileindex.indexes.advice import LARGER_THAN_DATA, advise, advise_container
from fileindex.indexes.registry import INDEX_TYPES
from fileindex.pipeline.build import build_file
from fileindex.pipeline.inputs import resolve_inputs
from fileindex.types import parse_type

ROWS = 20_000


@pytest.fixture(scope="module")
def unique_doubles(tmp_path_factory):
    """Nearly unique values: a bitmap or range-bitmap over them is larger than the Parquet file."""
    path = tmp_path_factory.mktemp("advice") / "u.parquet"
    pq.write_table(pa.table({"d": np.random.default_rng(7).random(ROWS), "k": pa.array(np.arange(ROWS) % 3)}), path)
    return path


@pytest.fixture(scope="module")
def unique_timestamps(tmp_path_factory):
    path = tmp_path_factory.mktemp("advice") / "ts.parquet"
    values = np.random.default_rng(7).integers(0, 2**40, ROWS)
    pq.write_table(pa.table({"ts": pa.array(values, pa.timestamp("us"))}), path)
    return path


@pytest.mark.parametrize("index_type", sorted(INDEX_TYPES))
def test_every_index_type_larger_than_its_data_gets_advice(index_type):
    column_type = "BIGINT"
    payload = INDEX_TYPES[index_type].build(pa.array(range(5000), pa.int64()), parse_type(column_type),
                                            {"items": "5000"} if index_type == "bloom-filter" else {})
    small = advise("c", index_type, payload, data_bytes=len(payload) - 1)
    assert small.verdict == LARGER_THAN_DATA and "costs more than skipping the file can save" in small.advice
    assert INDEX_TYPES[index_type].when_too_large in small.advice
    assert advise("c", index_type, payload, data_bytes=10 * len(payload)).verdict == "ok"


def test_the_bloom_filters_own_sizing_verdict_stays(unique_doubles):
    payload = INDEX_TYPES["bloom-filter"].build(pa.array([1, 2], pa.int64()), parse_type("BIGINT"), {})
    advice = advise("k", "bloom-filter", payload, data_bytes=10 * len(payload))
    assert advice.verdict == "oversized" and "items=2" in advice.advice
    advice = advise("k", "bloom-filter", payload, data_bytes=1000)
    assert advice.verdict == LARGER_THAN_DATA and "lower items" in advice.advice and "items=2" in advice.advice


def test_build_prints_advice_for_a_range_bitmap_over_unique_values(unique_doubles, tmp_path, capsys):
    out = tmp_path / "u.index"
    assert main(["build", str(unique_doubles), "-o", str(out), "--option", "file-index.range-bitmap.columns=d,k",
                 "--option", "file-index.bitmap.columns=d"]) == 0
    err = capsys.readouterr().err
    assert "d:range-bitmap larger than its data" in err and "use bsi for ranges" in err
    assert "d:bitmap larger than its data" in err and "k:range-bitmap" not in err
    with FileIndexContainer.open(out) as container:
        advice = advise_container(container, data_bytes=unique_doubles.stat().st_size)
        found = {(a.column, a.index_type) for a in advice}
    assert found == {("d", "range-bitmap"), ("d", "bitmap")}


def test_the_build_job_rows_carry_the_advice(unique_timestamps, tmp_path):
    from fileindex.cli.spark.build import render

    (task,) = resolve_inputs([str(unique_timestamps)], index_dir=str(tmp_path)).tasks
    row = build_file(task, {"file-index.range-bitmap.columns": "ts"})
    advice = json.loads(row["advice"])
    assert [(a["column"], a["verdict"]) for a in advice] == [("ts", LARGER_THAN_DATA)]
    assert "ts:range-bitmap larger than its data: " in render(row)
