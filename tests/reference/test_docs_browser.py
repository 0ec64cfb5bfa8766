"""The built site in a real browser (headless Chromium): at desktop and phone widths no page is wider than the
window, a diagram fits its panel on a desktop and shows at a legible size when its panel is focused, prose in
tables is not squeezed to a word per line, no table cell splits an identifier over two lines, and the worked
examples show each field's bytes on one line with the value column on screen."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, unavailable
from headless_chromium import Chromium, LoopbackServer, executable

pytestmark = pytest.mark.browser

WIDTHS = (1280, 1024, 390)
# Graphviz draws the diagrams' labels at 14 pt (18.7 px at natural size): at 0.7 of it they are 13 px.
MIN_IMAGE_SCALE = 0.7
# a table cell holding a sentence is at least this wide, a few words a line (the "meaning" column was 4 em)
MIN_PROSE_CELL_EM = 8
PROSE_CHARS = 40

CHECKS = (Path(__file__).parent / "layout_checks.js").read_text()
LIMITS = json.dumps({"imageScale": MIN_IMAGE_SCALE, "proseChars": PROSE_CHARS, "proseCellEm": MIN_PROSE_CELL_EM})
DESKTOP = 1024  # a window at least this wide is a desktop one (layout_checks.js: wide)


@pytest.fixture(scope="module")
def browser():
    if executable() is None:
        unavailable("Chromium", "bash tools/setup.sh --test installs Debian's chromium")
    with Chromium() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    site = tmp_path_factory.mktemp("site")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    with LoopbackServer(site) as server:
        yield site, server.url


def problems_of(browser, url, shots, name):
    """The layout checks' problems on the page at ``url``; with ``shots``, a full-page screenshot there of a page
    that has any (for whoever reads a failure)."""
    browser.open(url)
    wide = browser.evaluate("window.innerWidth") >= DESKTOP
    problems = browser.evaluate(f"({CHECKS})({LIMITS}, {json.dumps(wide)})")
    if problems and shots is not None:
        shot = shots / f"{name}.png"
        browser.screenshot(shot, full_page=True)
        problems.append(f"screenshot: {shot}")
    return problems


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_fits_the_window_with_legible_diagrams_and_tables(browser, site, width, tmp_path):
    folder, url = site
    pages = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.html"))
    assert "format/bitmap.html" in pages and "explain.html" in pages
    browser.resize(width, 900)
    found = {page: problems_of(browser, url + page, tmp_path, page.replace("/", "_")) for page in pages}
    assert not {page: found for page, found in found.items() if found}


def test_each_diagram_opens_full_size_from_its_page(browser, site):
    folder, url = site
    browser.resize(1280, 900)
    diagrams = sorted(p.name for p in (folder / "diagrams").glob("*.svg"))
    assert len(diagrams) == len(list((ROOT / "specs").glob("*.ksy")))
    for name in diagrams:
        browser.open(f"{url}format/{name.removesuffix('.svg')}.html")
        links = browser.evaluate(f"[...document.querySelectorAll('a[href$=\"/{name}\"]')].map(a => a.href)")
        assert links == [f"{url}diagrams/{name}"], name
        browser.open(links[0])
        # the SVG alone: at its natural size (what the browser's zoom starts from), not fitted to the window
        shown = browser.evaluate("document.documentElement.getBoundingClientRect().width")
        assert shown >= 0.99 * browser.evaluate("document.documentElement.width.baseVal.value"), name


def test_the_checks_catch_the_layout_the_docs_had(browser, tmp_path):
    """The measurements fail on what the format pages looked like before: a field table wider than the column
    with its meaning a word per line, bytes wrapping, empty code as backticks, a diagram fitted to the page with no
    full-size view, a diagram wider than its panel, and an identifier broken mid-word."""
    bad = tmp_path / "page" / "bad.html"
    (bad.parent / "diagrams").mkdir(parents=True)
    shutil.copyfile(ROOT / "docs" / "diagrams" / "bitmap.svg", bad.parent / "diagrams" / "bitmap.svg")
    meaning = "The fixed fields before the records, which a reader reads first; the records are decoded in bulk."
    bad.write_text(f"""<!doctype html><html><body style="margin:0"><div style="width:700px">
      <img src="diagrams/bitmap.svg" style="max-width:100%">
      <div class="diagram-pan" style="overflow:auto"><img src="diagrams/bitmap.svg"></div>
      <table style="width:200px"><tr><td><code style="word-break:break-all">{'bad/unknown_index_type_lumina ' * 2}
        </code></td></tr></table>
      <table><tr><td><code>{'file_index_format/head/columns[0]/indexes[0]/' * 4}</code></td>
        <td>{meaning}</td><td>``</td></tr></table>
      <div style="overflow-x:auto;width:300px"><table><tr><th>offset</th><th>bytes</th><th>field</th>
        <th>value</th></tr><tr><td>0</td><td style="width:40px"><code>00 05 4e 4e d0 1a 35 ae</code></td>
        <td><code>{'x' * 90}</code></td><td>value</td></tr></table></div></div></body></html>""")
    browser.resize(1280, 900)
    with LoopbackServer(bad.parent) as server:
        # (no screenshot: the problems are expected, and a full-page capture of a 4717 px diagram once hung past
        # the DevTools timeout on a loaded machine)
        problems = "\n".join(problems_of(browser, server.url + "bad.html", None, "bad"))
    for expected in ("page is", "diagrams/bitmap.svg shown at 0.1", "prose squeezed", "literal backticks",
                     "value column ends", "bytes wrap", "diagrams/bitmap.svg is 4717 px wide in a",
                     "a cell splits an identifier"):
        assert expected in problems, problems
