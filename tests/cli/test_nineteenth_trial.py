"""Confusing messages, exit codes and doc errors the nineteenth (new user's) trial found."""
import decimal
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_third_trial import run


@pytest.fixture
def priced(tmp_path, capsys):
    """500 rows: ``id`` BIGINT with a bloom filter, ``price`` DECIMAL(10, 2) with a bsi."""
    data = tmp_path / "a.parquet"
    prices = pa.array([decimal.Decimal(i) / 100 for i in range(500)], pa.decimal128(10, 2))
    pq.write_table(pa.table({"id": pa.array(range(500), pa.int64()), "price": prices}), data)
    code, _, err = run(capsys, "build", data, "--option", "file-index.bloom-filter.columns=id",
                       "--option", "file-index.bsi.columns=price")
    assert code == 0, err
    return data


@pytest.mark.parametrize(("schema", "said"), [
    ("price DECIMAL(10,3)", "price DECIMAL(10, 3) (the data: DECIMAL(10, 2))"),
    ("id DOUBLE", "id DOUBLE (the data: BIGINT)"),
])
def test_verify_warns_of_a_schema_that_retypes_the_data_and_says_so_in_its_report(capsys, priced, schema, said):
    """verify blamed the bsi ("499 of 500 rows differ") or the bloom filter (false negatives) for a --schema that
    types a column otherwise than its data, where query warns of it."""
    code, out, err = run(capsys, "verify", priced, "--schema", schema)
    assert code == 1
    assert "warning: --schema" in err and said in err
    assert "the --schema differs from the data's types" in out and said in out
    code, out, _ = run(capsys, "verify", priced, "--schema", schema, "--json")
    assert code == 1 and json.loads(out)["retyped_by_schema"] == [said]


def test_verify_says_nothing_of_a_schema_that_keeps_the_data_types(capsys, priced):
    code, out, err = run(capsys, "verify", priced, "--schema", "price DECIMAL(10,2)")
    assert code == 0 and "warning" not in err and "--schema differs" not in out


def test_build_refuses_a_folder_or_a_non_data_file_as_verify_does_exit_2(capsys, tmp_path):
    """build exited 3 ("malformed") for these, where verify exits 2 and docs/cli.md says 2 is usage."""
    (tmp_path / "mix").mkdir()
    (tmp_path / "f.csv").write_text("id\n1\n")
    for given, said in ((tmp_path / "mix", "is a folder, not a data file"),
                        (tmp_path / "f.csv", "is not a Parquet or ORC data file")):
        for command in ("build", "verify"):
            code, out, err = run(capsys, command, given, "--option", "file-index.bitmap.columns=id") \
                if command == "build" else run(capsys, command, given)
            assert (code, out) == (2, ""), (command, given, err)
            assert said in err
    code, _, err = run(capsys, "build", tmp_path / "mix", "--option", "file-index.bitmap.columns=id")
    assert "build them all with fileindex spark build" in err


def test_bloom_sizing_advice_says_what_its_numbers_are():
    """"sized for about 111" for a filter built with items=100 (fpp 0.1): 111 is what its bits and hash functions
    hold at their own false-positive rate (1/2^k), which the advice now says."""
    from fileindex.indexes.bloom_filter.keys import bloom_parameters
    from fileindex.indexes.bloom_filter.math import diagnose

    sized = bloom_parameters(100, 0.1)
    empty = sized.num_hash_functions.to_bytes(4, "big") + bytes(sized.payload_length - 4)
    advice = diagnose(empty).advice
    assert "480 bits and 3 hash functions hold about 111 at a false-positive rate of 0.125" in advice
    assert "sized for" not in advice and "about -0" not in advice


def test_negative_bloom_items_are_told_to_be_positive():
    """items=-5 was advised "use 0 < fpp < 1 and fewer items"."""
    from fileindex.errors import UsageError
    from fileindex.indexes.bloom_filter.keys import bloom_parameters

    with pytest.raises(UsageError, match="items=-5: items must be positive") as raised:
        bloom_parameters(-5, 0.03)
    assert "fewer items" not in str(raised.value)
