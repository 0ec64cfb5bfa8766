"""The format reference: generated pages are fresh (see test_generated_fresh), the examples of explain.md are what
the command prints, the site builds strictly and offline, and every file the errata page cites exists. How the
pages look in a browser: test_docs_browser."""
import json
import re
import shlex
import subprocess
import sys

from conftest import JAVA_VECTORS, ROOT

DOCS = ROOT / "docs"


def test_every_spec_has_a_generated_page_with_its_diagram_and_a_worked_example():
    for spec in sorted((ROOT / "specs").glob("*.ksy")):
        page = (DOCS / "format" / f"{spec.stem}.md").read_text()
        assert f"../diagrams/{spec.stem}.svg" in page and (DOCS / "diagrams" / f"{spec.stem}.svg").is_file()
        assert "## Worked example" in page and "| offset | bytes | field | value |" in page
        assert f'<a href="../diagrams/{spec.stem}.svg">' in page  # the diagram alone, full size
        assert "``" not in page  # an empty code span shows as two backticks


def test_every_code_fence_opens_or_closes_on_a_line_of_its_own():
    """A fence with text after it (```` ``` text ````) closes nothing, and the rest of the page renders as code."""
    pages = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
    broken = [f"{page.relative_to(ROOT)}:{number}" for page in pages
              for number, line in enumerate(page.read_text().splitlines(), 1)
              if re.match(r"\s*```", line) and not re.fullmatch(r"\s*```+[\w+-]*", line)]
    assert broken == []


def test_every_module_a_page_names_exists():
    """A page that names a module by its path (`` `scan/truth.py` ``) names one that is there: under the repository,
    the package, tools/ or tests/ (a module moved, its pages follow)."""
    pages = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
    named = {match for page in pages for match in re.findall(r"`([\w.-]+(?:/[\w.-]+)+\.py)`", page.read_text())}
    missing = sorted(path for path in named
                     if not any((base / path).is_file() for base in (ROOT, ROOT / "fileindex", ROOT / "tools",
                                                                       ROOT / "tests")))
    assert named and missing == []


def test_the_explain_examples_are_what_the_command_prints():
    examples = sorted((DOCS / "examples").glob("*.txt"))
    page = (DOCS / "explain.md").read_text()
    assert examples and all(f'--8<-- "{example.name}"' in page for example in examples)
    for example in examples:
        command, _, shown = example.read_text().partition("\n")
        program, *args = shlex.split(command.removeprefix("$ "))
        assert program == "fileindex"
        result = subprocess.run([sys.executable, "-m", "fileindex", *args], cwd=ROOT, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        assert result.stdout == shown, f"docs/examples/{example.name} is stale: run python tools/regenerate.py"


def test_the_site_builds_strictly_and_fetches_nothing(tmp_path):
    site = tmp_path / "site"
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    pages = list(site.rglob("*.html"))
    assert len(pages) >= 10
    for page in pages:
        text = page.read_text()
        remote = re.findall(r'<(?:script|link|img)[^>]+(?:src|href)="(https?://[^"]+)"', text)
        assert not remote, (page, remote)
    assert "num_slices" in (site / "format" / "range_bitmap.html").read_text()
    explain = (site / "explain.html").read_text()
    assert "--8&lt;--" not in explain and re.search(r"\b8  00 00 00 01 +file_index_format/version = 1", explain)


def test_the_errata_cite_files_and_records_that_exist():
    text = (DOCS / "errata.md").read_text()
    records = {r["name"] for r in json.loads((JAVA_VECTORS / "vectors.json").read_text())["vectors"]}
    files = set(re.findall(r"`([\w]+__[\w]+\.index)`", text))
    names = set(re.findall(r"`([\w]+__[\w]+)`", text)) - {f.removesuffix(".index") for f in files}
    assert files and all((JAVA_VECTORS / f).is_file() for f in files), files
    assert names <= records, names - records


def test_no_page_skips_a_heading_level():
    """trial18: the kit's guide went from its H1 straight to "### Conformance kit" (an H3 under no H2)."""
    skips = []
    for page in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]:
        level, fenced = 0, False
        for number, line in enumerate(page.read_text().splitlines(), 1):
            fenced ^= bool(re.match(r"\s*```", line))
            heading = None if fenced else re.match(r"(#+) ", line)
            if heading:
                if len(heading[1]) > level + 1:
                    skips.append(f"{page.relative_to(ROOT)}:{number}: {line}")
                level = len(heading[1])
    assert skips == []
