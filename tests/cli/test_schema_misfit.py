"""A valid body read with the wrong column type is a schema that does not fit (exit 2, naming the column, the
type given and the types that fit), never a malformed file; a body no type decodes still is malformed."""
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import JAVA_VECTORS, ROOT

from fileindex.cli import main

SAMPLES = ROOT / "fileindex" / "samples"

MISFITS = [  # (file, the type given, a type its bytes decode as)
    (SAMPLES / "str_mixed__bitmap_v2.index", "INT", "STRING"),
    (JAVA_VECTORS / "int_nulls__bsi.index", "STRING", "INT"),
    (JAVA_VECTORS / "bigint_neg__bsi.index", "INT", "BIGINT"),
    (JAVA_VECTORS / "double__range_bitmap.index", "FLOAT", "DOUBLE"),
    (JAVA_VECTORS / "bigint_neg__bitmap_v2.index", "INT", "BIGINT"),
    (JAVA_VECTORS / "int_nulls__bitmap_v1.index", "STRING", "INT"),  # an absent string key once answered ROWS 0
]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def says_the_schema_does_not_fit(text: str, given: str, fits: str) -> bool:
    return ("does not fit column 'c'" in text and f"it gives {given}," in text and fits in text.split("decode as")[-1]
            and "MALFORMED" not in text)


@pytest.mark.parametrize("path, given, fits", MISFITS, ids=lambda v: getattr(v, "name", v))
def test_every_command_taking_a_schema_says_it_does_not_fit(capsys, path, given, fits):
    schema = ["--schema", f"c {given}"]
    code, out, err = run(capsys, "check", path, *schema)
    assert code == 2 and out.startswith("ERROR") and says_the_schema_does_not_fit(out, given, fits)
    code, out, _ = run(capsys, "check", path, *schema, "--json")
    assert code == 2 and json.loads(out)["status"] == "ERROR"
    where = "c = 'x'" if given == "STRING" else "c = 1"  # a literal of the type given: it reads the values
    for command in (["query", path, *schema, "--where", where], ["explain", path, *schema]):
        code, out, err = run(capsys, *command)
        assert code == 2 and says_the_schema_does_not_fit(err, given, fits), (command, err)
        assert str(path) in err
    assert err.rstrip().endswith((f'write --schema "c {fits}"', "or give --data DATA_FILE"))  # what to write, last
    assert len(err.splitlines()) == 1
    assert "(read as" not in err  # (the decoder's failure: the error's cause, not the user's line)
    code, out, err = run(capsys, "check", path, "--schema", f"c {fits}")
    assert code == 0 and out.startswith("OK"), out


def test_a_body_no_type_decodes_is_still_malformed(capsys, tmp_path):
    data = bytearray((SAMPLES / "str_mixed__bitmap_v2.index").read_bytes())
    data[77:81] = b"\x7f\xff\xff\x00"  # the bitmap's index blocks length: past the end under every type
    broken = tmp_path / "broken.index"
    broken.write_bytes(bytes(data))
    for given in ("INT", "STRING"):
        code, out, _ = run(capsys, "check", broken, "--schema", f"c {given}")
        assert code == 3 and out.startswith("MALFORMED") and "does not fit" not in out


def test_verify_without_the_schema_build_was_given_says_to_pass_it(capsys, tmp_path):
    data = tmp_path / "small.parquet"
    pq.write_table(pa.table({"small": pa.array([1, 2, 3, None, 5] * 20, pa.int32())}), data)
    code, _, _ = run(capsys, "build", data, "--schema", "small TINYINT", "--option",
                     "file-index.bitmap.columns=small")
    assert code == 0
    code, out, _ = run(capsys, "verify", data)
    assert code == 2 and "WRONG SCHEMA" in out and "UNREADABLE" not in out
    assert "--schema build was given" in out and "decode as" in out and "TINYINT" in out.split("decode as")[-1]
    code, out, _ = run(capsys, "verify", data, "--schema", "small TINYINT")
    assert code == 0 and "1 ok" in out


def test_lenient_query_answers_remain_for_a_body_built_for_another_type(capsys):
    code, out, err = run(capsys, "query", SAMPLES / "str_mixed__bitmap_v2.index", "--schema", "c INT", "--where",
                         "c = 1", "--lenient")
    assert code == 0 and "REMAIN" in out
    assert "answered REMAIN for a body built for another type" in err and "decode as STRING" in err


BSI_TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bsi.db" / "append_with_bsi"


def test_a_hint_names_the_data_files_type_not_the_narrowest_that_fits(capsys, tmp_path):
    """A bsi of values up to 500 decodes as SMALLINT, INT or BIGINT: the data file beside it says INT."""
    sidecar = next(BSI_TABLE.rglob("*.parquet.index"))
    for command in (["query", sidecar, "--where", "f1 = 1"], ["explain", sidecar],
                    ["query", sidecar, "--where", "f1 = 1", "--table", BSI_TABLE]):
        code, _, err = run(capsys, *command, "--schema", "f1 TINYINT")
        assert code == 2 and "it gives TINYINT, which its bsi index was not built for; the data's type is INT: leave " \
                             "f1 out of --schema\n" in err, err
    code, out, _ = run(capsys, "check", sidecar, "--schema", "f1 TINYINT")
    assert code == 2 and "; the data's type is INT: leave f1 out of --schema" in out
    alone = tmp_path / "alone.index"  # no data beside it: the types that fit, none picked
    alone.write_bytes(sidecar.read_bytes())
    code, _, err = run(capsys, "query", alone, "--schema", "f1 TINYINT", "--where", "f1 = 1")
    assert code == 2 and "its bytes decode as SMALLINT or INT or BIGINT (the index does not tell which): write " \
                         "--schema \"f1 TYPE\" with the data's type, or give --data DATA_FILE\n" in err


def test_a_decimal_too_wide_for_its_range_bitmap_is_told_the_compact_decimal(capsys):
    code, _, err = run(capsys, "query", JAVA_VECTORS / "decimal_10_2__range_bitmap.index",
                       "--schema", "c DECIMAL(20, 2)", "--where", "c = 1.5")
    assert code == 2 and 'write --schema "c DECIMAL(18, 2)" with the data\'s precision and scale' in err, err


@pytest.mark.parametrize("given, warned", [
    ("t TIMESTAMP(6)", True), ("t TIMESTAMP(2)", False), ("d DECIMAL(10, 3)", True), ("d DECIMAL(12, 2)", False),
])
def test_a_precision_or_scale_the_bytes_cannot_tell_is_warned_against_the_data(capsys, tmp_path, given, warned):
    """An index keeps a timestamp in milliseconds or microseconds and a decimal unscaled: under a --schema of
    another precision or scale its answers are wrong, and only the data beside it can say so."""
    import datetime as dt
    from decimal import Decimal

    data = tmp_path / "x.parquet"
    pq.write_table(pa.table({"t": pa.array([dt.datetime(2025, 4, 25, 1, 0, 2)], pa.timestamp("ms")),
                             "d": pa.array([Decimal("1.50")], pa.decimal128(10, 2))}), data)
    assert main(["build", str(data), "--option", "file-index.bitmap.columns=t",
                 "--option", "file-index.bsi.columns=d"]) == 0
    capsys.readouterr()
    code, _, err = run(capsys, "query", f"{data}.index", "--schema", given, "--where", "d IS NULL")
    assert code == 0
    assert ("under another precision or scale its answers are wrong" in err) is warned, err


def test_explain_names_a_schema_column_the_file_does_not_index(capsys):
    code, _, err = run(capsys, "explain", JAVA_VECTORS / "decimal_10_2__range_bitmap.index",
                       "--schema", "x DECIMAL(10, 2)")
    assert code == 0 and "--schema names x, which the file does not index" in err, err
    code, _, err = run(capsys, "explain", JAVA_VECTORS / "decimal_10_2__range_bitmap.index",
                       "--schema", "c DECIMAL(10, 2), x INT")  # (every body decoded: named all the same)
    assert code == 0 and err == (f"fileindex explain: {JAVA_VECTORS / 'decimal_10_2__range_bitmap.index'}: --schema "
                                 "names x, which the file does not index (it indexes c)\n"), err


def test_a_decimal_too_wide_beside_its_data_is_told_the_data_s_decimal(capsys, tmp_path):
    from decimal import Decimal

    data = tmp_path / "x.parquet"
    pq.write_table(pa.table({"amount": pa.array([Decimal("1.50"), Decimal("9990.00")], pa.decimal128(12, 2))}), data)
    assert main(["build", str(data), "--option", "file-index.range-bitmap.columns=amount"]) == 0
    capsys.readouterr()
    code, _, err = run(capsys, "query", f"{data}.index", "--schema", "amount DECIMAL(20, 2)", "--where",
                       "amount >= 9990.00")
    assert code == 2 and "the data's type is DECIMAL(12, 2): leave amount out of --schema" in err, err


def test_a_map_named_by_schema_is_indexed_by_its_keys_bodies():
    from fileindex.cli.explain import unindexed_schema_columns

    indexes = [("m[k]", "bloom-filter"), ("a", "bitmap")]
    schema = {"m": None, "a": None, "x": None, "d": None}
    assert unindexed_schema_columns(schema, indexes, {"d": None}) == ["x"]  # (d: the data's, not --schema's)
