"""The results of ``kit run`` as a terminal table, a JSON document and a self-contained HTML page.

The JSON document lists every outcome (``results``: each check with its case and status), every failure
(``failures``) and the counts per case (``cases``): never a subset, whatever the terminal shows."""
from __future__ import annotations

import html
import json
from collections import Counter

from fileindex.kit.runner import FAIL, IMPRECISE, NOT_WRITTEN, PASS, UNSOUND, UNSUPPORTED, Outcome, Results, no_counts

FAULT_ORDER = {UNSOUND: 0, IMPRECISE: 1, "": 2}  # what to fix first: an answer that may drop rows


def failures(results: Results) -> list[Outcome]:
    """The failed checks, those that may drop rows (unsound) first, then the imprecise ones, then the others."""
    return sorted((o for o in results.outcomes if o.status == FAIL), key=lambda o: FAULT_ORDER[o.fault])


def faults(results: Results, name: str | None = None) -> dict[str, int]:
    """How many failed answers of ``name`` (all with None) may drop rows, and how many cost time only."""
    counts = Counter(o.fault for o in results.outcomes if o.status == FAIL and name in (None, o.consumer))
    return {UNSOUND: counts[UNSOUND], IMPRECISE: counts[IMPRECISE]}


def to_json(results: Results) -> dict:
    rows = [{"consumer": c, "producer": p, "layout": lay, "check": check, **counts}
            for (c, p, lay, check), counts in results.counts().items()]
    every = [dict(o.__dict__) for o in results.outcomes]
    return {"kit_version": results.kit_version, "implementations": results.implementations,
            "complete": not results.stopped, "stopped": results.stopped, "checked_nothing": results.checked_nothing,
            "hints": results.hints, "totals": {name: results.totals(name) for name in results.implementations},
            "faults": {name: faults(results, name) for name in results.implementations},
            "matrix": matrix(results), "rows": rows, "cases": per_case(results),
            "failures": [dict(o.__dict__) for o in failures(results)], "results": every}


def per_case(results: Results) -> dict[str, dict[str, int]]:
    """case → counts of its outcomes (every consumer, producer and check)."""
    table: dict[str, dict[str, int]] = {}
    for o in results.outcomes:
        table.setdefault(o.case, no_counts())[o.status] += 1
    return dict(sorted(table.items()))


def matrix(results: Results) -> dict[str, dict[str, dict[str, int]]]:
    """consumer ← producer → layout → counts: the version-compatibility matrix."""
    table: dict = {}
    for (consumer, producer, layout, _), counts in results.counts().items():
        cell = table.setdefault(f"{consumer} ← {producer}", {}).setdefault(layout, no_counts())
        for key, value in counts.items():
            cell[key] += value
    return table


def _cell(counts: dict[str, int]) -> str:
    parts = []
    if counts[PASS]:
        parts.append(f"{counts[PASS]} pass")
    if counts[FAIL]:
        parts.append(f"{counts[FAIL]} FAIL")
    if counts[UNSUPPORTED]:
        parts.append(f"{counts[UNSUPPORTED]} unsup")
    if counts[NOT_WRITTEN]:
        parts.append(f"{counts[NOT_WRITTEN]} not written")
    return ", ".join(parts) or "-"


def _totals_line(name: str, t: dict[str, int], fault: dict[str, int] | None = None) -> str:
    unwritten = f", {t[NOT_WRITTEN]} reads of files it did not write" if t[NOT_WRITTEN] else ""
    graded = (f" ({fault[UNSOUND]} unsound: may drop rows; {fault[IMPRECISE]} imprecise: keep more rows than "
              "expected)") if fault and any(fault.values()) else ""
    return f"{name}: {t[PASS]} passed, {t[FAIL]} failed{graded}, {t[UNSUPPORTED]} unsupported{unwritten}"


def _failure_line(o: Outcome) -> str:
    return f"FAIL{f' ({o.fault})' if o.fault else ''} {o.consumer} ← {o.producer} {o.layout} {o.check}: {o.detail}"


def _nothing_checked(results: Results) -> str:
    first = results.outcomes[0] if results.outcomes else None
    example = f" (the first, {first.layout} {first.check}: {first.detail})" if first else ""
    return (f"NOTHING CHECKED: all {len(results.outcomes)} checks were unsupported{example}; declare what the "
            "adapter reads and writes in its capabilities (docs/kit.md)")


def terminal(results: Results, limit: int = 20) -> str:
    lines = [f"conformance kit {results.kit_version}"]
    for name, caps in results.implementations.items():
        lines.append(f"  {name} {caps.get('version', '?')}: {caps.get('command')}")
    lines.append("")
    header = (f"{'consumer':<20} {'producer':<20} {'layout':<16} {'check':<10} {'pass':>6} {'fail':>6} {'unsup':>6} "
              f"{'unwritten':>9}")
    lines += [header, "-" * len(header)]
    for (consumer, producer, layout, check), counts in results.counts().items():
        lines.append(f"{consumer:<20} {producer:<20} {layout:<16} {check:<10} "
                     f"{counts[PASS]:>6} {counts[FAIL]:>6} {counts[UNSUPPORTED]:>6} {counts[NOT_WRITTEN]:>9}")
    lines.append("")
    table = matrix(results)
    layouts = sorted({layout for row in table.values() for layout in row})
    lines.append("matrix (consumer ← producer × layout)")
    for row, cells in table.items():
        lines.append(f"  {row}")
        lines += [f"    {layout:<16} {_cell(cells[layout])}" for layout in layouts if layout in cells]
    lines.append("")
    for name in results.implementations:
        lines.append(_totals_line(name, results.totals(name), faults(results, name)))
    failed = failures(results)
    lines += [_failure_line(o) for o in failed[:limit]]
    if len(failed) > limit:
        lines.append(f"... and {len(failed) - limit} more failures (--json lists them)")
    lines += [f"hint: {hint}" for hint in results.hints]
    if results.stopped:
        lines.append(f"INCOMPLETE: {results.stopped}; {len(results.outcomes)} checks ran")
    unwritten = results.totals()[NOT_WRITTEN]
    if results.checked_nothing:
        lines.append(_nothing_checked(results))
    elif results.stopped and not failed:
        lines.append("NOT PASSED: the run ended early" + (f"; {unwritten} not written" if unwritten else ""))
    else:
        lines.append("PASS" if results.ok else f"FAIL: {len(failed)} check(s) failed"
                     + (f", {unwritten} not written" if unwritten else "")
                     + (" (incomplete)" if results.stopped else ""))
    return "\n".join(lines)


def markdown(results: Results) -> str:
    """The matrix as Markdown: a table per consumer (a row per layout, a column per producer, so that it fits
    a page), and each implementation's totals: what docs/kit-matrix.md shows."""
    table = matrix(results)
    consumers: dict[str, dict[str, dict]] = {}
    for row, cells in table.items():
        consumer, producer = row.split(" ← ", 1)
        consumers.setdefault(consumer, {})[producer] = cells
    lines = []
    for consumer, producers in consumers.items():
        layouts = sorted({layout for cells in producers.values() for layout in cells})
        lines += [f"**{consumer}** reading what each producer wrote:", "",
                  "| layout | " + " | ".join(f"← {producer}" for producer in producers) + " |",
                  "|---" * (len(producers) + 1) + "|"]
        lines += [f"| {layout} | " + " | ".join(_cell(cells[layout]) if layout in cells else "-"
                                                 for cells in producers.values()) + " |" for layout in layouts]
        lines.append("")
    lines += [f"* {name} {caps.get('version', '?')}: {_totals_line(name, results.totals(name)).split(': ', 1)[1]}"
              for name, caps in results.implementations.items()]
    return "\n".join(lines)


def to_html(results: Results, limit: int = 200) -> str:
    table = matrix(results)
    layouts = sorted({layout for row in table.values() for layout in row})
    esc = html.escape
    head = "".join(f"<th>{esc(layout)}</th>" for layout in layouts)
    body = []
    for row, cells in table.items():
        tds = []
        for layout in layouts:
            counts = cells.get(layout)
            if counts is None:
                tds.append('<td class="none">-</td>')
                continue
            kind = "fail" if counts[FAIL] or counts[NOT_WRITTEN] else "pass" if counts[PASS] else "unsupported"
            tds.append(f'<td class="{kind}">{esc(_cell(counts))}</td>')
        body.append(f"<tr><th>{esc(row)}</th>{''.join(tds)}</tr>")
    detail = "".join(
        f"<tr><td>{esc(c)}</td><td>{esc(p)}</td><td>{esc(lay)}</td><td>{esc(check)}</td>"
        f"<td>{n[PASS]}</td><td>{n[FAIL]}</td><td>{n[UNSUPPORTED]}</td><td>{n[NOT_WRITTEN]}</td></tr>"
        for (c, p, lay, check), n in results.counts().items())
    failed = failures(results)
    failure_items = "".join(f"<li>{esc(_failure_line(o).removeprefix('FAIL '))}</li>" for o in failed[:limit])
    if len(failed) > limit:
        failure_items += f"<li>... and {len(failed) - limit} more (the JSON below lists every one)</li>"
    stopped = f"<p><b>Incomplete:</b> {esc(results.stopped)}</p>" if results.stopped else ""
    implementations = "".join(f"<li><b>{esc(name)}</b> {esc(str(caps.get('version', '?')))}: "
                              f"<code>{esc(str(caps.get('command')))}</code></li>"
                              for name, caps in results.implementations.items())
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Paimon file index conformance kit {esc(results.kit_version)}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; }} table {{ border-collapse: collapse; margin-bottom: 2em; }}
td, th {{ border: 1px solid #999; padding: 0.3em 0.6em; text-align: left; }}
.pass {{ background: #d7f5d7; }} .fail {{ background: #f7c6c6; }} .unsupported {{ background: #eee; color: #555; }}
</style></head><body>
<h1>Conformance kit {esc(results.kit_version)}</h1>
<ul>{implementations}</ul>{stopped}
<h2>Matrix: consumer ← producer × layout</h2>
<table><tr><th></th>{head}</tr>{''.join(body)}</table>
<h2>Checks</h2>
<table><tr><th>consumer</th><th>producer</th><th>layout</th><th>check</th><th>pass</th><th>fail</th>
<th>unsupported</th><th>not written</th></tr>{detail}</table>
<h2>Failures</h2><ul>{failure_items or '<li>none</li>'}</ul>
<script type="application/json" id="results">{esc(json.dumps(to_json(results)))}</script>
</body></html>
"""
