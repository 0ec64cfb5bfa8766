"""The verify report: per-file rows (``FileReport.as_row``) summed up, as text, JSON and one HTML page.

The HTML page is self-contained (inline style, no script, nothing fetched): every violation with
its file, column, index type, predicate, the index's answer and the witness rows.
"""
from __future__ import annotations

import html
import json
from collections import defaultdict

EXIT_CLEAN, EXIT_VIOLATIONS, EXIT_WRONG_SCHEMA, EXIT_UNREADABLE = 0, 1, 2, 3
EXIT_NO_INDEX = 2  # as a verify of one data file without its index: nothing was checked, nothing passed
NO_INDEX = "no index"
WRONG_SCHEMA = "wrong schema"  # a file whose index bodies were built for other column types than those given


def rows_match(count: int) -> str:
    """``1 row matches``, ``3 rows match``."""
    return f"{count} row matches" if count == 1 else f"{count} rows match"


def summarize(rows: list[dict]) -> dict:
    tallies: dict[tuple[str, str], dict] = defaultdict(lambda: {"checks": 0, "violations": 0, "absent_probes": 0,
                                                                  "false_positives": 0})
    violations, files, designed, estimated = [], [], defaultdict(list), False
    for row in rows:
        detail = json.loads(row["detail"]) if row.get("detail") else {"tallies": [], "violations": []}
        for tally in detail["tallies"]:
            into = tallies[(tally["index_type"], tally["kind"])]
            for key in into:
                into[key] += tally[key]
        for violation in detail["violations"]:
            violations.append({"file": row["file"], **violation})
        for column, fpp in detail.get("designed_fpp", {}).items():
            designed[column].append(fpp)
        estimated = estimated or bool(detail.get("fpp_estimated"))
        files.append({k: row[k] for k in ("file", "index", "rows", "status", "note", "checks", "violations",
                                          "false_positives")})
    by_status: defaultdict[str, int] = defaultdict(int)
    for file in files:
        by_status[file["status"]] += 1
    bloom = [v for (t, _), v in tallies.items() if _probabilistic(t)]
    absent = sum(v["absent_probes"] for v in bloom)
    return {
        "files": len(files), "by_status": dict(sorted(by_status.items())),
        "checks": sum(v["checks"] for v in tallies.values()), "violations": len(violations),
        "tallies": [{"index_type": t, "kind": k, **v} for (t, k), v in sorted(tallies.items())],
        "bloom": {"absent_probes": absent, "false_positives": sum(v["false_positives"] for v in bloom),
                  "observed_fpp": (sum(v["false_positives"] for v in bloom) / absent) if absent else None,
                  "designed_fpp": (sum(sum(f) for f in designed.values()) / sum(len(f) for f in designed.values()))
                  if designed else None, "designed_fpp_estimated": estimated},
        "files_detail": files, "violation_detail": violations,
    }


def exit_code(summary: dict) -> int:
    if summary["violations"]:
        return EXIT_VIOLATIONS
    if summary["by_status"].get("unreadable"):
        return EXIT_UNREADABLE
    if summary["by_status"].get(WRONG_SCHEMA):
        return EXIT_WRONG_SCHEMA
    return EXIT_NO_INDEX if nothing_indexed(summary) else EXIT_CLEAN


def nothing_indexed(summary: dict) -> bool:
    """Whether no file verified has an index (so that no check ran; a table without data files is clean)."""
    return bool(summary["files"]) and summary["by_status"].get(NO_INDEX, 0) == summary["files"]


def render_text(summary: dict) -> str:
    lines = [f"verified {summary['files']} files: " + ", ".join(f"{n} {s}" for s, n in summary["by_status"].items())
             + f"; {summary['checks']} checks, {summary['violations']} violations"]
    if nothing_indexed(summary):
        lines.append("  NOTHING CHECKED: no data file has an index (is --index-dir the folder the indexes were built "
                     "into? build them with fileindex spark build)")
    lines.append(f"  {'index type':<14} {'predicate':<12} {'checks':>8} {'violations':>10} {'false pos.':>10}")
    for tally in summary["tallies"]:
        lines.append(f"  {tally['index_type']:<14} {tally['kind']:<12} {tally['checks']:>8} {tally['violations']:>10} "
                     f"{tally['false_positives'] if _probabilistic(tally['index_type']) else '':>10}")
    bloom = summary["bloom"]
    if bloom["absent_probes"]:
        designed = ""
        if bloom["designed_fpp"] is not None:
            designed = f", designed fpp {bloom['designed_fpp']:.4g}"
            if bloom.get("designed_fpp_estimated"):
                designed += " estimated from the filters' bits and hash functions (the options are not known)"
        lines.append(f"  bloom filters: {bloom['false_positives']} false positives in {bloom['absent_probes']} "
                     f"probes of absent values (observed {bloom['observed_fpp']:.4g}{designed})")
    for file in summary["files_detail"]:
        if file["status"] in ("unreadable", "violations", WRONG_SCHEMA):
            what = file["note"] or f"{file['violations']} violations"
            lines.append(f"  {file['status'].upper()} {file['file']}: {what}")
        elif not file["checks"] and file["note"]:  # an index for other columns (another file's?) proves nothing
            lines.append(f"  NOTHING CHECKED {file['file']}: {file['note']}")
    for violation in summary["violation_detail"][:20]:
        if "checked_rows" in violation:  # exhaustive: a property of every row
            lines.append(f"  {violation['kind']}: {violation['file']} {violation['column']} "
                         f"{violation['index_type']}: {violation['predicate']}: "
                         f"{violation['wrong_rows']} of {violation['checked_rows']} rows differ")
        else:
            lines.append(f"  {violation['kind']}: {violation['file']} {violation['index_type']} "
                         f"{violation['predicate']} → {violation['answer']} "
                         f"({violation['true_rows']} true rows, {violation['wrong_rows']} wrong)")
        lines += [f"    {witness_text(w)}" for w in violation["witnesses"][:WITNESSES_IN_TEXT]]
    if len(summary["violation_detail"]) > 20:
        lines.append(f"  ... {len(summary['violation_detail']) - 20} more in the report")
    return "\n".join(lines)


WITNESSES_IN_TEXT = 3


def witness_text(witness: dict) -> str:
    """``row 58342: id=58342; index says: ...`` (the row's values, then what the index says, if known)."""
    values = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in witness.items()
                       if k not in ("row", "index says"))
    says = f"; index says: {witness['index says']}" if "index says" in witness else ""
    return f"row {witness['row']}: {values}{says}"


_STYLE = ("body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}"
          "td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}"
          "th{background:#f3f3f3}.unsound{color:#a00;font-weight:bold}.inexact{color:#a60}"
          "code{font-size:90%}")


def render_html(summary: dict, title: str = "fileindex verify") -> str:
    e = html.escape
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{e(title)}</title>"
             f"<style>{_STYLE}</style></head><body><h1>{e(title)}</h1>",
             f"<p>{summary['files']} files ({e(', '.join(f'{n} {s}' for s, n in summary['by_status'].items()))}), "
             f"{summary['checks']} checks, <b>{summary['violations']} violations</b>.</p>",
             "<h2>Checks per index type and predicate</h2><table><tr><th>index type</th><th>predicate</th>"
             "<th>checks</th><th>violations</th><th>bloom false positives</th></tr>"]
    for tally in summary["tallies"]:
        parts.append(f"<tr><td>{e(tally['index_type'])}</td><td>{e(tally['kind'])}</td><td>{tally['checks']}</td>"
                     f"<td>{tally['violations']}</td><td>{tally['false_positives']}</td></tr>")
    parts.append("</table><h2>Violations</h2>")
    if not summary["violation_detail"]:
        parts.append("<p>None.</p>")
    for violation in summary["violation_detail"]:
        witnesses = violation["witnesses"]
        columns = list(dict.fromkeys(k for w in witnesses for k in w))
        rows = "".join("<tr>" + "".join(f"<td>{e(json.dumps(w.get(c), ensure_ascii=False))}</td>" for c in columns)
                       + "</tr>" for w in witnesses)
        parts.append(
            f"<h3 class='{e(violation['kind'])}'>{e(violation['kind'])}: {e(violation['file'])}</h3>"
            f"<p>column <code>{e(violation['column'])}</code>, index <code>{e(violation['index_type'])}</code>, "
            + (f"checked: {e(violation['predicate'])}: <b>{violation['wrong_rows']} of {violation['checked_rows']} "
               "rows differ</b>.</p>" if "checked_rows" in violation else
               f"predicate <code>{e(violation['predicate'])}</code>: the index answered <b>{e(violation['answer'])}"
               f"</b>; {rows_match(violation['true_rows'])}, {violation['wrong_rows']} rows are "
               f"{'left out' if violation['kind'] == 'unsound' else 'kept without matching'}.</p>")
            + (f"<table><tr>{''.join(f'<th>{e(c)}</th>' for c in columns)}</tr>{rows}</table>" if witnesses else ""))
    parts.append("<h2>Files</h2><table><tr><th>file</th><th>index</th><th>rows</th><th>status</th><th>note</th></tr>")
    for file in summary["files_detail"]:
        parts.append(f"<tr><td>{e(file['file'])}</td><td>{e(file['index'])}</td><td>{file['rows']}</td>"
                     f"<td>{e(file['status'])}</td><td>{e(file['note'] or '')}</td></tr>")
    parts.append("</table></body></html>")
    return "".join(parts)


def _probabilistic(index_type: str) -> bool:
    """An index type that may answer REMAIN for a value it does not hold: its tallies count false positives."""
    from fileindex.indexes.registry import INDEX_TYPES

    index = INDEX_TYPES.get(index_type)
    return index is not None and index.filter_sizing is not None
