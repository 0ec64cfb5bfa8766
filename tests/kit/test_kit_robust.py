"""fileindex kit run survives any adapter: a stray line, garbage, a crash mid-batch and an adapter that hangs on
every request each end within a small --timeout and --budget with the right counts; "unsupported" is
the same for every check; --only, --fail-fast, a JSON report of every result, progress within a phase, and
Ctrl-C / SIGTERM (one line, the temporary folder gone)."""
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile

import pytest
from kit_fixtures import ADAPTER, WRONG, relist, small_corpus

from fileindex.cli import main
from fileindex.errors import UsageError
from fileindex.kit.corpus import cases
from fileindex.kit.adapter import handle
from fileindex.kit.protocol import GIVE_UP_AFTER, MAX_RESTARTS, RESTART_AFTER, Adapter, serve
from fileindex.kit.runner import FAIL, NOT_WRITTEN, PASS, UNSUPPORTED, run


@pytest.fixture
def small(kit_folder, tmp_path):
    return small_corpus(kit_folder, tmp_path / "small", cases_each=2)


def statuses(results, **where):
    return [o.status for o in results.outcomes if all(getattr(o, k) == v for k, v in where.items())]


def test_a_stray_line_is_skipped_counted_and_moves_no_answer(small, tmp_path):
    """A line that is not JSON is never an answer: the answer after it is taken (kit 2.0.0 failed the request, and
    a chatty adapter was restarted every 3 requests: a near hang), and a hint counts such lines."""
    clean = run(small, [WRONG], tmp_path / "w0")
    assert clean.ok
    results = run(small, [f"{WRONG} --stray"], tmp_path / "w1")
    assert [o.status for o in results.outcomes] == [o.status for o in clean.outcomes]
    assert results.ok and results.hints == ["wrong printed 1 line(s) on stdout that are not JSON (the first: "
                                            "b'debug: reading\\n'), skipped while waiting for its answers: a batch "
                                            "adapter's stdout carries its answers alone; print logs and debug output "
                                            "to stderr"]


def test_a_batch_adapter_that_echoes_no_ids_fails_every_batch_check_saying_so(small, tmp_path, monkeypatch):
    """... and its batch process is restarted 3 times with no answer between, then no more (it was restarted every 3
    requests of a run: some 5,000 restarts)."""
    starts = []
    start = Adapter._start
    monkeypatch.setattr(Adapter, "_start", lambda adapter: (starts.append(1), start(adapter))[1])
    results = run(small, [f"{WRONG} --no-ids"], tmp_path / "w")
    answered = [o for o in results.outcomes if o.status != NOT_WRITTEN]  # the reads of what it could not write
    assert answered and all(o.status == FAIL and "protocol error" in o.detail and "(no id)" in o.detail
                            for o in answered)
    assert len(starts) == 1 + MAX_RESTARTS and len(answered) > RESTART_AFTER * (1 + MAX_RESTARTS)
    assert any(hint.startswith(f"wrong's batch process was restarted {MAX_RESTARTS} times for protocol errors")
               for hint in results.hints)
    assert len(results.outcomes) == len(run(small, [WRONG], tmp_path / "w0").outcomes)


def test_garbage_before_every_read_is_skipped(small, tmp_path):
    results = run(small, [f"{WRONG} --noise"], tmp_path / "w")
    read_bad = {c.name for c in cases(small, "bad") if c.sidecar["request"]["op"] == "read"}
    assert read_bad == {"unknown_index_type_lumina"}  # a negative case asked as a read: noise before it too
    reads = [o for o in results.outcomes if o.check == "read" or o.case in read_bad]
    assert reads and all(o.status == PASS for o in results.outcomes)
    assert len(results.hints) == 1 and "PNG garbage" in results.hints[0]
    assert len(results.outcomes) == len(run(small, [WRONG], tmp_path / "w0").outcomes)


def test_a_batch_adapter_that_crashes_mid_run_shows_its_exit_status_and_stderr(small, tmp_path):
    results = run(small, [f"{WRONG} --crash-on int_nulls__bitmap_v1.index"], tmp_path / "w", timeout=30)
    crashing = next(c for c in cases(small, "v2") if c.name == "int_nulls__bitmap_v1")
    failed = [o for o in results.outcomes if o.status == FAIL]
    assert len(failed) == 1 + len(crashing.sidecar["cases"])  # its head and each read; the batch restarts
    assert {o.case for o in failed} == {"int_nulls__bitmap_v1"}
    assert all("exited with status 7" in o.detail and "crashing on purpose" in o.detail for o in failed)
    assert statuses(results).count(PASS) == len(results.outcomes) - len(failed)


@pytest.mark.parametrize("mode", ["--hang", "--hang --one-call", "--half-line"])
def test_an_adapter_that_hangs_on_every_request_is_given_up_after_a_few_timeouts(kit_folder, tmp_path, mode):
    """The whole corpus: a timeout a check would take hours at the default --timeout (trial14: 120 s a case)."""
    results = run(kit_folder, [f"{WRONG} {mode}"], tmp_path / "w", timeout=0.5, budget=120)
    assert not results.stopped and not results.ok  # (the budget is a guard only: the run ends long before it)
    timed_out = [o for o in results.outcomes if "the adapter did not answer within 0.5 s (a timeout" in o.detail]
    assert len(timed_out) == GIVE_UP_AFTER and results.outcomes[:GIVE_UP_AFTER] == timed_out
    later = results.outcomes[GIVE_UP_AFTER:]
    assert later and all(o.status == FAIL and "not asked" in o.detail or o.status == NOT_WRITTEN for o in later)
    assert any(f"to {GIVE_UP_AFTER} requests in a row" in hint and "--only" in hint for hint in results.hints)


def test_an_answer_between_timeouts_keeps_an_adapter_asked(monkeypatch):
    from fileindex.kit import protocol

    adapter = object.__new__(protocol.Adapter)
    adapter.capabilities, adapter.name, adapter.gave_up, adapter.not_asked = {}, "slow", None, 0
    adapter._timeouts, adapter._timed_out = 0, False
    pattern = iter([True, True, False, True, True, False, True, True, True, False])

    def one_call(request):
        adapter._timed_out = next(pattern)
        return {"crash": "no answer"} if adapter._timed_out else {"ok": True}

    monkeypatch.setattr(adapter, "_one_call", one_call)
    answers = [adapter.ask({"op": "head"}) for _ in range(10)]
    assert [a.get("ok", False) for a in answers[:9]] == [False, False, True, False, False, True, False, False, False]
    assert "gave no answer within the timeout" in answers[9]["unsent"] and adapter.not_asked == 1


def test_a_phase_shows_its_progress_after_a_second_then_every_five(monkeypatch):
    from fileindex.kit import plan

    clock = iter([100.0, 100.4, 101.2, 103.0, 106.3, 106.5])  # the phase's start, then one look per step

    class Clock:
        @staticmethod
        def monotonic() -> float:
            return next(clock)

    monkeypatch.setattr(plan, "time", Clock)
    lines: list[str] = []
    phase = plan.Phase(lines.append, "wrong: writing", 6)
    assert list(phase.each(range(5))) == list(range(5))
    assert lines == ["wrong: writing", "wrong: writing: 2/6 (1 s)", "wrong: writing: 4/6 (6 s)"]


def test_a_run_ended_early_without_a_failure_does_not_say_fail():
    from fileindex.kit.report import terminal
    from fileindex.kit.runner import Results

    results = Results("2.1.0", stopped="the run's budget of 2 s (--budget) is spent")
    results.add("this", "corpus", "bloom-filter", "read", None, "a")
    last = terminal(results).splitlines()[-1]
    assert not results.ok and last == "NOT PASSED: the run ended early" and "FAIL" not in terminal(results)
    results.add("this", "corpus", "bloom-filter", "read", "wrong rows", "b")
    assert terminal(results).splitlines()[-1] == "FAIL: 1 check(s) failed (incomplete)"


def test_a_failure_shows_the_adapters_answer_as_json(small, tmp_path):
    """trial18: details printed Python's spelling of the answer ("no head in {'result': 'REMAIN'}")."""
    results = run(small, [f"{WRONG} --remain"], tmp_path / "w", only=["int_nulls__bloom"])
    details = {o.detail for o in results.outcomes if o.producer == "corpus" and o.check == "head"}
    assert details == {'corpus:int_nulls__bloom: no head in {"result": "REMAIN"}'}


def test_a_request_without_a_field_is_answered_with_an_error_naming_it():
    """trial18: {"op": "read", "id": 3} was answered "KeyError: 'schema'"."""
    answers = io.BytesIO()
    serve(handle, io.BytesIO(b'{"op": "read", "id": 3}\n{"op": "write", "id": 4, "dataset": "d.json", "type": "INT", '
                             b'"index_type": "bloom-filter"}\n'), answers)
    assert [json.loads(line) for line in answers.getvalue().splitlines()] == [
        {"id": 3, "error": 'the read request has no "file", "schema", "where" (a read request holds "file", "schema", '
                           '"where": docs/kit.md)'},
        {"id": 4, "error": 'the write request has no "out" (a write request holds "dataset", "type", "index_type", '
                           '"out": docs/kit.md)'}]


def test_unsupported_means_the_same_for_every_kind_of_check(small, kit_folder, tmp_path):
    shutil.copytree(kit_folder / "tables/append_with_bitmap", small / "tables/append_with_bitmap")
    relist(small)
    results = run(small, [f"{WRONG} --unsupported"], tmp_path / "w")
    assert {o.check for o in results.outcomes} == {"write", "refuse", "head", "read", "reject", "fail-open",
                                                   "scan", "rows"}
    assert set(statuses(results)) == {UNSUPPORTED} and results.checked_nothing and not results.ok
    assert {o.detail for o in results.outcomes} == {"the adapter answered unsupported: this adapter supports nothing"}


def test_only_picks_cases_by_layout_and_by_glob(small, tmp_path):
    bloom = run(small, [ADAPTER], tmp_path / "w1", only=["bloom-filter"])
    refusal = json.loads((small / "refusals.json").read_text())["refusals"][0]["name"]
    assert {o.case for o in bloom.outcomes} == {"int_nulls__bloom", refusal} and bloom.ok
    picked = run(small, [ADAPTER], tmp_path / "w2", only=["bitmap-v1@v2", "wrong_*"])
    assert {(o.case, o.layout) for o in picked.outcomes} == {("int_nulls__bitmap_v1", "bitmap-v1@v2"),
                                                             ("wrong_magic", "bad")}
    with pytest.raises(UsageError, match="--only 'nope' picks no case of this corpus: give a layout"):
        run(small, [ADAPTER], tmp_path / "w3", only=["bloom-filter", "nope"])


def test_fail_fast_ends_the_run_at_the_first_failure(small, tmp_path):
    results = run(small, [f"{WRONG} --flip-answers"], tmp_path / "w", fail_fast=True)
    assert statuses(results).count(FAIL) == 1 and results.outcomes[-1].status == FAIL
    assert "first failure (--fail-fast)" in results.stopped
    assert len(results.outcomes) < len(run(small, [f"{WRONG} --flip-answers"], tmp_path / "w2").outcomes)


def test_the_json_report_lists_every_result_whatever_failures_says(small, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["kit", "run", str(small), "--impl", f"{WRONG} --flip-answers", "--failures", "1",
                 "--json", str(out)]) == 1
    assert "more failures (--json lists them)" in capsys.readouterr().out
    document = json.loads(out.read_text())
    checks = sum(row[status] for row in document["rows"] for status in (PASS, FAIL, UNSUPPORTED))
    failed = sum(row[FAIL] for row in document["rows"])
    assert failed > 1 and len(document["failures"]) == failed
    assert len(document["results"]) == checks and document["complete"]
    assert sum(counts[FAIL] for counts in document["cases"].values()) == failed
    assert {r["case"] for r in document["results"]} == set(document["cases"])
    with pytest.raises(SystemExit) as usage:
        main(["kit", "run", str(small), "--impl", ADAPTER, "--timeout", "0"])
    assert usage.value.code == 2
    assert "'0' is not a number of seconds: give one above 0" in capsys.readouterr().err


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_run_says_one_line_and_removes_its_temporary_folder(small, tmp_path, signum, code):
    packed = tmp_path / "small.tar.gz"
    with tarfile.open(packed, "w:gz") as tar:
        tar.add(small, arcname="paimon-fileindex-kit-x")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    process = subprocess.Popen([sys.executable, "-m", "fileindex", "kit", "run", str(packed), "--impl",
                                f"{WRONG} --hang"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "TMPDIR": str(scratch)})
    assert process.stderr is not None
    seen = []
    while not any("wrong: writing" in line for line in seen):  # the adapter hangs on its first request
        line = process.stderr.readline()
        assert line, f"the run ended early: {seen}"
        seen.append(line)
    assert any(scratch.iterdir())  # the unpacked corpus
    process.send_signal(signum)
    _, rest = process.communicate(timeout=30)
    assert process.returncode == code
    assert rest.splitlines() == ["fileindex: interrupted"]
    assert list(scratch.iterdir()) == []
