"""The README's and the guides' examples run as written, from a folder laid out like a fresh checkout after the
README's first command, so they cannot rot: every ```bash and ```python block of README.md and docs/guide/*.md
(untagged and ```text blocks are synopses, not commands), on data the examples create or the repository
ships. A README section's blocks run in a folder of their own; a guide's shell blocks run first, in order,
then its Python blocks as one script (a reader's session). Blocks that start Spark are marked spark and slow.
The README stays a few screens long and starts with its two commands; install hints name what a user of
this checkout runs."""
import os
import re
import subprocess
import sys
import tomllib

import pytest
from conftest import ROOT
from packaging.requirements import Requirement

from fileindex.indexes.advice import LARGER_THAN_DATA

README = (ROOT / "README.md").read_text()
GUIDES = sorted((ROOT / "docs" / "guide").glob("*.md"))
CI_COMMANDS = ("setup.sh", "pytest", "ruff")  # the README's own two commands and CI's: run by CI itself
SPARK = re.compile(r"fileindex spark |fileindex\.spark|pyspark")


def fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.S | re.M)


def commands(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


def readme_sections() -> dict[str, str]:
    return {section.splitlines()[0]: section for section in re.split(r"^## ", README, flags=re.M)[1:]}


def bash_blocks() -> dict[str, list[str]]:
    """The commands of the README's bash blocks the test runs, by the heading above them."""
    blocks: dict[str, list[str]] = {}
    for heading, section in readme_sections().items():
        for block in fenced(section, "bash"):
            lines = commands(block)
            if not any(word in line for line in lines for word in CI_COMMANDS):
                blocks.setdefault(heading, []).extend(lines)
    return blocks


def python_blocks() -> dict[str, str]:
    return {heading: "".join(fenced(section, "python")) for heading, section in readme_sections().items()
            if fenced(section, "python")}


def marked(name: str, code: str):
    """A parameter, marked spark and slow when the code starts Spark."""
    return pytest.param(name, marks=[pytest.mark.spark, pytest.mark.slow] if SPARK.search(code) else [], id=name)


@pytest.fixture
def checkout(tmp_path):
    """A folder with the repository's package, samples and tables, and a .venv/bin running this checkout's
    package (the README's first command makes the real one); the examples run there leave it, and the
    repository's files behind its links, as they found them (what they make, they remove)."""
    for name in ("fileindex", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name, command in (("python", f'"{sys.executable}"'), ("fileindex", f'"{sys.executable}" -m fileindex')):
        (bin_dir / name).write_text(f'#!/bin/sh\nexec {command} "$@"\n')
        (bin_dir / name).chmod(0o755)
    before = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")), repository_status()
    yield tmp_path
    after = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")), repository_status()
    assert after == before, "the examples left files behind (or changed the repository's): remove what they make"


EXAMPLE_DATA = ("fileindex/samples/", "tests/tables/", "tests/vectors/")  # what the examples read of the repository


def repository_status() -> list[str]:
    """``git status`` of what the checkout folder links to: files not tracked (ignored ones, as caches, aside), and
    changes to the data the examples read (not the code and tests, which whoever runs the tests may be editing)."""
    done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", "fileindex", "tests"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    return [line for line in done.stdout.splitlines()
            if line.startswith("??") or line[3:].startswith(EXAMPLE_DATA)] if done.returncode == 0 else []


ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def run_commands(folder, lines: list[str]) -> None:
    for command in lines:
        result = subprocess.run(["bash", "-c", command], cwd=folder, env=ENV, capture_output=True, text=True,
                                timeout=900)
        assert result.returncode == 0, (command, result.stdout[-2000:], result.stderr[-2000:])
        assert result.stdout.strip() or "fileindex" not in command, command  # a command of ours says what it did
        assert LARGER_THAN_DATA not in result.stderr, (command, result.stderr[-2000:])  # an example sized right


def run_python(folder, code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], cwd=folder, env=ENV, capture_output=True, text=True,
                            timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_the_readme_is_a_few_screens_and_starts_with_the_two_commands():
    assert len(README.splitlines()) <= 200
    first = re.findall(r"```bash\n(.*?)\n```", README, re.S)[:2]
    assert first == ["bash tools/setup.sh && .venv/bin/fileindex demo",
                     "bash tools/setup.sh --test && bash tools/test_all.sh"]
    assert "about 2 minutes the first time" in README
    assert "a bare `pytest` runs the fast tier" in README


def test_ci_runs_the_readmes_test_command():
    """.ci/run runs the README's second command: its setup, then tools/test_all.sh (every tier)."""
    ci = (ROOT / ".ci" / "run").read_text()
    assert "bash tools/setup.sh --test\n" in ci and "\nbash tools/test_all.sh || main=$?" in ci


def test_the_two_halves_of_the_test_command_select_every_tier():
    """tools/test_all.sh runs one marker expression and its negation, each with --all-tiers: together every test
    ``pytest --all-tiers`` collects, none twice."""
    script = (ROOT / "tools" / "test_all.sh").read_text()
    tiers = re.search(r'^tiers="(.+)"$', script, re.M).group(1)
    assert '--all-tiers -q -m "$tiers"' in script and '--all-tiers -m "not ($tiers)"' in script
    first, second = collected("--all-tiers", "-m", tiers), collected("--all-tiers", "-m", f"not ({tiers})")
    assert first and second and not first & second
    assert first | second == collected("--all-tiers")


def collected(*options: str) -> set[str]:
    """The tests of this file a ``pytest`` run without test paths collects (testpaths set to this file)."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly",
                           "-o", "testpaths=tests/test_readme.py", *options], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return {line for line in done.stdout.splitlines() if line.startswith("tests/")}


def test_a_bare_pytest_runs_the_fast_tier_and_the_readmes_command_every_tier():
    """As pyiceberg and delta-rs: ``pytest`` alone leaves the Spark, Java, browser, node, peer and slow tests
    out; ``--all-tiers`` (the README's command, .ci/run) and a marker expression take them."""
    fast, every = collected(), collected("--all-tiers")
    tiered = {"tests/test_readme.py::test_the_readme_conformance_kit_example_runs",
              "tests/test_readme.py::test_a_guides_examples_run[spark.md]"}
    assert tiered <= every and not tiered & fast
    assert fast and fast < every and "tests/test_readme.py::test_the_readme_is_a_few_screens_and_starts_with_the" \
                                     "_two_commands" in fast
    assert collected("-m", "spark or not spark") == every


def test_the_readme_runs_an_example_of_each_use():
    assert set(bash_blocks()) >= {"Inspect and explain a file", "Query a file", "Build and verify a data file's index",
                                  "Check a Paimon table's indexes", "Read a table into pandas, DuckDB or Polars",
                                  "Add indexes to a table", "Index-pruned scans on Spark", "Run the conformance kit"}
    assert set(python_blocks()) == {"Read a table into pandas, DuckDB or Polars", "Index-pruned scans on Spark",
                                    "From Python"}


@pytest.mark.parametrize("heading", [marked(h, "\n".join(c)) for h, c in bash_blocks().items()
                                     if h != "Run the conformance kit"])
def test_a_readme_example_runs(checkout, heading):
    run_commands(checkout, bash_blocks()[heading])


@pytest.mark.slow
def test_the_readme_conformance_kit_example_runs(checkout):
    run_commands(checkout, bash_blocks()["Run the conformance kit"])


PRINTED = {"From Python": r"ROWS|Rows", "Read a table into pandas, DuckDB or Polars": r"Lucy[\s\S]*file index",
           "Index-pruned scans on Spark": r"Alice"}


@pytest.mark.parametrize("heading", [marked(h, code) for h, code in python_blocks().items()])
def test_the_readme_python_examples_run(checkout, heading):
    assert re.search(PRINTED[heading], run_python(checkout, python_blocks()[heading]))


def guide_parameters():
    for path in GUIDES:
        text = path.read_text()
        code = "".join(fenced(text, "bash") + fenced(text, "python"))
        if code:
            yield marked(path.name, code)


@pytest.mark.parametrize("page", list(guide_parameters()))
def test_a_guides_examples_run(checkout, page):
    text = (ROOT / "docs" / "guide" / page).read_text()
    run_commands(checkout, [line for block in fenced(text, "bash") for line in commands(block)])
    code = "".join(fenced(text, "python"))
    if code:
        assert re.search(GUIDE_PRINTED.get(page, ""), run_python(checkout, code))


def python_guides():
    for path in GUIDES:
        code = "\n".join(fenced(path.read_text(), "python"))
        if code:
            yield marked(path.name, code)


@pytest.mark.parametrize("page", list(python_guides()))
def test_a_guides_python_examples_paste_into_the_interpreter(checkout, page):
    """A reader pastes the blocks into an interactive Python, which ends a loop only at a blank line (a statement
    right after one was a SyntaxError) and prints each expression's value (one printed 1.2 MB of bytes)."""
    code = "\n".join(fenced((ROOT / "docs" / "guide" / page).read_text(), "python")) + "\n"
    result = subprocess.run([sys.executable, "-i", "-q"], input=code, cwd=checkout, env=ENV, capture_output=True,
                            text=True, timeout=900)
    assert "Traceback" not in result.stderr and "Error:" not in result.stderr, result.stderr[-3000:]
    assert len(result.stdout) < 20_000, result.stdout[:1000]


@pytest.mark.parametrize("path", [ROOT / "README.md", *GUIDES], ids=lambda path: path.name)
def test_a_python_example_imports_the_modules_it_uses(path):
    """A block pasted on its own needs its imports: one used pa (pyarrow) that only an earlier block imported."""
    import ast

    blocks = [ast.parse(block) for block in fenced(path.read_text(), "python")]
    modules = {name for tree in blocks for name in imported(tree)}
    for tree in blocks:
        used = {node.value.id for node in ast.walk(tree)
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)}
        assert not (used & modules) - imported(tree), ast.unparse(tree)[:300]


def imported(tree) -> set[str]:
    import ast

    return {(alias.asname or alias.name).split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
            for alias in node.names}


# what a guide's examples print, where a comment says what they show
GUIDE_PRINTED = {"reading.md": r"PYTHON\[paimon append_with_bitmap\] SCAN [\s\S]*\nINFO: snapshot 1 where f1 = 20: "
                               r".*file_index 1->1 files, 8->3 rows"}


def test_every_example_names_only_what_the_repository_has_or_makes():
    """No example opens the warehouse of another machine (``/warehouse/db.db/orders``, ``data-1.parquet``): each
    path an example reads is shipped or made by an example before it (the runs above prove they exist)."""
    for path in [ROOT / "README.md", *GUIDES]:
        text = path.read_text()
        code = "".join(fenced(text, "bash") + fenced(text, "python"))
        assert "warehouse/" not in code and "db.db/orders" not in code, path


def test_install_hints_name_what_a_user_of_this_checkout_runs():
    """The package is not on the registry: no page says ``pip install 'paimon-fileindex[...]'``, and a missing
    engine's hint names the registry's packages with the ranges pyproject.toml declares."""
    from fileindex.extras import install_hint

    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        assert not re.search(r"pip install ['\"]?paimon-fileindex", path.read_text()), path
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra in ("duckdb", "polars", "spark"):
        hint = install_hint(extra)
        assert hint.startswith("pip install '"), hint
        hinted = {str(Requirement(r)) for r in re.findall(r"'([^']+)'", hint)}
        assert hinted == {str(Requirement(r)) for r in extras[extra]}, hint


def test_the_first_command_installs_the_extras_the_examples_use():
    """The README's reading example reads into DuckDB and Polars, its Spark ones run Spark: setup.sh without
    --test installs those extras."""
    setup = (ROOT / "tools" / "setup.sh").read_text()
    default = setup[setup.index("\nelse\n"):]
    installed = set(re.search(r'-e "\.\[([a-z,]+)\]"', default).group(1).split(","))
    used = {"duckdb" if "to_duckdb" in README else "", "polars" if "to_polars" in README else "",
            "spark" if SPARK.search(README) else ""} - {""}
    assert used == {"duckdb", "polars", "spark"} and used <= installed


def test_every_link_of_the_readme_leads_somewhere():
    targets = [t for t in re.findall(r"\]\(([^)#]+)", README) if not t.startswith("https://")]
    assert targets and all((ROOT / t).is_file() for t in targets), [t for t in targets if not (ROOT / t).is_file()]


def test_the_readme_says_a_kit_export_needs_a_source_checkout():
    """From a pip install ``fileindex kit export`` refuses ("an export is made from a source checkout"), which the
    README's kit section did not say."""
    assert "source checkout" in readme_sections()["Run the conformance kit"]
