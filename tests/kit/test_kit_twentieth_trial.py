"""What a new user's trial (trial20: an implementer writing an adapter from docs/kit.md) found in kit run: a run
that checked nothing read as PASS, and said nothing of why each check was unsupported; unsound and imprecise
failures were listed alike; ``--only bloom`` suggested a case, not the layout; a timeout read as a crash."""
import json

import pytest
from kit_fixtures import WRONG, small_corpus

from fileindex.cli import main
from fileindex.errors import UsageError
from fileindex.kit.runner import FAIL, IMPRECISE, UNSOUND, UNSUPPORTED, run


@pytest.fixture
def small(kit_folder, tmp_path):
    return small_corpus(kit_folder, tmp_path / "small", cases_each=2)


def test_a_run_that_checked_nothing_is_not_a_pass_and_says_why_each_check_is_unsupported(small, capsys):
    """An adapter declaring read layouts ["multi-column"] alone got "0 passed, 0 failed, 33 unsupported", PASS,
    exit 0, and every unsupported check's detail was ""."""
    out = small.parent / "r.json"
    assert main(["kit", "run", str(small), "--impl", f"{WRONG} --only multi-column", "--only", "bloom-filter",
                 "--json", str(out)]) == 2
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("NOTHING CHECKED: all ") and "needs layout bloom-filter, not declared" in last
    document = json.loads(out.read_text())
    assert document["checked_nothing"] and {r["status"] for r in document["results"]} == {UNSUPPORTED}
    details = {(r["check"], r["detail"]) for r in document["results"]}
    assert details == {("head", "needs layout bloom-filter, not declared (read.layouts)"),
                       ("read", "needs layout bloom-filter, not declared (read.layouts)"),
                       ("write", "needs layout bloom-filter, not declared (write.layouts)"),
                       ("refuse", "needs layout bloom-filter, not declared (write.layouts)")}


def test_a_multi_column_case_needs_the_layouts_it_holds(kit_folder, tmp_path):
    results = run(kit_folder, [f"{WRONG} --only multi-column"], tmp_path / "w", only=["multi-column"])
    heads = {o.detail for o in results.outcomes if o.check == "head"}
    assert heads and all(detail.startswith("needs layout ") and "multi-column" not in detail for detail in heads)
    assert results.checked_nothing and not results.ok


def test_unsound_failures_are_told_apart_from_imprecise_ones_and_listed_first(kit_folder, tmp_path, capsys):
    """--flip-answers answers SKIP where REMAIN is expected (it drops rows) and REMAIN where SKIP is (it costs
    time): both were "FAIL ...", in corpus order."""
    out = tmp_path / "r.json"
    assert main(["kit", "run", str(kit_folder), "--impl", f"{WRONG} --flip-answers", "--only", "bloom-filter",
                 "--workdir", str(tmp_path / "w"), "--json", str(out)]) == 1
    document = json.loads(out.read_text())
    failed = document["failures"]
    graded = {(r["detail"].rsplit(": ", 1)[1], r["fault"]) for r in failed if r["fault"]}
    assert graded == {("SKIP where REMAIN was expected", UNSOUND), ("REMAIN where SKIP was expected", IMPRECISE)}
    order = [{UNSOUND: 0, IMPRECISE: 1, "": 2}[r["fault"]] for r in failed]
    assert order == sorted(order) and len(failed) == sum(r["status"] == FAIL for r in document["results"])
    counts = document["faults"]["wrong"]
    assert counts == {UNSOUND: sum(r["fault"] == UNSOUND for r in failed),
                      IMPRECISE: sum(r["fault"] == IMPRECISE for r in failed)} and all(counts.values())
    text = capsys.readouterr().out
    assert f"({counts[UNSOUND]} unsound: may drop rows; {counts[IMPRECISE]} imprecise: keep more rows" in text
    first = next(line for line in text.splitlines() if line.startswith("FAIL"))
    assert first.startswith("FAIL (unsound) wrong ← ")


@pytest.mark.parametrize(("answer", "expected", "fault"), [
    ({"result": "ROWS", "ranges": [[0, 9]]}, {"result": "ROWS", "ranges": [[2, 4]]}, IMPRECISE),
    ({"result": "ROWS", "ranges": [[2, 3]]}, {"result": "ROWS", "ranges": [[2, 4]]}, UNSOUND),
    ({"result": "ROWS", "ranges": [[1, 1]]}, {"result": "SKIP"}, IMPRECISE),
    ({"result": "ROWS", "ranges": [[1, 1]]}, {"result": "REMAIN"}, UNSOUND),
    ({"result": "REMAIN"}, {"result": "ROWS", "ranges": [[2, 4]]}, IMPRECISE),
    ({"result": "SKIP"}, {"result": "ROWS", "ranges": [[2, 4]]}, UNSOUND)])
def test_a_wrong_answer_is_unsound_where_it_may_drop_a_row_the_expected_one_keeps(answer, expected, fault):
    from fileindex.kit.corpus import Imprecise, Unsound, answer_problem

    assert type(answer_problem(answer, expected)) is {UNSOUND: Unsound, IMPRECISE: Imprecise}[fault]


def test_only_suggests_the_layout_a_pattern_begins(small, tmp_path):
    with pytest.raises(UsageError, match="did you mean bloom-filter\\?"):
        run(small, [WRONG], tmp_path / "w", only=["bloom"])
