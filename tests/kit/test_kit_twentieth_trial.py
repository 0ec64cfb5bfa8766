"""What a new user's trial (trial20: an implementer writing an adapter from docs/kit.md) found in kit run: a run
that checked nothing read as PASS, and said nothing of why each check was unsupported; unsound and imprecise
failures were listed alike; ``--only bloom`` suggested a case, not the layout; a timeout read as a crash."""
import ast
import json
import re
import subprocess
import sys
from pathlib import Path

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


DOCS_NAMING_ADAPTERS = ("docs/kit.md", "docs/guide/conformance-kit.md", "README.md")


def adapters_the_docs_run() -> set[str]:
    from conftest import ROOT

    text = " ".join(" ".join((ROOT / page).read_text(encoding="utf-8").split()) for page in DOCS_NAMING_ADAPTERS)
    return set(re.findall(r"`?\bpython (tools/kit_\w+_adapter\.py)", text))


def imports_beyond_the_standard_library(script) -> set[str]:
    tree = ast.parse(script.read_text(encoding="utf-8"))
    names = {alias.name.split(".")[0] for node in tree.body if isinstance(node, ast.Import) for alias in node.names}
    names |= {node.module.split(".")[0] for node in tree.body if isinstance(node, ast.ImportFrom) and node.module}
    return names - set(sys.stdlib_module_names) - {"__future__"}


@pytest.mark.parametrize("script", sorted(adapters_the_docs_run()))
def test_an_adapter_command_of_the_docs_runs_as_written_without_the_venv_activated(script, tmp_path):
    """``--impl "python tools/kit_pypaimon_rust_adapter.py"`` failed as written: without the venv activated
    ``python`` is another interpreter (ModuleNotFoundError: pyroaring)."""
    from conftest import ROOT

    path = ROOT / script
    if not imports_beyond_the_standard_library(path):
        return  # (any Python 3 runs it: the Java adapter execs java)
    other = Path(sys.base_prefix) / "bin" / "python3"
    if subprocess.run([other, "-c", "import pyroaring"], capture_output=True).returncode == 0:
        pytest.skip(f"{other} has this package's dependencies: not another interpreter")
    done = subprocess.run([other, path, "capabilities"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["implementation"]


def test_the_docs_name_the_adapters_that_ship():
    assert adapters_the_docs_run() == {"tools/kit_java_adapter.py", "tools/kit_pypaimon_rust_adapter.py"}


def test_files_an_adapter_leaves_in_its_output_folder_are_named(small, tmp_path):
    """35 files written beside ``out`` went unnoticed (PASS)."""
    results = run(small, [f"{WRONG} --litter"], tmp_path / "w", only=["bloom-filter"])
    strays = [hint for hint in results.hints if "in its output folder besides" in hint]
    assert len(strays) == 1 and "wrong wrote 1 file(s)" in strays[0], results.hints
    assert str(tmp_path / "w" / "wrong" / "written-00000.index.bak") in strays[0]
    assert not [hint for hint in run(small, [WRONG], tmp_path / "w0", only=["bloom-filter"]).hints]
