"""Rough edges the seventh trial left: a misspelt literal keyword (``DAT '2024-01-01'``) was told to quote it as a
string; a stray ``)`` and an operator written the other way round (``=<``) got no fix; ``99999999.995`` on
DECIMAL(10, 2) was taken while ``100000000`` was refused; ``read --explain`` noted an unchecked merge where none could
fail, with reasons nested in reasons; exit 3 for a failing merge was undocumented; ``--progress`` said nothing until
the first batch was printed."""
import pytest
from conftest import ROOT
from test_third_trial import run

from fileindex.errors import UsageError
from fileindex.predicate.parser import parse_predicate
from fileindex.types import parse_type

DATE_KEY = ROOT / "tests" / "tables" / "primary-keys" / "date_key"
SCHEMA = {"d": parse_type("DATE"), "t": parse_type("TIMESTAMP(6)"), "f1": parse_type("INT"),
          "s": parse_type("STRING")}


def test_a_misspelt_date_keyword_says_the_literal_meant(capsys):
    code, out, err = run(capsys, "read", DATE_KEY, "--where", "k = DAT '2024-01-01'", "--count")
    assert (code, out) == (2, "")
    assert "did you mean DATE '2024-01-01'?" in err and "single quotes" not in err


def caret_position(message: str) -> int:
    return int(message.rsplit("position ", 1)[1])


@pytest.mark.parametrize(("where", "hint", "at"), [
    ("d = dte '2024-01-01'", "(did you mean DATE '2024-01-01'?)", "dte"),
    ("t = TIMESTAM '2024-01-01 00:00:00'", "(did you mean TIMESTAMP '2024-01-01 00:00:00'?)", "TIMESTAM"),
    ("t = DATETIME '2024-01-01 00:00:00'", "(did you mean TIMESTAMP '2024-01-01 00:00:00'?)", "DATETIME"),
    ("t = TIMESTAMP_LTZ '2024-01-01 00:00:00'", "(did you mean TIMESTAMP '2024-01-01 00:00:00'?)", "TIMESTAMP_LTZ"),
    ("f1 = DECIMAL '1.5'", "write a DECIMAL value alone, 1.5)", "DECIMAL"),
    ("f1 = NUL", "(did you mean NULL? or, for a string, 'NUL' in single quotes)", "NUL"),
    ("s = tru", "(did you mean TRUE? or, for a string, 'tru' in single quotes)", "tru"),
    ("f1 = 1)", "this ')' closes no '(': delete it, or write '(' where the conditions it groups begin", "1)"),
    ("(f1 = 1) AND s = 'x')", "this ')' closes no '('", "')"),
    ("f1 =< 3", "write <=, not =< (f1 <= VALUE)", "=<"),
    ("f1 => 3", "write >=, not => (f1 >= VALUE)", "=>"),
    ("f1 >< 3", "write <>, not >< (f1 <> VALUE)", "><"),
])
def test_a_misspelt_keyword_a_stray_parenthesis_or_an_operator_turned_round_says_what_to_write(where, hint, at):
    """``at``: the text the caret stands under the start of (a ')' after its first character)."""
    with pytest.raises(UsageError) as raised:
        parse_predicate(where, SCHEMA)
    message = str(raised.value)
    assert hint in message.splitlines()[0] and "a string goes in single quotes" not in message
    expected = where.rindex(at) + (1 if at.endswith(")") else 0)
    assert caret_position(message) == expected
    assert message.splitlines()[2].index("^") == message.splitlines()[1].index(where) + expected


@pytest.mark.parametrize(("where", "rounded"), [("d = 99999999.995", "100000000.00"),
                                                ("d < -99999999.995", "-100000000.00"),
                                                ("d BETWEEN 0 AND 99999999.999", "100000000.00")])
def test_a_finer_decimal_paimon_would_round_beyond_the_type_is_refused_as_out_of_range(where, rounded):
    """``99999999.995`` on DECIMAL(10, 2) was taken (compared by value) while ``100000000`` was refused: Paimon casts
    a literal to its column's type half up to its places (``Decimal.fromBigDecimal``), and neither fits after it."""
    schema = {"d": parse_type("DECIMAL(10, 2)")}
    with pytest.raises(UsageError) as raised:
        parse_predicate(where, schema)
    assert str(raised.value).splitlines()[0].endswith(
        f"out of range once rounded as Paimon casts it to the column's type (half up to 2 places: {rounded}; it "
        "holds -99999999.99 to 99999999.99)")
    within = where.replace("995", "994").replace("999.999", "999.994")
    assert parse_predicate(within, schema) is not None


def documented_read_exits() -> dict[str, str]:
    """The exit-code table of docs/guide/reading.md: {code: when}."""
    text = (ROOT / "docs" / "guide" / "reading.md").read_text()
    rows = [line.split("|")[1:3] for line in text.splitlines() if line.startswith("| ") and line[2].isdigit()]
    return {code.strip(): when.strip() for code, when in rows}


def test_the_exit_code_of_a_failing_merge_is_documented(capsys):
    code, out, err = run(capsys, "read", ROOT / "tests" / "tables" / "primary-keys" / "aggregation_retract")
    assert (code, out) == (3, "") and "does not support retraction" in err
    assert "a merge that fails" in documented_read_exits()["3"]
    code, _, _ = run(capsys, "read", DATE_KEY, "--where", "k = DAT '2024-01-01'")
    assert code == 2 and "predicate that does not parse" in documented_read_exits()["2"]


AGGREGATION_RETRACT = ROOT / "tests" / "tables" / "primary-keys" / "aggregation_retract"
UNCHECKED = "cannot say whether the merge fails"


@pytest.mark.parametrize(("snapshot", "where", "noted"), [
    (2, None, True),  # a bucket read, its files holding a retraction the aggregate of m refuses
    (1, None, False),  # the snapshot's manifest counts no retraction in its files
    (2, "id = 99999", False),  # the key statistics drop every file: no merge
])
def test_explain_notes_an_unchecked_merge_only_where_one_could_fail(capsys, snapshot, where, noted):
    extra = ["--where", where] if where else []
    code, out, note = run(capsys, "read", AGGREGATION_RETRACT, "--snapshot", snapshot, "--explain", *extra)
    assert code == 0 and out
    assert (UNCHECKED in note) is noted
    if noted:
        assert "and the files read hold 1 retraction" in note
    assert run(capsys, "read", AGGREGATION_RETRACT, "--snapshot", snapshot, *extra, "--count")[0] == (
        3 if noted else 0)


def test_a_bucket_s_reason_says_each_fact_once(capsys):
    code, out, _ = run(capsys, "read", ROOT / "tests" / "tables" / "primary-keys" / "aggregation", "--where", "s > 2",
                       "--explain")
    reasons = [line[line.index("  (") + 3:-1] for line in out.splitlines() if "read its bucket's" in line]
    assert code == 0 and reasons and set(reasons) == {
        "merged values: the aggregation engine merges a row from several records' values, so no file is dropped "
        "by values; its bucket's 2 files merged by key, every key"}
    code, out, _ = run(capsys, "read", ROOT / "tests" / "tables" / "primary-keys" / "deduplicate", "--where",
                       "score > 2", "--explain")
    reasons = [line for line in out.splitlines() if "read its bucket's" in line]
    assert code == 0 and reasons
    assert all(line.endswith("merged by key, every key (the file has no index to select records by))")
               and ": the bucket is read whole" not in line and "index cannot say" not in line for line in reasons)


def test_progress_shows_the_plan_before_the_first_batch_is_read(capsys, monkeypatch):
    """``read --json --progress`` on files of one row group each said nothing until the first batch was printed:
    the planning and what it reads are said as they happen, before any row is read."""
    from fileindex.scan.table_scan import TableScan

    original, seen = TableScan._batches, []

    def batches(scan):
        seen.append(capsys.readouterr())  # (what was printed when the first file began to be read)
        yield from original(scan)

    monkeypatch.setattr(TableScan, "_batches", batches)
    table = ROOT / "tests" / "tables" / "primary-keys" / "deduplicate"
    code, out, err = run(capsys, "read", table, "--json", "--progress")
    assert code == 0 and out and seen
    (before,) = seen
    assert before.out == "" and before.err.splitlines()[0] == "fileindex read: planning the read of snapshot 6"
    assert before.err.splitlines()[1].startswith(
        "fileindex read: 8 of 8 data files to read (30 rows before the exact filter), planned in ")
    assert err.endswith(" rows read\n")
