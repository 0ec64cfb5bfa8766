"""Plain ORC files holding timestamps: Spark's own ORC reader types a timestamp without a time zone as
Spark's TIMESTAMP (with local time zone), its wall clock an instant in the JVM's default zone (UTC here),
where pyarrow reads it as a wall clock. The pruned scan types them as Spark does, so that it returns
what a plain scan returns, in any session time zone; in a JVM of another zone it refuses to scan."""
import datetime as dt
from types import SimpleNamespace

import pyarrow as pa
import pyarrow.orc as orc
import pytest

from fileindex.errors import UsageError
from fileindex.pipeline.inputs import resolve_inputs
from fileindex.scan.reader import scannable
from fileindex.spark import pruned_scan
from fileindex.spark.compare import compared_scan
from fileindex.spark.jobs import _require_utc_jvm, read_schema
from fileindex.writing.data_file import build_data_file_index

START = dt.datetime(2026, 1, 1)
MAP = pa.map_(pa.string(), pa.timestamp("ms"))


def write_orc_files(folder, files=3, rows=200):
    for number in range(files):
        ids = range(number * rows, (number + 1) * rows)
        stamps = [START + dt.timedelta(seconds=i, milliseconds=500) if i % 7 else None for i in ids]
        table = pa.table({"id": pa.array(ids, pa.int64()), "ts": pa.array(stamps, pa.timestamp("ms")),
                          "m": pa.array([[("k", s)] if s else [] for s in stamps], MAP)})
        path = folder / f"part-{number}.orc"
        orc.write_table(table, path)
        options = {"file-index.bloom-filter.columns": "id", "file-index.bitmap.columns": "id"}
        path.with_name(path.name + ".index").write_bytes(build_data_file_index(path, options).data)


@pytest.mark.parametrize("zone", ["UTC", "America/New_York"])
@pytest.mark.parametrize("where, select", [
    ("id < 3", None), ("id < 3", ["ts"]), ("id = 401", ["m", "id"]),
    ("ts = TIMESTAMP '2026-01-01 00:00:01.500'", None), ("ts IS NULL", ["id"]),
    ("ts BETWEEN TIMESTAMP '2026-01-01 00:05:00' AND TIMESTAMP '2026-01-01 00:06:00'", None),
])
def test_orc_timestamps_are_read_as_spark_reads_them_in_any_session_zone(spark, tmp_path, zone, where, select):
    write_orc_files(tmp_path)
    saved = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", zone)
    try:
        report = compared_scan(spark, str(tmp_path), where, warm=False, columns=select)
        frame = report["_frame"]
        plain = spark.read.orc(str(tmp_path / "*.orc"))
        assert report["identical"] and report["result_rows"] == report["plain_rows"] > 0
        for name in select or frame.columns:
            assert frame.schema[name].dataType == plain.schema[name].dataType  # TIMESTAMP, not TIMESTAMP_NTZ
    finally:
        spark.conf.set("spark.sql.session.timeZone", saved)


def test_a_timestamp_matches_the_instant_spark_reads(spark, tmp_path):
    write_orc_files(tmp_path, files=1)
    rows = pruned_scan(spark, str(tmp_path), "ts = TIMESTAMP '2026-01-01 00:00:01.500'").frame.collect()
    assert [row.id for row in rows] == [1]


def zone_stub(zone_id: str, raw_offset: int, daylight: bool):
    zone = SimpleNamespace(getID=lambda: zone_id, getRawOffset=lambda: raw_offset,
                           observesDaylightTime=lambda: daylight)
    java = SimpleNamespace(util=SimpleNamespace(TimeZone=SimpleNamespace(getDefault=lambda: zone)))
    return SimpleNamespace(sparkContext=SimpleNamespace(_jvm=SimpleNamespace(java=java)))


def test_a_jvm_in_another_time_zone_is_refused_for_orc_timestamps_only(tmp_path):
    write_orc_files(tmp_path, files=1)
    inputs = resolve_inputs([str(tmp_path)])
    tasks = scannable(inputs)
    every_column = read_schema(inputs, tasks, None, None)
    with pytest.raises(UsageError, match=r"part-0.orc: Spark reads the ORC timestamps of ts, m in the JVM's "
                                         r"default time zone, Europe/London, .* -Duser.timezone=UTC"):
        _require_utc_jvm(zone_stub("Europe/London", 0, True), tasks, every_column)
    _require_utc_jvm(zone_stub("Etc/UTC", 0, False), tasks, every_column)
    only_id = pa.schema([every_column.field("id")])
    _require_utc_jvm(zone_stub("Asia/Tokyo", 9 * 3600_000, False), tasks, only_id)  # no timestamp read
