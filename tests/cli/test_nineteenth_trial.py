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


@pytest.fixture
def mixed(tmp_path):
    data = tmp_path / "a.parquet"
    pq.write_table(pa.table({"id": [1, 2], "name": ["a", "b"], "tags": pa.array([[1], [2]]),
                             "price": pa.array([decimal.Decimal("1.00")] * 2, pa.decimal128(10, 2))}), data)
    return data


@pytest.mark.parametrize(("option", "said", "unsaid"), [
    ("file-index.bitmap.columns=tags", "no index takes a column of type ARRAY<BIGINT>", "for DECIMAL"),
    ("file-index.bloom-filter.columns=tags", "no index takes a column of type ARRAY<BIGINT>", "for BOOLEAN"),
    ("file-index.bitmap.columns=price", "bsi or range-bitmap take a column of type DECIMAL(10, 2)", "BINARY"),
    ("file-index.bitmap.columns=nmae", "did you mean name? its columns: id, name, tags, price", "\n."),
    ("file-index.bitmap.columns=Name", "did you mean name? its columns: id, name, tags, price", "\n."),
    ("fileindex.bitmap.columns=name", "did you mean file-index.bitmap.columns?", "\n."),
])
def test_build_says_which_index_takes_a_type_and_which_name_was_meant(capsys, mixed, option, said, unsaid):
    """A bitmap on an ARRAY was told "use bsi or range-bitmap for DECIMAL, bloom-filter for BINARY"; a misspelt
    column or option prefix was not named as query names one."""
    code, out, err = run(capsys, "build", mixed, "--option", option)
    assert (code, out) == (2, "")
    assert said in err and unsaid not in err.strip()


def test_build_without_o_beside_a_table_s_own_index_says_it_is_the_default_and_what_to_pass(capsys, tmp_path):
    """Without -o the refusal read "-o t4/bucket-0/....index is the index file that snapshot/snapshot-1 names"
    (no -o was given); -o bucket-0 (a folder) suggested that same file, which build refuses."""
    import shutil

    from conftest import ROOT

    table = tmp_path / "t4"
    shutil.copytree(ROOT / "tests" / "tables" / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv", table)
    data = table / "bucket-0" / "data-bfa36b28-40e7-4026-893b-d23116973174-0.parquet"
    outside = tmp_path / (data.name + ".index")
    code, _, err = run(capsys, "build", data, "--option", "file-index.bitmap.columns=f0")
    assert code == 2
    assert f"the default output, {data}.index (beside the data file), is the index file that snapshot/" in err
    assert f"-o {outside}" in err
    code, _, err = run(capsys, "build", data, "-o", table / "bucket-0", "--option", "file-index.bitmap.columns=f0")
    assert code == 2 and f"e.g. {outside}" in err
    code, _, err = run(capsys, "build", data, "-o", outside, "--option", "file-index.bitmap.columns=f0")
    assert code == 0 and outside.is_file()


def test_a_table_s_ignored_option_is_warned_about_once_per_command(tmp_path):
    """On the Java table that sets file-index.bitmap.version, "option file-index.bitmap.version is ignored by
    Paimon" was printed 2-5 times by one command (once for each snapshot, plan and file that read it)."""
    import shutil
    import subprocess
    import sys

    from conftest import ROOT

    table = tmp_path / "t"
    shutil.copytree(ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap_alter_table.db"
                    / "append_with_bitmap_alter_table", table)
    for argv in (["rewrite", table, "--dry-run"], ["table", table, "--set", "file-index.bitmap.f1.x=1"]):
        err = subprocess.run([sys.executable, "-m", "fileindex", *map(str, argv)], capture_output=True, text=True,
                             check=False).stderr
        assert err.count("option file-index.bitmap.version is ignored by Paimon") == 1, err
