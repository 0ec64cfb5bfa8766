"""Rough edges the fourteenth trial found: ``spark build`` with a misspelt index type or option started Spark
(minutes on a busy machine) and then failed every file with the same message, exit 1, where ``fileindex build``
refuses it at once with exit 2."""
import pytest
from conftest import ROOT
from test_third_trial import run

import fileindex.cli.spark.build as spark_build_cli
from fileindex.writing.options import check_schema_free

TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"


@pytest.mark.parametrize(("option", "said"), [
    ("file-index.blom.columns=f0", "file-index.blom.columns: unknown index type 'blom'"),
    ("file-index.blom.f0.items=5", "file-index.blom.f0.items: unknown index type 'blom'"),
    ("file-index.bloom-filter.f0.itemz=5", "file-index.bloom-filter.f0.itemz: unknown bloom-filter option(s) itemz"),
    ("file-index.bitmap.columns=f0,,f1", "has an empty column name"),
    ("file-index.format.version=3", "file-index.format.version='3'"),
])
def test_spark_build_refuses_a_bad_option_before_starting_spark(capsys, monkeypatch, tmp_path, option, said):
    def no_spark(args):
        raise AssertionError("Spark was started for options no file can take")

    monkeypatch.setattr(spark_build_cli, "session", no_spark)
    code, out, err = run(capsys, "spark", "build", TABLE, "--option", option, "--output-dir", tmp_path / "idx")
    assert (code, out) == (2, "")
    assert said in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "idx").exists()


def test_what_depends_on_a_file_or_the_table_is_left_to_the_build_of_each_file():
    """A column only some files have, or a per-column option whose column the table's own options declare."""
    check_schema_free({"file-index.bloom-filter.columns": "nope"})
    check_schema_free({"file-index.bloom-filter.f0.items": "5", "file-index.in-manifest-threshold": "1 KB"})


def test_build_names_a_misspelt_index_type_in_a_column_option(capsys, tmp_path):
    """``file-index.blom.id.items`` was told "column 'id' has no blom index; declare it in file-index.blom.columns"."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"id": range(10)}), tmp_path / "x.parquet")
    code, out, err = run(capsys, "build", tmp_path / "x.parquet", "--option", "file-index.bloom-filter.columns=id",
                         "--option", "file-index.blom.id.items=5")
    assert (code, out) == (2, "")
    assert "file-index.blom.id.items: unknown index type 'blom'" in err and "declare it" not in err
    assert not (tmp_path / "x.parquet.index").exists()


def test_the_docs_name_the_kit_version_an_export_writes():
    """docs/guide/conformance-kit.md told a conformance engineer to look in OUT/paimon-fileindex-kit-2.0.0/, a
    folder ``kit export`` no longer writes (2.1.0)."""
    import re

    from fileindex.kit.corpus import VERSION

    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    named = {(page.relative_to(ROOT).as_posix(), version) for page in pages
             for version in re.findall(r"paimon-fileindex-kit-(\d+\.\d+\.\d+)", page.read_text(encoding="utf-8"))}
    assert named and {version for _, version in named} == {VERSION}, sorted(named)


@pytest.mark.parametrize(("pattern", "meant"), [("int_nulls_bloom", "int_nulls__bloom"),
                                                ("bloom_filter", "bloom-filter"), ("zzz", None), ("int_x*", None)])
def test_kit_only_suggests_the_case_or_layout_a_misspelt_pattern_meant(pattern, meant):
    """``--only int_nulls_bloom`` listed the layouts and said nothing of the case one underscore away."""
    from fileindex.errors import UsageError
    from fileindex.kit.plan import Only

    only = Only([pattern])
    for name, layouts in (("int_nulls__bloom", {"bloom-filter", "bloom-filter@v1"}),
                          ("int_nulls__bitmap_v2", {"bitmap-v2", "bitmap-v2@v1"})):
        only.takes(name, layouts)
    with pytest.raises(UsageError) as raised:
        only.check()
    message = str(raised.value)
    assert message.startswith(f"--only {pattern!r} picks no case of this corpus: ")
    assert ("did you mean" in message) == (meant is not None)
    if meant:
        assert f"did you mean {meant}? give a layout" in message
