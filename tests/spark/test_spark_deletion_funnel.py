"""The Spark route's index verdicts (evaluated by a Spark job, sent back as rows) keep the count a deletion vector
ruled out: its funnel blames the deletion vector, not the index, for a row it removed, as the local route does."""
from conftest import ROOT

from fileindex import PaimonTable
from fileindex.spark.jobs import pruned_scan

DV_TABLE = ROOT / "tests" / "tables" / "orc" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"


def test_a_spark_planned_scan_blames_the_deletion_vector_for_a_deleted_row(spark):
    """Lucy's row is in the bitmap and deleted at snapshot 4: the index keeps the file, its deletion vector not."""
    where = "f0 = 'Lucy'"
    scan = pruned_scan(spark, str(DV_TABLE), where, snapshot=4, plan="spark")  # (the verdicts: a Spark job's rows)
    local = PaimonTable(DV_TABLE, 4).scan(where).explain()
    assert [s.as_dict() for s in scan.stages] == [s.as_dict() for s in local.stages]
    stages = {s.name: (s.files_after, s.rows_after) for s in scan.stages}
    assert stages["file_index"] == (1, 1) and stages["deletion_vectors"] == (0, 0)
    assert [f.skipped_by for f in scan.files] == ["deletion_vectors"] and scan.frame.count() == 0
