"""A DECIMAL literal finer than its column through Spark: the data source's pruned rows, Spark's own filter of a
plain read (``to_column``) and ``spark scan --count`` compare it by value, as the local read does."""
import decimal
import json

import pytest
from conftest import ROOT

from fileindex import PaimonTable
from fileindex.cli.app import main
from fileindex.predicate.parser import parse_predicate
from fileindex.spark.datasource import read_table
from fileindex.spark.expressions import to_column

DECIMAL_KEY = ROOT / "tests" / "tables" / "primary-keys" / "decimal_key"  # k DECIMAL(20, 4)
SMALLEST = "-99999999999999.9999"  # (then -1.0000, 0.0001 and 12.5000)
KEYS = {
    "k > 0.00005": ["0.0001", "12.5000"],
    "k >= -1.00001": ["-1.0000", "0.0001", "12.5000"],
    "k = 12.50001": [],
    "k < 12.49999": [SMALLEST, "-1.0000", "0.0001"],
    "k BETWEEN 0.00001 AND 12.50001": ["0.0001", "12.5000"],
    "k IN (0.00011, 12.5)": ["12.5000"],
    "k NOT IN (0.00011, 12.5)": [SMALLEST, "-1.0000", "0.0001"],
}


def keys(rows) -> list[str]:
    return sorted((str(row["k"]) for row in rows), key=decimal.Decimal)


@pytest.mark.parametrize("where", sorted(KEYS))
def test_spark_compares_a_finer_decimal_literal_by_value(spark, capsys, where):
    expected = sorted(KEYS[where], key=decimal.Decimal)
    assert keys(PaimonTable(DECIMAL_KEY).scan(where).to_arrow().to_pylist()) == expected
    assert keys(read_table(spark, str(DECIMAL_KEY), where).collect()) == expected
    plain = read_table(spark, str(DECIMAL_KEY))
    types = {field.name: field.type for field in PaimonTable(DECIMAL_KEY).schema.fields}
    filtered = plain.where(to_column(parse_predicate(where, types), types)).collect()
    assert keys(filtered) == expected
    assert main(["spark", "scan", str(DECIMAL_KEY), "--where", where, "--count", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["count"] == len(expected)
