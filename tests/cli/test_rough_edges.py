"""Rough edges a new user found (issue #31): paths as the tool prints them, ignored input that is an error or a
warning, answers and hints that say what was meant."""
import json
import shutil

import pytest
from conftest import ROOT

from fileindex.cli import main
from fileindex import PaimonTable
from fileindex.types import parse_schema

TABLES = ROOT / "tests" / "tables" / "parquet"
EMBEDDED = TABLES / "append_with_bitmap.db" / "append_with_bitmap"
SIDECARS = TABLES / "append_with_bitmap_no_embedding.db" / "append_with_bitmap_no_embedding"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def only_file(root):
    (entry, _), = PaimonTable(root).live()
    return entry


# -- table ROOT --explain FILE ----------------------------------------------------------------------------

def test_table_explain_takes_the_path_indexes_prints_and_explains_an_embedded_index(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the table is elsewhere: FILE is found through the table, not the current folder
    code, out, _ = run(capsys, "table", EMBEDDED, "--indexes", "--json")
    listed = json.loads(out.splitlines()[0])
    assert code == 0 and listed["index"] == "embedded"
    embedded = only_file(EMBEDDED).embedded_index
    for name in (listed["file"], listed["file"].split("/")[-1]):  # the printed path, and the data file's name
        code, out, err = run(capsys, "table", EMBEDDED, "--explain", name, "--json")
        assert code == 0, err
        assert "embedded in the manifest" in err
        fields = json.loads(out)
        assert sum(f["length"] for f in fields) == len(embedded)  # the embedded bytes, tiled
        assert {f["path"].split(":")[1].split("/")[0] for f in fields if ":" in f["path"]} == {"bitmap"}  # typed


def test_table_explain_finds_a_sidecar_by_its_name_or_its_data_file(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    entry = only_file(SIDECARS)
    sidecar = next(SIDECARS.rglob("*.index"))
    for name in (entry.file_name, sidecar.name, f"bucket-0/{sidecar.name}"):
        code, out, err = run(capsys, "table", SIDECARS, "--explain", name, "--json")
        assert code == 0, err
        assert sum(f["length"] for f in json.loads(out)) == sidecar.stat().st_size


def test_table_explain_of_an_unknown_file_says_where_to_look(capsys):
    code, _, err = run(capsys, "table", EMBEDDED, "--explain", "data-nope.parquet")
    assert code == 2 and "not a live data file" in err and "--indexes" in err


def test_table_explain_of_a_sidecar_the_manifests_do_not_name_uses_its_data_files_schema(capsys, tmp_path):
    root = tmp_path / "t"
    shutil.copytree(EMBEDDED, root)
    data = root / PaimonTable(root).relative(only_file(root))
    extra = data.with_name(data.name + ".index")  # as `spark build` writes beside a table's data file
    extra.write_bytes(only_file(root).embedded_index)
    code, out, err = run(capsys, "table", root, "--explain", extra, "--json")
    assert code == 0 and "not an index the table's manifests name" in err and "schema of bucket-0/" in err
    assert sum(f["length"] for f in json.loads(out)) == extra.stat().st_size


@pytest.mark.parametrize("flags", [["--indexes", "--where", "f0 = 1"], ["--explain", "x", "--where", "f0 = 1"],
                                   ["--explain", "x", "--indexes"]])
def test_table_refuses_flags_it_would_ignore(capsys, flags):
    code, out, err = run(capsys, "table", EMBEDDED, *flags)
    assert code == 2 and out == "" and "would be ignored" in err


# -- explain ----------------------------------------------------------------------------------------------

ENGINE = ROOT / "tests" / "vectors" / "java" / "multi__engine_layout.index"


@pytest.mark.parametrize("flags, message", [
    (["--column", "nope"], "--column nope: the file has no such column (its columns: attrs[size], price, name"),
    (["--index", "bogus"],
     "--index bogus: the file has no such index (it has: bitmap, bloom-filter, bsi, range-bitmap)"),
    (["--column", "price", "--index", "bitmap"], "no such index on column price (it has: bloom-filter)")])
def test_explain_selecting_nothing_is_an_error(capsys, flags, message):
    code, out, err = run(capsys, "explain", ENGINE, *flags)
    assert code == 2 and out == "" and message in err


def test_explain_shows_string_keys_as_text_beside_their_bytes(capsys):
    code, out, _ = run(capsys, "explain", ENGINE, "--schema", "name STRING", "--column", "name", "--index", "bitmap")
    assert code == 0 and "key/value/value = 'alice' (hex 616c696365)" in out
    code, out, _ = run(capsys, "explain", ENGINE, "--schema", "name STRING", "--json")
    keys = {f["text"]: f["value"] for f in json.loads(out) if "text" in f}
    assert keys["alice"] == b"alice".hex() and len(keys) == 4


def test_explain_without_types_says_what_would_decode_the_bodies(capsys):
    code, _, err = run(capsys, "explain", ENGINE, "--schema", "name STRING, id INT, ts TIMESTAMP(3)")
    assert code == 0 and "for want of the column's type: bitmap of attrs[size]" in err
    assert "bitmap of name" not in err and '--schema "attrs MAP<KEY, TYPE>, `列名😀` TYPE"' in err
    hint = err.split('--schema "')[1].split('"')[0]
    assert list(parse_schema(hint.replace("KEY", "STRING").replace("TYPE", "INT"))) == ["attrs", "列名😀"]
    _, _, err = run(capsys, "explain", ENGINE, "--schema", "name STRING", "--column", "name")
    assert "raw bytes" not in err  # only the selected bodies count


# -- build, query and check ------------------------------------------------------------------------------

@pytest.fixture
def data_file(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "x.parquet"
    pq.write_table(pa.table({"a": pa.array([1, 2, None], pa.int64())}), path)
    return path


def test_a_repeated_option_key_with_two_values_is_an_error(capsys, data_file):
    code, _, err = run(capsys, "build", data_file, "--option", "file-index.bitmap.columns=a",
                       "--option", "file-index.bitmap.columns=b")
    assert code == 2 and "--option file-index.bitmap.columns is given twice ('a' and 'b')" in err
    assert not data_file.with_name("x.parquet.index").exists()
    assert run(capsys, "build", data_file, "--option", "file-index.bitmap.columns=a",
               "--option", "file-index.bitmap.columns=a")[0] == 0  # the same value twice says nothing new


def test_query_of_a_data_file_names_its_index(capsys, data_file):
    code, _, err = run(capsys, "query", data_file, "--where", "a = 1")
    assert code == 2 and "is a Parquet data file, not a file index; build its index with: fileindex build" in err
    assert run(capsys, "build", data_file, "--option", "file-index.bitmap.columns=a")[0] == 0
    code, _, err = run(capsys, "query", data_file, "--where", "a = 1")
    assert code == 2 and f"did you mean {data_file}.index?" in err


@pytest.mark.parametrize("command", ["check", "inspect", "explain"])
def test_commands_that_read_an_index_say_a_data_file_is_not_one(capsys, data_file, command):
    code, out, err = run(capsys, command, data_file)
    assert code == 2 and "is a Parquet data file, not a file index" in out + err
    assert "magic" not in out + err


def test_verify_given_the_index_first_says_which_file_goes_where(capsys, data_file, tmp_path):
    assert run(capsys, "build", data_file, "--option", "file-index.bitmap.columns=a")[0] == 0
    index = f"{data_file}.index"
    code, _, err = run(capsys, "verify", index)
    assert code == 2 and f"is a file index, not a data file; give the data file first: fileindex verify {data_file} " \
        f"{index}" in err
    (tmp_path / "notes.txt").write_text("hello")
    code, _, err = run(capsys, "verify", tmp_path / "notes.txt")
    assert code == 2 and "is not a Parquet or ORC data file" in err


def test_no_candidate_row_has_no_dangling_colon_and_null_comparisons_get_a_hint(capsys, data_file):
    assert run(capsys, "build", data_file, "--option", "file-index.bitmap.columns=a")[0] == 0
    code, out, err = run(capsys, "query", f"{data_file}.index", "--where", "a = 3", "--where", "a = NULL")
    assert code == 0 and out.splitlines() == ["a = 3  =>  ROWS 0 (no candidate row)", "a = NULL  =>  ROWS 1: 2"]
    assert "a = NULL: a comparison with NULL is never true in SQL" in err and "write a IS NULL" in err
    code, out, err = run(capsys, "query", f"{data_file}.index", "--where", "a = NULL OR a IS NULL")
    assert code == 0 and "a comparison with NULL is never true in SQL" in err and "write a IS NULL" not in err
    _, _, err = run(capsys, "query", f"{data_file}.index", "--where", "a IS NULL")
    assert "never true" not in err


def test_table_where_hints_at_is_null_too(capsys):
    code, _, err = run(capsys, "table", EMBEDDED, "--where", "f0 = NULL")
    assert code == 0 and "write f0 IS NULL" in err


def test_check_with_types_that_lack_the_indexed_column_warns(capsys, data_file, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    assert run(capsys, "build", data_file, "--option", "file-index.bitmap.columns=a")[0] == 0
    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"z": [1]}), other)
    code, out, _ = run(capsys, "check", f"{data_file}.index", "--data", other)
    assert code == 0 and "0 bodies decoded and checked; warning: the given types lack column(s) a" in out
    code, out, _ = run(capsys, "check", f"{data_file}.index", "--data", other, "--json")
    assert json.loads(out)["untyped_columns"] == ["a"]
    code, out, _ = run(capsys, "check", f"{data_file}.index")  # the data file beside it has the column
    assert "1 bodies decoded and checked" in out and "warning" not in out


TABLES = ROOT / "tests" / "tables" / "parquet"


@pytest.mark.parametrize("arguments, message", [
    (["--where", "nosuch = 1"], "nosuch"),
    (["--where", "f0 = 'a'", "--select", "f0,f0"], "selected twice"),
    (["--where", "f0 = 'a'", "--select", "f0,nosuch"], "cannot select unknown column 'nosuch'"),
    (["--where", "f0 = 'a'", "--select", "f0,"], "empty column name"),
    (["--where", "f0 = 'a'", "--source", "datasource", "<plain>"], "--source datasource reads one Paimon table"),
    (["--where", "f0 = 'a'", "<evolution>"], "data-evolution table"),
])
def test_spark_scan_refuses_what_it_can_check_before_starting_spark(capsys, monkeypatch, arguments, message):
    import fileindex.cli.spark.scan as scan_cli

    def no_session(args):
        raise AssertionError("a Spark session was started for a scan that is refused")

    monkeypatch.setattr(scan_cli, "session", no_session)
    table = TABLES / "append_with_bsi_bitmap_bloomfilter.db" / "append_with_bsi_bitmap_bloomfilter"
    inputs = {"<plain>": str(next((table / "bucket-0").glob("*.parquet"))),
              "<evolution>": str(TABLES / "data_evolution_with_index.db" / "data_evolution_with_index")}
    given = [a for a in arguments if a not in inputs]
    paths = [inputs[a] for a in arguments if a in inputs] or [str(table)]
    try:
        code = main(["spark", "scan", *paths, *given])
    except SystemExit as exit:  # argparse's own refusal of an argument
        code = exit.code
    assert code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("job, extra", [("verify", []), ("build", ["--option", "file-index.bloom-filter.columns=id"]),
                                        ("scan", ["--where", "id = 1"]), ("rewrite", [])])
def test_every_spark_job_checks_its_inputs_before_starting_spark(capsys, monkeypatch, tmp_path, job, extra):
    """A missing input is one line in seconds: spark verify started Spark first (69-135 s before saying so)."""
    import importlib

    def no_session(args):
        raise AssertionError(f"a Spark session was started for spark {job} of a missing path")

    monkeypatch.setattr(importlib.import_module(f"fileindex.cli.spark.{job}"), "session", no_session)
    missing = tmp_path / "nosuch"
    assert main(["spark", job, str(missing), *extra]) == 2
    assert f"{missing}" in capsys.readouterr().err


ORC_TIMESTAMPS = ROOT / "tests" / "tables" / "orc" / "timestamp_index.db" / "timestamp_index" / "bucket-0"


def test_orc_timestamps_typed_from_the_file_are_flagged_and_verify_takes_the_schema_build_took(capsys, tmp_path):
    """ORC keeps no timestamp precision: an index built for the table's TIMESTAMP(0) keys milliseconds, and
    verifying it as the file's TIMESTAMP(9) reports false negatives, unless verify is given the same types."""
    data = tmp_path / "d.orc"
    shutil.copy(next(ORC_TIMESTAMPS.glob("*.orc")), data)
    assert main(["build", str(data), "--option", "file-index.bloom-filter.columns=ts_sec,ts_milli"]) == 0
    assert "ORC records no timestamp precision, so ts_sec, ts_milli are typed TIMESTAMP(9)" in capsys.readouterr().err
    assert main(["build", str(data), "--option", "file-index.bloom-filter.columns=ts_sec",
                 "--schema", "ts_sec TIMESTAMP(0)"]) == 0
    assert "no timestamp precision" not in capsys.readouterr().err
    assert main(["verify", str(data)]) == 1  # checked as TIMESTAMP(9), and told why
    assert 'so ts_sec is typed TIMESTAMP(9); for a Paimon table\'s file give its types' in capsys.readouterr().err
    assert main(["verify", str(data), "--schema", "ts_sec TIMESTAMP(0)"]) == 0
    assert "no timestamp precision" not in capsys.readouterr().err
    assert main(["verify", str(data), "--schema", "nope INT"]) == 2
    assert "--schema names 'nope'" in capsys.readouterr().err


def test_query_check_and_explain_flag_orc_timestamps_typed_from_the_data_file(capsys, tmp_path):
    """The commands that take column types from a data file say so for an ORC file's timestamps too, naming
    only the indexed ones, and not when --schema gives their type."""
    data = tmp_path / "d.orc"
    shutil.copy(next(ORC_TIMESTAMPS.glob("*.orc")), data)
    assert main(["build", str(data), "--option", "file-index.bloom-filter.columns=ts_sec",
                 "--schema", "ts_sec TIMESTAMP(0)"]) == 0
    capsys.readouterr()
    index = f"{data}.index"
    for command in (["query", index, "--where", "ts_sec IS NULL"], ["check", index], ["explain", index]):
        main(command)
        err = capsys.readouterr().err
        assert f"fileindex {command[0]}: ORC records no timestamp precision, so ts_sec is typed TIMESTAMP(9)" in err
        assert "ts_milli" not in err
        main([*command, "--schema", "ts_sec TIMESTAMP(0)"])
        assert "no timestamp precision" not in capsys.readouterr().err


def test_a_map_of_orc_timestamps_is_flagged_as_its_values_are_indexed(capsys, tmp_path):
    """An index on a map's timestamp values (``m[k]``) keys them by the map's value type, which an ORC file
    records without precision as well: build and query say so, with the --schema entry that types the map."""
    import datetime as dt

    import pyarrow as pa
    import pyarrow.orc as orc

    data = tmp_path / "m.orc"
    stamps = [[("k", dt.datetime(2026, 1, 1) + dt.timedelta(seconds=second))] for second in range(100)]
    orc.write_table(pa.table({"m": pa.array(stamps, pa.map_(pa.string(), pa.timestamp("ms")))}), data)
    typed = "m MAP<STRING, TIMESTAMP(3)>"
    assert main(["build", str(data), "--option", "file-index.bloom-filter.columns=m[k]"]) == 0
    err = capsys.readouterr().err
    assert ('so m[k] is typed TIMESTAMP(9); for a Paimon table\'s file give its types, e.g. '
            '--schema "m MAP<STRING NOT NULL, TIMESTAMP(3)>"') in err  # the map's key type as the file has it
    assert main(["build", str(data), "--option", "file-index.bloom-filter.columns=m[k]", "--schema", typed]) == 0
    assert "no timestamp precision" not in capsys.readouterr().err
    query = ["query", f"{data}.index", "--where", "m['k'] = TIMESTAMP '2026-01-01 00:00:05'"]
    main(query)  # typed from the data file beside the index: TIMESTAMP(9), another key than the index's
    assert "so m[k] is typed TIMESTAMP(9)" in capsys.readouterr().err
    main([*query, "--schema", typed])
    captured = capsys.readouterr()
    assert "no timestamp precision" not in captured.err and "REMAIN" in captured.out


# -- a misspelt column and a schema that names no indexed column ------------------------------------------

@pytest.mark.parametrize("argv, said", [
    (["read", EMBEDDED, "--where", "fo = 'a'"], "unknown column 'fo'"),
    (["read", EMBEDDED, "--select", "f1,fo"], "cannot select unknown column 'fo'"),
    (["read", EMBEDDED, "--order-by", "fo"], "cannot order by unknown column 'fo'"),
    (["table", EMBEDDED, "--where", "fo = 'a'"], "unknown column 'fo'"),
    (["query", ENGINE, "--schema", "price DOUBLE", "--where", "prise > 1"], "unknown column 'prise'"),
    (["explain", ENGINE, "--column", "prise"], "--column prise: the file has no such column"),
])
def test_a_misspelt_column_is_answered_with_the_one_meant(capsys, argv, said):
    """A letter typed for a digit it resembles (fo for f0), or one edit away (prise for price): did you mean."""
    code, out, err = run(capsys, *argv)
    meant = "f0" if "fo" in said else "price"
    assert code == 2 and out == "" and said in err and f"did you mean {meant}?" in err and len(err.splitlines()) <= 3


def test_a_misspelt_column_in_python_is_answered_with_the_one_meant():
    from fileindex.errors import UsageError

    scan = PaimonTable(EMBEDDED).scan
    for call, said in [(lambda: scan(where="fo = 'a'"), "unknown column 'fo'"),
                       (lambda: scan(columns=["fo"]).to_arrow(), "cannot select unknown column 'fo'"),
                       (lambda: scan(order_by="fo", limit=1).to_arrow(), "cannot order by unknown column 'fo'")]:
        with pytest.raises(UsageError, match=f"{said}.*did you mean f0\\?"):
            call()


@pytest.mark.parametrize("name, names, meant", [
    ("fo", ["f0", "f1", "f2"], "f0"), ("co1_l", ["col_1", "col_2"], "col_1"), ("amout", ["id", "amount"], "amount"),
    ("ix", ["id", "name"], "id"), ("nmae", ["name", "id"], "name"), ("f", ["f0", "f1"], None),
    ("zzz", ["f0", "f1"], None)])
def test_the_name_meant_is_the_likely_one_or_none(name, names, meant):
    from fileindex.tokens import closest_name

    assert closest_name(name, names) == meant  # f is one edit from f0 and f1 alike: no guess


def test_query_says_when_the_schema_names_no_indexed_column(capsys):
    other = ROOT / "tests" / "tables" / "append_with_bitmap_multi_stripes.db" / "append_with_bitmap_multi_stripes" / \
        "bucket-0" / "data-multi-row-groups.parquet"  # another file's data: its columns f0..f3
    code, out, err = run(capsys, "query", ENGINE, "--data", other, "--where", "f1 = 1")
    assert code == 0 and out.strip() == "f1 = 1  =>  REMAIN"
    err = err.split("\n", 1)[1]  # (after the line naming where the types came from)
    assert "the schema names none of its indexed columns (attrs[size], price" in err and "every answer is REMAIN" in err
    assert '--schema "price TYPE"' in err and len(err.splitlines()) == 1
    code, out, err = run(capsys, "query", ENGINE, "--data", other, "--schema", "price DOUBLE", "--where", "f1 = 1")
    assert code == 0 and "indexed columns" not in err  # one indexed column named: each predicate is answered


@pytest.mark.parametrize("written, meant", [("LONG", "BIGINT"), ("TEXT", "STRING"), ("BOOL", "BOOLEAN"),
                                            ("INTEGR", "INTEGER"), ("ARRAY<LONG>", "BIGINT")])
def test_a_type_paimon_names_otherwise_is_answered_with_its_name(capsys, written, meant):
    code, out, err = run(capsys, "query", ENGINE, "--schema", f"price {written}", "--where", "price IS NULL")
    assert code == 2 and out == "" and f"did you mean {meant}?" in err and len(err.splitlines()) == 1


def test_query_of_a_missing_file_says_so_before_asking_for_types(capsys, tmp_path):
    code, out, err = run(capsys, "query", tmp_path / "nothere.index", "--where", "id = 5")
    assert code == 2 and out == "" and "cannot read" in err and "nothere.index" in err and "--schema" not in err


def test_build_naming_a_column_the_file_lacks_says_which_it_has(capsys, data_file):
    code, _, err = run(capsys, "build", data_file, "--option", "file-index.bloom-filter.columns=b")
    assert code == 2
    assert "ask for an index on column 'b', which the file does not have (did you mean a? its columns: a)" in err


def test_read_says_when_a_file_s_index_could_not_be_used(capsys, tmp_path):
    root = tmp_path / "t"
    shutil.copytree(TABLES / "append_with_bitmap_no_embedding.db" / "append_with_bitmap_no_embedding", root)
    code, out, err = run(capsys, "read", root, "--where", "f1 = 10", "--count")
    assert code == 0 and out.strip() == "5" and "could not be used" not in err  # (its sidecar there)
    sidecar, = root.rglob("*.index")
    sidecar.unlink()
    for flags in ((), ("--count",)):
        code, out, err = run(capsys, "read", root, "--where", "f1 = 10", *flags)
        said = [line for line in err.splitlines() if "could not be used" in line]
        assert code == 0 and said == [f"fileindex read: the index of bucket-0/{sidecar.name[:-len('.index')]} could "
                                      f"not be used (index file {sidecar.name} is missing): its rows are checked "
                                      "without it (--explain lists them)"]
        assert "5" in (out if flags else err)  # (the same answer: 5 rows)
