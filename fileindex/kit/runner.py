"""``fileindex kit run``: every implementation through the corpus, and every writer's output through every reader.

Each check has an outcome per (consumer, producer, layout, check): the consumer is the
implementation answering, the producer who wrote the file (``corpus``: the kit's own files, else
an implementation's ``write`` output). A case an adapter's capabilities exclude is *unsupported*,
counted apart from *failed*; the number of checks per row does not depend on the answers. A run
that ends early (its ``budget`` spent, ``fail_fast``) says so in ``Results.stopped`` and reports
what it got; ``only`` (layouts, globs of case names) picks the cases to run.
"""
from __future__ import annotations

from typing import Any

import json
import re
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fileindex.container.file import FileIndexContainer
from fileindex.errors import ConfinementError, FileIndexError, UsageError
from fileindex.kit.archive import checked_digest, unpack
from fileindex.kit.corpus import (
    Case,
    answer_problem,
    canonical_head,
    cases,
    dataset_path,
    graded,
    head_entries,
    load_json,
    open_corpus,
    shown,
    Imprecise,
    Unsound,
)
from fileindex.kit.integrity import verify_files
from fileindex.kit.negative import ERROR
from fileindex.kit.plan import Only, Phase, selectors
from fileindex.kit.protocol import GIVE_UP_AFTER, MAX_RESTARTS, TIMEOUT, Adapter, Budget, StopRun
from fileindex.kit.rows import sort_rows
from fileindex.writing.outputs import check_apart

CORPUS = "corpus"
# what reading an answer or a corpus case of the wrong shape raises (a deeply nested one: RecursionError)
MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError)
PASS, FAIL, UNSUPPORTED = "pass", "fail", "unsupported"
UNSOUND, IMPRECISE = "unsound", "imprecise"  # a failed answer's fault: it may drop rows; it costs time only
NOT_WRITTEN = "not written"  # a read of what the producer failed to write: charged to the producer
STATUSES = (PASS, FAIL, UNSUPPORTED, NOT_WRITTEN)
_ASKED = re.compile(r"(written|refused)-\d{5}\.index")  # the names of the files write requests name


class Unsupported(str):
    """Why a check is unsupported (its outcome's detail): the capabilities exclude it, or the adapter said so."""


Problem = str | None  # None: the check passed; a message: it failed (an Unsupported one: it is unsupported)


def no_counts() -> dict[str, int]:
    return dict.fromkeys(STATUSES, 0)


@dataclass(frozen=True)
class Outcome:
    consumer: str
    producer: str
    layout: str
    check: str
    status: str
    detail: str = ""
    case: str = ""  # the corpus case (a container's name, a refusal's, a negative case's)
    fault: str = ""  # a failed answer's: UNSOUND, IMPRECISE ("": another failure, a crash, a wrong head...)


@dataclass
class Results:
    kit_version: str
    implementations: dict[str, dict] = field(default_factory=dict)  # name -> capabilities
    outcomes: list[Outcome] = field(default_factory=list)
    stopped: str = ""  # why the run ended before its last check ("" when it ran them all)
    fail_fast: bool = False
    hints: list[str] = field(default_factory=list)  # what the failures have in common, said once

    def add(self, consumer: str, producer: str, layout: str, check: str, problem: Problem, case: str = "") -> None:
        """``problem``: None (pass), a message (fail) or an :class:`Unsupported` reason. StopRun after a failure
        with ``fail_fast``."""
        status = UNSUPPORTED if isinstance(problem, Unsupported) else PASS if problem is None else FAIL
        detail = problem or ""
        fault = UNSOUND if isinstance(problem, Unsound) else IMPRECISE if isinstance(problem, Imprecise) else ""
        self.outcomes.append(Outcome(consumer, producer, layout, check, status, detail, case, fault))
        if status == FAIL and self.fail_fast:
            raise StopRun(f"stopped at the first failure (--fail-fast): {consumer} {check} of {case}")

    def counts(self) -> dict[tuple[str, str, str, str], dict[str, int]]:
        table: dict = {}
        for o in self.outcomes:
            row = table.setdefault((o.consumer, o.producer, o.layout, o.check), no_counts())
            row[o.status] += 1
        return dict(sorted(table.items()))

    def totals(self, name: str | None = None) -> dict[str, int]:
        """The outcomes charged to implementation ``name`` (all with None): its answers as a consumer, and
        the reads of what it failed to write as a producer."""
        total = no_counts()
        for o in self.outcomes:
            if name is None or (o.producer if o.status == NOT_WRITTEN else o.consumer) == name:
                total[o.status] += 1
        return total

    @property
    def ok(self) -> bool:
        total = self.totals()
        return not total[FAIL] and not total[NOT_WRITTEN] and not self.stopped and not self.checked_nothing

    @property
    def checked_nothing(self) -> bool:
        """Whether every check of a complete run was unsupported: a run that checked nothing passes nothing."""
        return not self.stopped and all(o.status == UNSUPPORTED for o in self.outcomes)


def run(folder: str | Path, commands: list[str], workdir: str | Path,
        progress: Callable[[str], None] = lambda text: None, *, only: list[str] | tuple[str, ...] = (),
        fail_fast: bool = False, timeout: float = TIMEOUT, budget: float | None = None,
        tables_at: str | None = None, storage_options: dict[str, str] | None = None) -> Results:
    """Every adapter through the corpus. ``only``: layouts and globs of case names (a case runs when one
    matches); ``timeout``: seconds one answer may take; ``budget``: seconds the run may take, after which it
    ends with what it got (``Results.stopped``), as ``fail_fast`` does after the first failure. ``tables_at``:
    the URI the corpus's ``tables/`` folder was copied to (an object store's): Tier 2 requests name the tables
    there, with ``storage_options`` (Paimon's option keys) to reach them."""
    workdir = Path(workdir)
    check_apart(workdir, [folder], what="--workdir")
    if Path(folder).is_file():  # a release tarball, as vendored
        progress(checked_digest(Path(folder)))
        workdir.mkdir(parents=True, exist_ok=True)
        folder = unpack(Path(folder), Path(tempfile.mkdtemp(prefix="corpus-", dir=workdir)))
    folder, manifest = open_corpus(folder)
    progress(f"{verify_files(folder, manifest)} files as manifest.json lists them (SHA-256)")
    v1 = cases(folder, "v1")
    tier1 = v1 + cases(folder, "v2")
    multi, bad, tables = cases(folder, "multi"), cases(folder, "bad"), cases(folder, "tables")
    refusals = _refusals(folder)
    _check_references(folder, tier1 + multi + bad + tables, refusals)
    if only:
        pick = Only(only)
        v1, tier1, multi, bad, tables = ([c for c in group if pick.takes(c.name, selectors(c))]
                                         for group in (v1, tier1, multi, bad, tables))
        refusals = [r for r in refusals if pick.takes(str(r.get("name")), {str(r.get("layout")), "refusals"})]
        pick.check()
    adapters: list[Adapter] = []
    limits = Budget(budget, timeout)  # one budget for the whole run, every adapter's answers within it
    try:
        for command in commands:
            adapters.append(Adapter(command, limits))
    except StopRun as stop:
        raise UsageError(f"capabilities did not answer before {stop}") from None
    except BaseException:
        for adapter in adapters:
            adapter.close(kill=True)
        raise
    names = [a.name for a in adapters]
    if len(set(names)) != len(names):  # the same implementation twice: tell them apart by position
        for position, adapter in enumerate(adapters):
            adapter.name = f"{adapter.name}#{position + 1}"
    results = Results(manifest["kit_version"], {a.name: {**a.capabilities, "command": a.command} for a in adapters},
                      fail_fast=fail_fast)
    try:
        _run_phases(adapters, folder, (v1, tier1, multi, bad, tables, refusals), workdir, results, progress,
                    TableSource(folder, tables_at, storage_options or {}))
    except StopRun as stop:
        results.stopped = str(stop)
        progress(f"ended early: {stop}")
    except BaseException:  # interrupted: the adapters are killed, not waited for
        for adapter in adapters:
            adapter.close(kill=True)
        raise
    for adapter in adapters:
        adapter.close()
        if adapter.restarts_spent:
            results.hints.append(f"{adapter.name}'s batch process was restarted {MAX_RESTARTS} times for protocol "
                                 "errors with no answer between, then no more (it did not help): a batch adapter "
                                 "answers each request with one JSON line echoing its \"id\" (docs/kit.md)")
        if adapter.gave_up is not None:
            results.hints.append(f"{adapter.name} gave no answer within the timeout ({timeout:g} s, --timeout) to "
                                 f"{GIVE_UP_AFTER} requests in a row: its {adapter.not_asked} later requests were not "
                                 "sent and fail; run it alone on one case (--only) to see where it hangs")
        if adapter.lines_without_id and not adapter.answered_with_id:
            results.hints.append(f"no answer of {adapter.name} carried its request's id: since kit 2.0.0 a batch "
                                 "adapter echoes each request's \"id\" in its answer (docs/kit.md; kit 1.0.0 had "
                                 "no ids)")
        if adapter.count_not_json:
            results.hints.append(f"{adapter.name} printed {adapter.count_not_json} line(s) on stdout that are not "
                                 f"JSON (the first: {adapter.lines_not_json[0]!r}), skipped while waiting for its "
                                 "answers: a batch adapter's stdout carries its answers alone; print logs and debug "
                                 "output to stderr")
    return results


@dataclass(frozen=True)
class TableSource:
    """Where Tier 2 requests name a case's table: in the corpus folder, or (``uri``) under the URI its ``tables/``
    folder was copied to, with the options that reach it."""

    folder: Path
    uri: str | None = None
    options: dict[str, str] = field(default_factory=dict)

    def request(self, case: Case) -> dict:
        if self.uri is None:
            return {"table": str(case.file)}
        relative = case.file.relative_to(self.folder / "tables").as_posix()
        return {"table": f"{self.uri.rstrip('/')}/{relative}",
                **({"storage_options": self.options} if self.options else {})}


def _run_phases(adapters: list[Adapter], folder: Path, groups: tuple, workdir: Path, results: Results,
                progress: Callable[[str], None], source: TableSource | None = None) -> None:
    v1, tier1, multi, bad, tables, refusals = groups
    written = {}
    for adapter in adapters:
        phase = Phase(progress, f"{adapter.name}: writing", len(v1) + len(refusals))
        written[adapter.name] = _write(adapter, folder, v1, refusals, workdir / _safe(adapter.name), results, phase)
    for adapter in adapters:
        total = len(tier1) + len(multi) + len(bad) + len(tables)
        phase = Phase(progress, f"{adapter.name}: reading the corpus", total)
        for case in phase.each(tier1 + multi):
            _guarded(results, adapter, CORPUS, case, "read", _read_case, adapter, case, case.file, CORPUS, results,
                     exact_head=True)
        for case in phase.each(bad):
            _guarded(results, adapter, CORPUS, case, "reject", _bad_case, adapter, case, results)
        for case in phase.each(tables):
            _guarded(results, adapter, CORPUS, case, "scan", _scan_case, adapter, case, results, source)
            _guarded(results, adapter, CORPUS, case, "rows", _rows_case, adapter, case, results, source)
        for producer, files in written.items():
            phase = Phase(progress, f"{adapter.name}: reading what {producer} wrote", len(files))
            for case, path in phase.each(files):
                _guarded(results, adapter, producer, case, "read", _read_written, adapter, case, path, producer,
                         results)


def _guarded(results: Results, adapter: Adapter, producer: str, case: Case, check: str,
             run: Callable[..., Any], *args: Any, on_malformed: Callable[[str], Any] | None = None,
             **kwargs: Any) -> Any:
    """``run(*args, **kwargs)``: one case's checks. A case whose sidecar is not laid out as docs/kit.md says (a
    field missing or of another type, JSON nested too deeply to walk) fails every check it makes that ``run``
    had not counted yet (one, where the sidecar does not say how many), returns ``on_malformed(why)`` (None
    without it), and the run goes on."""
    counted = len(results.outcomes)
    try:
        return run(*args, **kwargs)
    except MALFORMED as err:
        sidecar = case.sidecar if isinstance(case.sidecar, dict) else {}
        name = str(sidecar.get("name", case.path.stem))
        why = f"{name}: the case is not laid out as docs/kit.md says ({_error_text(err)})"
        done = Counter((o.layout, o.check) for o in results.outcomes[counted:])
        for layout, each in (Counter(_planned(case, check)) - done).elements():
            results.add(adapter.name, producer, layout, each, why, name)
        return None if on_malformed is None else on_malformed(why)


def _planned(case: Case, check: str) -> list[tuple[str, str]]:
    """The (layout, check) of every check ``check`` of ``case`` makes, whatever the answers; [(its layout, check)]
    where the sidecar does not say."""
    try:
        if check == "read":
            layout = _read_layout(case.sidecar)
            return [(layout, "head")] + [(layout, "read")] * len(case.sidecar["cases"])
        if check in ("scan", "rows"):
            return [("table", check)] * len(_table_items(case, check))
        if check == "reject":
            return [("bad", _bad_check(case.sidecar))]
        return [(case.layout, check)]
    except MALFORMED:
        sidecar = case.sidecar if isinstance(case.sidecar, dict) else {}
        return [(str(sidecar.get("layout", "?")), check)]


def _error_text(err: BaseException) -> str:
    text = str(err)
    return f"{type(err).__name__}: {text[:160]}" if text else type(err).__name__


def _refusals(folder: Path) -> list[dict]:
    document = load_json(folder / "refusals.json")
    refusals = document.get("refusals") if isinstance(document, dict) else None
    if not isinstance(refusals, list) or not all(isinstance(r, dict) for r in refusals):
        raise UsageError(f"{folder / 'refusals.json'} holds no list of refusals")
    return refusals


def _check_references(folder: Path, every_case: list[Case], refusals: list[dict]) -> None:
    """Every path the corpus names resolves inside it (a ConfinementError naming it otherwise), before
    any adapter is asked anything."""
    for case in every_case:
        _ = case.file  # resolving it checks it
        if "dataset" in case.sidecar:
            dataset_path(folder, case.sidecar["dataset"])
        if case.path.parent.name == "bad":
            _bad_request(case)
    for refusal in refusals:
        dataset_path(folder, refusal.get("dataset"))


def _safe(name: str) -> str:
    """An implementation's name as one plain folder name under the work folder (never ``..``)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    return safe if safe.strip(".") else safe.replace(".", "_") or "_"


def _layouts(case: Case) -> list[str]:
    return case.sidecar.get("layouts") or [case.layout]


def _read_case(adapter: Adapter, case: Case, path: Path, producer: str, results: Results, *, exact_head: bool) -> None:
    sidecar = case.sidecar
    layout = _read_layout(sidecar)
    where = f"{producer}:{case.name}"
    unread = _unread(adapter, sidecar["container_version"], _layouts(case))
    if unread is None:
        answer = adapter.ask({"op": "head", "file": str(path)})
        results.add(adapter.name, producer, layout, "head",
                    _judge(answer, lambda a: _head_problem(a, sidecar["head"], exact_head, where)), case.name)
    else:
        results.add(adapter.name, producer, layout, "head", unread, case.name)
    unread = _unread(adapter, sidecar["container_version"], [case.layout])
    if unread is not None:
        for _ in sidecar["cases"]:
            results.add(adapter.name, producer, layout, "read", unread, case.name)
        return
    schema = _schema(case)
    for item in sidecar["cases"]:
        unread = _unread(adapter, sidecar["container_version"], list(item.get("layouts", ())))
        if unread is not None:
            results.add(adapter.name, producer, layout, "read", unread, case.name)
            continue
        answer = adapter.ask({"op": "read", "file": str(path), "schema": schema, "where": item["where"]})
        results.add(adapter.name, producer, layout, "read", _judge(answer, _read_problem, item, sidecar, where),
                    case.name)


def _unread(adapter: Adapter, container_version: int, layouts: list[str]) -> Unsupported | None:
    why = adapter.unread(container_version, layouts)
    return None if why is None else Unsupported(why)


def _read_layout(sidecar: dict) -> str:
    """The layout a read of the case is counted under: ``@v2`` marks container version 2."""
    version = sidecar["container_version"]
    return sidecar["layout"] if version == 1 else f"{sidecar['layout']}@v{version}"


def _read_written(adapter: Adapter, case: Case, path: Path | str | None, producer: str, results: Results) -> None:
    """The reads of what ``producer`` wrote for ``case``, never dropped: where the write failed (``path`` None)
    they are counted as not written, charged to the producer; where the case could not be written (``path``: why,
    the case is not laid out as docs/kit.md says) they fail as the case's write did, charged to the case."""
    if not isinstance(path, Path) and adapter.reads(1, case.layout):
        status, detail = (NOT_WRITTEN, f"{case.name}: {producer} did not write it") if path is None else (FAIL, path)
        for layout, check in _planned(case, "read"):
            results.outcomes.append(Outcome(adapter.name, producer, layout, check, status, detail, case.name))
    else:
        _read_case(adapter, case, path if isinstance(path, Path) else case.file, producer, results, exact_head=False)


def _read_problem(answer: dict, item: dict, sidecar: dict, where: str) -> str | None:
    problem = _failed(answer) or answer_problem(answer, item["expected"],
                                                empty_is_skip=sidecar.get("empty_is_skip", False))
    if problem and "before" in item and answer_problem(answer, item["before"]["expected"]) is None:
        problem = type(problem)(f"the answer of Paimon before {item['since']} ({item['before']['why']})")
    return _where(problem, f"{where} {json.dumps(item['where'], ensure_ascii=False)}")


def _judge(answer: dict, problem: Callable[..., str | None], *args: Any, **kwargs: Any) -> Problem:
    """An answer's outcome, the same rule for every check: ``{"unsupported": …}`` is unsupported, never a
    failure; anything else is judged by ``problem(answer, *args, **kwargs)`` (None: pass; a message: fail)."""
    if "unsupported" in answer:
        return _said_unsupported(answer)
    try:
        return problem(answer, *args, **kwargs)
    except MALFORMED as err:  # an answer (or a corpus case) shaped unlike docs/kit.md: this check fails
        return f"the answer or the case is not laid out as docs/kit.md says ({_error_text(err)})"


def _said_unsupported(answer: dict) -> Unsupported:
    return Unsupported(f"the adapter answered unsupported: {str(answer['unsupported'])[:200]}")


def _scan_case(adapter: Adapter, case: Case, results: Results, source: TableSource | None = None) -> None:
    """Tier 2: every predicate's verdict per live data file of the table, exactly the recorded files."""
    layout = "table"
    unread = _unread(adapter, case.sidecar["container_version"], _layouts(case))
    for item in _table_items(case, "scan"):
        if unread is not None:
            results.add(adapter.name, CORPUS, layout, "scan", unread, case.name)
            continue
        table = source.request(case) if source else {"table": str(case.file)}
        answer = adapter.ask({"op": "scan", **table, "where": item["where"]})
        # whole-file verdicts: the adapter keeps or skips whole files, or the expected answers do (Java's plan)
        whole_files = adapter.capabilities.get("scan") == "files" or case.sidecar.get("whole_files") is True
        problem = _judge(answer, _files_problem, item["expected"]["files"], whole_files=whole_files)
        results.add(adapter.name, CORPUS, layout, "scan", _where(problem, f"{case.name} {item.get('sql')}"),
                    case.name)


def _rows_case(adapter: Adapter, case: Case, results: Results, source: TableSource | None = None) -> None:
    """Tier 2: the rows a full read of the table returns under each predicate, compared in the kit's order.
    Asked of an adapter that reads the table's indexes too: a reader may prune with them (Java 0.9.0 does)."""
    unread = _unread(adapter, case.sidecar["container_version"], _layouts(case))
    if not adapter.capabilities.get("rows"):
        unread = Unsupported('needs "rows": true, not declared (capabilities)')
    for item in _table_items(case, "rows"):
        if unread is not None:
            results.add(adapter.name, CORPUS, "table", "rows", unread, case.name)
            continue
        table = source.request(case) if source else {"table": str(case.file)}
        answer = adapter.ask({"op": "rows", **table, "where": item["where"]})
        problem = _judge(answer, _rows_problem, item["expected"]["rows"])
        results.add(adapter.name, CORPUS, "table", "rows", _where(problem, f"{case.name} {item.get('sql')}"),
                    case.name)


def _where(problem: Problem, where: str) -> Problem:
    """A failure's message after where it happened, of the same kind (an unsupported reason as it is)."""
    return problem if problem is None or isinstance(problem, Unsupported) else type(problem)(f"{where}: {problem}")


def _table_items(case: Case, check: str) -> list[dict]:
    """The predicates of a Tier 2 case a ``scan`` (those with recorded per-file verdicts) or a ``rows`` check asks."""
    key = "files" if check == "scan" else "rows"
    return [item for item in case.sidecar["cases"] if key in item["expected"]]


def _refused_problem(answer: dict, refusal: dict) -> str | None:
    if "error" in answer:
        return None
    if _no_answer(answer):  # a crash is never a refusal
        return f"{refusal['name']}: {_failed(answer)}"
    return (f"{refusal['name']}: Java refuses it ({refusal.get('java')}); "
            f"the adapter answered {shown(answer, 200)}")


def _rows_problem(answer: dict, expected: list) -> str | None:
    failed = _failed(answer)
    if failed:
        return failed
    rows = answer.get("rows")
    if not isinstance(rows, list):
        return f"no rows in {shown(answer)}"
    rows = sort_rows(rows)
    if rows == expected:
        return None
    missing = [row for row in expected if row not in rows]
    extra = [row for row in rows if row not in expected]
    return (Unsound if missing else str)(f"{len(rows)} rows where {len(expected)} were expected; missing "
                                         f"{json.dumps(missing[:3])}, not expected {json.dumps(extra[:3])}")


def _files_problem(answer: dict, expected: dict, *, whole_files: bool = False) -> str | None:
    """Why a scan's verdicts are not the expected ones. ``whole_files``: the adapter declared
    (``"scan": "files"``) that it keeps or skips whole files, so only that is compared."""
    failed = _failed(answer)
    if failed:
        return failed
    files = answer.get("files")
    if not isinstance(files, dict):
        return f"no files in {shown(answer)}"
    if set(files) != set(expected):
        return f"files {sorted(files)} where {sorted(expected)} were expected"
    for name, verdict in expected.items():
        if whole_files:
            kept, wanted = _kept(files[name]), _kept(verdict)
            if kept is None or kept != wanted:
                grade = str if kept is None else Unsound if wanted else Imprecise
                return grade(f"{name}: {files[name]} where the file is {'kept' if wanted else 'skipped'}")
            continue
        problem = answer_problem(files[name], verdict, empty_is_skip=True)
        if problem:
            return type(problem)(f"{name}: {problem}")
    return None


def _kept(answer: Any) -> bool | None:
    """Whether an answer keeps the file (None: not an answer)."""
    if not isinstance(answer, dict) or answer.get("result") not in ("REMAIN", "SKIP", "ROWS"):
        return None
    if answer["result"] == "ROWS":
        return bool(answer.get("ranges") or answer.get("cardinality"))
    return answer["result"] == "REMAIN"


def _schema(case: Case) -> dict:
    if "type" in case.sidecar:
        return {case.sidecar["column"]: case.sidecar["type"]}
    corpus = case.path.parents[2]  # containers/multi/<name>.json
    dataset = load_json(dataset_path(corpus, case.sidecar["dataset"])) if "dataset" in case.sidecar else {}
    return {column["name"]: column["type"] for column in dataset.get("columns", ())}


def _no_answer(answer: dict) -> bool:
    """The adapter gave no answer (it crashed, or said something else), or the kit could not ask."""
    return any(key in answer for key in ("crash", "timeout", "protocol", "unsent"))


def _failed(answer: dict) -> str | None:
    if "unsent" in answer:
        return f"not asked: {answer['unsent']}"
    if "crash" in answer:
        return f"the adapter crashed: {answer['crash']}"
    if "timeout" in answer:
        return f"the adapter {answer['timeout']}"
    if "protocol" in answer:
        return f"protocol error: {answer['protocol']}"
    if "error" in answer:
        return f"error: {answer['error']}"
    return None


def _head_problem(answer: dict, expected: dict, exact: bool, where: str) -> str | None:
    problem = _failed(answer)
    if problem:
        return f"{where}: {problem}"
    head = answer.get("head")
    if not isinstance(head, dict):
        return f"{where}: no head in {shown(answer)}"
    try:
        if canonical_head(head) != canonical_head(expected):
            return f"{where}: entries {canonical_head(head)} where {canonical_head(expected)} were expected"
    except (KeyError, TypeError, AttributeError) as err:
        return f"{where}: a head not laid out as docs/kit.md says ({_error_text(err)})"
    if exact:  # the same producer's bytes: the recorded positions, where the adapter gives them
        recorded = {(c["column"], e["index_type"]): (e["start"], e["length"])
                    for c in expected["columns"] for e in c["indexes"]}
        for column in head["columns"]:
            for entry in column["indexes"]:
                position = recorded[(column["column"], entry["index_type"])]
                if "start" in entry and (entry["start"], entry.get("length")) != position:
                    return f"{where}: {column['column']}/{entry['index_type']} at {entry['start']} " \
                           f"(length {entry.get('length')}) where {position} was recorded"
    return None


def _write(adapter: Adapter, folder: Path, v1: list[Case], refusals: list[dict], out: Path,
           results: Results, phase: Phase) -> list[tuple[Case, Path | str | None]]:
    """Every Tier 1 container the adapter writes, from the case's dataset and options; its payload must be
    the recorded one, its HEAD must hold exactly that entry (the file, None where it was not, or why the case
    could not be asked: it is not laid out as docs/kit.md says). The
    refusals must be refused. The files written are named by their position, never by the corpus."""
    written = []
    out.mkdir(parents=True, exist_ok=True)
    for position, case in phase.each(enumerate(v1)):
        done = _guarded(results, adapter, adapter.name, case, "write", _write_case, adapter, folder, case,
                        out / f"written-{position:05d}.index", results, on_malformed=str)
        if done is not None:  # (a str: why the case could not be written)
            written.append((case, done) if isinstance(done, str) else done)
    for position, refusal in phase.each(enumerate(refusals)):
        try:
            _refuse(adapter, folder, refusal, out / f"refused-{position:05d}.index", results)
        except MALFORMED as err:  # (a refusal's one check: it fails, and the run goes on)
            name = str(refusal.get("name"))
            results.add(adapter.name, adapter.name, str(refusal.get("layout", "?")), "refuse",
                        f"{name}: the refusal is not laid out as docs/kit.md says ({_error_text(err)})", name)
    _note_strays(adapter, out, results)
    return written


def _note_strays(adapter: Adapter, out: Path, results: Results) -> None:
    """A hint naming what the adapter left in its output folder besides the files it was asked to write (the folder
    is the run's own: anything else there is the adapter's)."""
    strays = sorted(str(p) for p in out.rglob("*") if p.is_file() and not _ASKED.fullmatch(p.name))
    if strays:
        results.hints.append(f"{adapter.name} wrote {len(strays)} file(s) in its output folder besides the \"out\" "
                             f"files it was asked to write ({', '.join(strays[:5])}{', ...' if len(strays) > 5 else ''}"
                             "): a write request writes the file \"out\" names and nothing else (docs/kit.md)")


def _refuse(adapter: Adapter, folder: Path, refusal: dict, target: Path, results: Results) -> None:
    """A combination Java refuses to write: the adapter must refuse it too."""
    unwritten = adapter.unwritten(refusal["layout"])
    if unwritten is not None:
        results.add(adapter.name, adapter.name, refusal["layout"], "refuse", Unsupported(unwritten), refusal["name"])
        return
    answer = adapter.ask({"op": "write", "dataset": str(dataset_path(folder, refusal["dataset"])), "column": "c",
                          "type": refusal["type"], "index_type": refusal["index_type"],
                          "options": refusal["options"], "container_version": 1, "out": str(target)})
    results.add(adapter.name, adapter.name, refusal["layout"], "refuse", _judge(answer, _refused_problem, refusal),
                refusal["name"])


def _write_case(adapter: Adapter, folder: Path, case: Case, target: Path,
                results: Results) -> tuple[Case, Path | None] | None:
    """One Tier 1 write: (the case, the file written or None where it was not); None when unsupported."""
    s = case.sidecar
    unwritten = adapter.unwritten(case.layout)
    if unwritten is not None:
        results.add(adapter.name, adapter.name, case.layout, "write", Unsupported(unwritten), case.name)
        return None
    answer = adapter.ask({"op": "write", "dataset": str(dataset_path(folder, s["dataset"])), "column": s["column"],
                          "type": s["type"], "index_type": s["index_type"], "options": s["options"],
                          "container_version": 1, "out": str(target)})
    problem = _judge(answer, _written_problem, target, s)
    results.add(adapter.name, adapter.name, case.layout, "write", _where(problem, case.name), case.name)
    return None if isinstance(problem, Unsupported) else (case, None if problem else target)


def _written_problem(answer: dict, path: Path, sidecar: dict) -> str | None:
    """A written file against the case: read by this project's parser, compared as parsed entries
    (column, index type, payload SHA-256), not as HEAD bytes: only the same producer's HEAD is byte-identical."""
    failed = _failed(answer)
    if failed:
        return failed
    try:
        with FileIndexContainer.open(path) as container:
            container.validate_layout()
            head = head_entries(container)
    except (OSError, FileIndexError) as err:
        return f"the written file does not read: {err}"
    if canonical_head(head) != canonical_head(sidecar["head"]):
        return f"wrote {canonical_head(head)} where {canonical_head(sidecar['head'])} (payload SHA-256) was expected"
    return None


def _bad_request(case: Case) -> dict:
    """The request a negative case makes: a ``head`` or a ``read`` of its own file, nothing else (never
    a write to a path the corpus chose)."""
    request = case.sidecar.get("request")
    if not isinstance(request, dict) or request.get("op") not in ("head", "read"):
        raise ConfinementError(f"{case.path}: \"request\" {json.dumps(request)[:80]} is not a head or a read")
    return {**{key: request[key] for key in ("op", "schema", "where") if key in request}, "file": str(case.file)}


def _bad_case(adapter: Adapter, case: Case, results: Results) -> None:
    s = case.sidecar
    answer = adapter.ask(_bad_request(case))
    check = _bad_check(s)
    problem: Problem
    if "unsupported" in answer:
        problem = _said_unsupported(answer)
    elif _no_answer(answer):
        problem = f"{case.name}: {_failed(answer)}: a reader rejects with an error, never a crash"
    elif "error" in answer:
        problem = None if ERROR in s["accepted"] else f"{case.name}: rejected, which this rule does not accept"
    else:
        answers = [a for a in s["accepted"] if a != ERROR]
        fits = any(answer_problem(answer, a, empty_is_skip=True) is None for a in answers)
        problem = None if fits else graded(answer, answers, f"{case.name} ({s['rule']}): answered {shown(answer)}, "
                                                            f"accepted {s['accepted']}")
    results.add(adapter.name, CORPUS, "bad", check, problem, case.name)


def _bad_check(sidecar: dict) -> str:
    return "reject" if sidecar["rule"] == "MUST reject" else "fail-open"
