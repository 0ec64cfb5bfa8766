"""MIN and MAX of every type, and DECIMAL past 28 digits, through build, query and both verifies."""
import datetime as dt
import decimal
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fileindex.cli import main
from fileindex.errors import UsageError
from fileindex.indexes import bsi
from fileindex.scan.task import DataFileTask
from fileindex.scan.truth import _literal_ordinal
from fileindex.pipeline.verify import verify_file
from fileindex.predicate.parser import parse_predicate
from fileindex.types import parse_type
from fileindex.values import decimal_unscaled
from fileindex.writing.data_file import build_data_file_index

D = decimal.Decimal
LONG_MAX = (1 << 63) - 1


def ints(bits, arrow):
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return pa.array([low, high, low + 1, high - 1, 0, -1, None, high], type=arrow)


def floats(arrow, biggest, tiniest):
    return pa.array([-biggest, biggest, tiniest, -tiniest, 0.0, -0.0, float("inf"), float("-inf"), float("nan"),
                     None, biggest], type=arrow)


EDGES = {  # type: (column, the index types Paimon allows on it)
    "TINYINT": (ints(8, pa.int8()), ("bloom-filter", "bitmap", "bsi", "range-bitmap")),
    "SMALLINT": (ints(16, pa.int16()), ("bloom-filter", "bitmap", "bsi", "range-bitmap")),
    "INT": (ints(32, pa.int32()), ("bloom-filter", "bitmap", "bsi", "range-bitmap")),
    "BIGINT": (pa.array([-LONG_MAX, LONG_MAX, -LONG_MAX + 1, LONG_MAX - 1, 0, -1, None]),  # MIN: bsi refuses it
               ("bloom-filter", "bitmap", "bsi", "range-bitmap")),
    "BIGINT MIN": (ints(64, pa.int64()), ("bloom-filter", "bitmap", "range-bitmap")),
    "FLOAT": (floats(pa.float32(), float(np.finfo(np.float32).max), float(np.finfo(np.float32).smallest_subnormal)),
              ("bloom-filter", "bitmap", "range-bitmap")),
    "DOUBLE": (floats(pa.float64(), float(np.finfo(np.float64).max), 5e-324),
               ("bloom-filter", "bitmap", "range-bitmap")),
    "DATE": (pa.array([dt.date(1, 1, 1), dt.date(9999, 12, 31), dt.date(1970, 1, 1), None]),
             ("bloom-filter", "bitmap", "bsi", "range-bitmap")),
    "TIMESTAMP(3)": (pa.array([dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, 999000), None],
                              type=pa.timestamp("ms")), ("bloom-filter", "bitmap", "bsi", "range-bitmap")),
    "DECIMAL(18, 2)": (pa.array([D("-9999999999999999.99"), D("9999999999999999.99"), D("0.01"), None],
                                type=pa.decimal128(18, 2)), ("bsi", "range-bitmap")),
    "DECIMAL(38, 2)": (pa.array([D("-92233720368547758.07"), D("92233720368547758.07"), D("0.00"), None],
                                type=pa.decimal128(38, 2)), ("bsi",)),
}


@pytest.mark.parametrize("name", sorted(EDGES))
def test_the_extremes_of_every_type_verify_clean_on_every_index(tmp_path, name):
    column, index_types = EDGES[name]
    path = tmp_path / "edges.parquet"
    pq.write_table(pa.table({"c": column}), path)
    options = {f"file-index.{index_type}.columns": "c" for index_type in index_types}
    path.with_name(path.name + ".index").write_bytes(build_data_file_index(path, options).data)
    task = DataFileTask(str(path), path.name, path.stat().st_size)
    for exhaustive in (True, False):
        report = verify_file(task, exhaustive=exhaustive)
        assert report.status == "ok", (exhaustive, report.as_row())
        assert {index for index, _ in report.tallies} == set(index_types)


def test_bsi_refuses_long_min_as_java_does(tmp_path):
    path = tmp_path / "min.parquet"
    pq.write_table(pa.table({"c": EDGES["BIGINT MIN"][0]}), path)
    with pytest.raises(UsageError, match="Long.MIN_VALUE"):
        build_data_file_index(path, {"file-index.bsi.columns": "c"})


@given(st.integers(-(10**38) + 1, 10**38 - 1), st.integers(0, 38), st.integers(0, 6))
def test_decimal_unscaled_is_exact_past_28_digits(unscaled, scale, extra):
    """Round HALF_UP to the scale, as BigDecimal.setScale does, for any value of DECIMAL(38, s)."""
    value = D(unscaled).scaleb(-(scale + extra), context=decimal.Context(prec=100))
    exact = Fraction(unscaled, 10 ** extra)
    expected = int(abs(exact) + Fraction(1, 2)) * (1 if exact >= 0 else -1)
    assert decimal_unscaled(value, parse_type(f"DECIMAL(38, {scale})")) == expected


def test_a_literal_past_28_digits_keeps_every_digit_in_the_truth():
    data_type = parse_type("DECIMAL(38, 2)")
    literal = parse_predicate("d = 123456789012345678901234567890123456.78", {"d": data_type}).literals[0]
    assert _literal_ordinal(literal, data_type, pa.decimal128(38, 2)) == (12345678901234567890123456789012345678, 0)


def test_a_bsi_over_decimals_past_a_long_is_refused_with_a_message(tmp_path, capsys):
    huge = D("999999999999999999999999999999999999.99")  # DECIMAL(38, 2) MAX: unscaled 10^38 - 1, near 2^126
    with pytest.raises(UsageError, match="does not fit a long"):  # Python values: no decimal.InvalidOperation
        bsi.build([huge, D("1.00")], parse_type("DECIMAL(38, 2)"))
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"d": pa.array([huge, D("1.00")], type=pa.decimal128(38, 2))}), path)
    assert main(["build", str(path), "--option", "file-index.bsi.columns=d"]) == 2
    assert "does not fit a long" in capsys.readouterr().err and not path.with_name("d.parquet.index").exists()


@pytest.mark.parametrize("literal", ["10000000000000000000000000000.00", "92233720368547758.08",
                                     "-92233720368547758.09", "-999999999999999999999999999999999999.99"])
def test_a_query_literal_past_a_long_on_a_bsi_decimal_is_refused_with_a_message(tmp_path, capsys, literal):
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"d": pa.array([D("12.50"), None], type=pa.decimal128(38, 2))}), path)
    assert main(["build", str(path), "--option", "file-index.bsi.columns=d"]) == 0
    capsys.readouterr()
    code = main(["query", f"{path}.index", "--where", f"d = {literal}", "--where", "d = 12.50"])
    err = capsys.readouterr().err
    assert code == 2 and "does not fit a long" in err and "Traceback" not in err
    assert main(["query", f"{path}.index", "--where", "d = 92233720368547758.07", "--where", "d = 12.50",
                 "--json"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == '{"result": "ROWS", "cardinality": 1, "ranges": [[0, 0]]}'
