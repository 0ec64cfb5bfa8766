"""kit run is bounded in every direction by a hostile adapter (tests/kit/hostile_adapter.py) or corpus: a
request the adapter does not read is given up at --timeout; an adapter that stops reading and chatters is
restarted after three protocol errors in a row; an answer nested too deeply to read, a one-call adapter's
flood of output and a flood on stderr are each a failed check, never a traceback or memory held whole; a
case laid out wrongly fails its check; a batch adapter that echoes no ids gets a one-line hint; and no report
is written into a Paimon table. Each run is bounded by --timeout and --budget."""
import json
import os
import shutil
import signal
import sys
import threading
import time
import tracemalloc
from collections import Counter
from pathlib import Path

import pytest
from conftest import ROOT
from hostile import fileindex, refused
from kit_fixtures import ADAPTER, WRONG, relist, small_corpus

from fileindex.cli import main
from fileindex.kit.protocol import GIVE_UP_AFTER, Adapter, Budget
from fileindex.kit.runner import CORPUS, FAIL, NOT_WRITTEN, PASS, run

HOSTILE = f"{sys.executable} {ROOT / 'tests' / 'kit' / 'hostile_adapter.py'}"
TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"


@pytest.fixture
def small(kit_folder, tmp_path):
    return small_corpus(kit_folder, tmp_path / "small", cases_each=2)


def test_a_request_the_adapter_does_not_read_is_given_up_at_the_timeout():
    adapter = Adapter(f"{HOSTILE} deaf", Budget(None, timeout=1))
    answer: dict = {}
    asking = threading.Thread(target=lambda: answer.update(adapter.ask({"op": "head", "file": "x" * (1 << 20)})),
                              daemon=True)  # a request larger than a pipe holds
    asking.start()
    asking.join(120)  # (a guard against a runner that blocks for ever, as it did)
    adapter.close(kill=True)
    assert not asking.is_alive(), "the runner blocked writing a request the adapter never reads"
    assert answer["timeout"] == ("did not read its request within 1 s (a timeout, --timeout): the batch process was "
                                 "stopped")


def ended(pid: int) -> bool:
    """Whether process ``pid`` has ended (gone, or a zombie its new parent has not reaped yet), given 10 s to."""
    for _ in range(100):
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except FileNotFoundError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("mode", ["leave-a-child", "batch-leave-a-child"])
def test_an_adapter_that_answered_and_exited_is_answered_and_what_it_started_ends_with_it(kit_folder, tmp_path,
                                                                                          monkeypatch, mode):
    """trial18: a one-call adapter whose ``sleep 1000 &`` held its stdout was "the adapter crashed: no answer in 2 s",
    then asked nothing more; its children, and a batch adapter's, outlived the run (killed only with a live leader)."""
    pids = tmp_path / "pids"
    monkeypatch.setenv("KIT_CHILD_PIDS", str(pids))
    head = {"op": "head", "file": str(kit_folder / "containers" / "v1" / "bloom-filter" / "int_nulls__bloom.index")}
    try:
        adapter = Adapter(f"{HOSTILE} {mode}", Budget(None, timeout=2))
        answers = [adapter.ask(head) for _ in range(GIVE_UP_AFTER + 1)]
        adapter.close()
        assert [sorted(answer) for answer in answers] == [["head"]] * len(answers), answers[-1]
    finally:
        children = [int(pid) for pid in pids.read_text().split()]
        left = [pid for pid in children if not ended(pid)]
        for pid in left:  # (not to leave them behind when the test fails)
            os.kill(pid, signal.SIGKILL)
    assert len(children) == 1 + (1 if mode.startswith("batch") else len(answers)) and left == []  # capabilities: 1


@pytest.mark.slow
def test_an_adapter_that_stops_reading_and_chatters_is_restarted_and_cannot_freeze_the_run(kit_folder, tmp_path):
    deep = tmp_path.joinpath(*["d" * 200] * 15)  # long paths: the requests outgrow a pipe within a few checks
    corpus = small_corpus(kit_folder, deep / "small", cases_each=2)
    done = fileindex("kit", "run", corpus, "--impl", f"{HOSTILE} chatter", "--workdir", deep / "work", "--timeout",
                     "2", "--budget", "240", "--json", "-", timeout=600)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    outcomes = json.loads(done.stdout)["results"]
    answered = [o for o in outcomes if o["status"] != "not written"]
    # (restarted 3 times, then not again: its stdin fills up, and a request it does not read is a timeout)
    assert answered and all(o["status"] == FAIL and ("protocol error" in o["detail"] or "did not read its request "
                                                     "within 2 s" in o["detail"]) for o in answered)
    assert any("restarted after 3 protocol errors in a row" in o["detail"] for o in answered)


def test_an_answer_nested_too_deeply_fails_its_check(small, tmp_path):
    results = run(small, [f"{HOSTILE} nested"], tmp_path / "w", timeout=30, budget=300, only=["bloom-filter"])
    answered = [o for o in results.outcomes if o.status != "not written"]
    assert answered and all(o.status == FAIL and "nested too deeply to read" in o.detail for o in answered)


@pytest.mark.slow
def test_a_one_call_adapters_flood_of_output_is_cut_at_64_mib(small):
    done = fileindex("kit", "run", small, "--impl", f"{HOSTILE} flood-stdout", "--only", "int_nulls__bloom",
                     "--timeout", "60", "--budget", "300", "--json", "-", timeout=600)  # under a 2 GiB memory limit
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    answered = [o for o in json.loads(done.stdout)["results"] if o["status"] != "not written"]
    assert answered and all(o["status"] == FAIL and "printed over 64 MiB for one request" in o["detail"]
                            for o in answered)


def peak_of_a_run(*args, **kwargs):
    """The results of a run, and the most memory Python held during it."""
    tracemalloc.start()
    try:
        return run(*args, **kwargs), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_of_a_flood_on_stderr_only_its_tail_is_kept(small, tmp_path):
    options = {"timeout": 60, "budget": 300, "only": ["int_nulls__bloom"]}
    clean, usual = peak_of_a_run(small, [ADAPTER], tmp_path / "w0", **options)
    results, peak = peak_of_a_run(small, [f"{HOSTILE} flood-stderr"], tmp_path / "w", **options)
    answered = [o for o in results.outcomes if o.status != "not written"]
    last_words = "the last words of the hostile adapter"
    assert clean.ok and answered and all(o.status == FAIL and "exited with status 9" in o.detail
                                         and o.detail.endswith(last_words) for o in answered)
    assert peak < usual + (8 << 20), (peak, usual)  # each batch process wrote 20 MB on stderr


def test_a_case_laid_out_wrongly_fails_its_check_and_the_run_goes_on(small, tmp_path):
    bloom = small / "containers" / "v1" / "bloom-filter" / "int_nulls__bloom.json"
    sidecar = json.loads(bloom.read_text())
    del sidecar["cases"][0]["expected"]
    bloom.write_text(json.dumps(sidecar))
    bitmap = small / "containers" / "v1" / "bitmap-v2" / "int_nulls__bitmap_v2.json"
    bitmap.write_text(json.dumps({**json.loads(bitmap.read_text()), "cases": 5}))
    results = run(relist(small), [ADAPTER], tmp_path / "w", timeout=60, budget=300)
    failed = {o.case: o.detail for o in results.outcomes if o.status == FAIL}
    assert set(failed) == {"int_nulls__bloom", "int_nulls__bitmap_v2"}, failed
    assert "the answer or the case is not laid out as docs/kit.md says (KeyError: 'expected')" in \
        failed["int_nulls__bloom"]
    assert "the case is not laid out as docs/kit.md says (TypeError" in failed["int_nulls__bitmap_v2"]


def test_a_case_laid_out_wrongly_fails_every_check_it_makes_and_none_vanishes(small, tmp_path):
    """A corpus error before a case's last check failed the case as one check: its other checks (a case's reads,
    the reads of what its write would have written) vanished, where the number of checks never depends on them."""
    clean = run(small, [ADAPTER], tmp_path / "w0", timeout=60, budget=300)
    bloom = small / "containers" / "v1" / "bloom-filter" / "int_nulls__bloom.json"
    sidecar = json.loads(bloom.read_text())
    del sidecar["cases"][0]["where"], sidecar["column"]  # its reads, and its write, cannot be asked
    bloom.write_text(json.dumps(sidecar))
    refusals = json.loads((small / "refusals.json").read_text())
    del refusals["refusals"][0]["type"]  # a refusal without its type (was a KeyError ending the run)
    (small / "refusals.json").write_text(json.dumps(refusals))
    broken = run(relist(small), [ADAPTER], tmp_path / "w", timeout=60, budget=300)
    rows = Counter((o.consumer, o.producer, o.layout, o.check) for o in broken.outcomes)
    assert rows == Counter((o.consumer, o.producer, o.layout, o.check) for o in clean.outcomes)
    failed = [o for o in broken.outcomes if o.status != PASS]
    refusal = refusals["refusals"][0]["name"]
    assert {(o.case, o.check, o.status) for o in failed} == {("int_nulls__bloom", "write", FAIL),
                                                             ("int_nulls__bloom", "read", FAIL),
                                                             ("int_nulls__bloom", "head", FAIL),
                                                             (refusal, "refuse", FAIL)}
    assert len(failed) == 1 + len(sidecar["cases"]) + (1 + len(sidecar["cases"])) + 1
    # the reads of what the write would have written fail as the case (its layout), not as the producer's output
    unwritten = [o for o in failed if o.producer != CORPUS and o.check in ("head", "read")]
    assert not [o for o in broken.outcomes if o.status == NOT_WRITTEN]
    assert unwritten and all("int_nulls__bloom: the case is not laid out as docs/kit.md says (KeyError: 'column')"
                             == o.detail for o in unwritten)


def test_a_sidecar_nested_too_deeply_is_one_line(small):
    bloom = small / "containers" / "v1" / "bloom-filter" / "int_nulls__bloom.json"
    bloom.write_text('{"cases": ' + "[" * 100_000 + "]" * 100_000 + "}")
    refused(fileindex("kit", "run", relist(small), "--impl", ADAPTER, "--timeout", "60", "--budget", "300"),
            "int_nulls__bloom.json: JSON nested too deeply to read", code=2)


def test_an_adapter_without_request_ids_gets_a_hint(small, capsys):
    assert main(["kit", "run", str(small), "--impl", f"{WRONG} --no-ids", "--only", "bloom-filter",
                 "--timeout", "60", "--budget", "300"]) == 1
    hints = [line for line in capsys.readouterr().out.splitlines() if line.startswith("hint: ")]
    assert "hint: no answer of wrong carried its request's id: since kit 2.0.0 a batch adapter echoes each " \
           "request's \"id\" in its answer (docs/kit.md; kit 1.0.0 had no ids)" in hints


def test_an_adapter_that_prints_debug_lines_on_stdout_is_answered_and_gets_a_hint(small, capsys, monkeypatch):
    """Every check failed with 'protocol error: not a JSON answer: b'DEBUG ...'', the batch process restarted every 3
    requests (9m30s for --only bloom-filter, 6.5 s clean), and nothing said what to change."""
    starts = []
    start = Adapter._start
    monkeypatch.setattr(Adapter, "_start", lambda adapter: (starts.append(1), start(adapter))[1])
    assert main(["kit", "run", str(small), "--impl", f"{HOSTILE} debug-prints", "--only", "bloom-filter",
                 "--timeout", "60", "--budget", "300"]) == 0
    assert len(starts) == 1
    hints = [line for line in capsys.readouterr().out.splitlines() if line.startswith("hint: ")]
    assert len(hints) == 1, hints
    assert hints[0].startswith("hint: hostile printed ") and "(the first: b'DEBUG: handling request 1\\n')" in hints[0]
    assert hints[0].endswith("a batch adapter's stdout carries its answers alone; print logs and debug output to "
                             "stderr")


@pytest.mark.parametrize("flag", ["--html", "--json"])
def test_no_report_is_written_into_a_table(small, tmp_path, flag):
    table = shutil.copytree(TABLE, tmp_path / "orders")
    snapshot = table / "snapshot" / "snapshot-1"
    before = snapshot.read_bytes()
    line = refused(fileindex("kit", "run", small, "--impl", ADAPTER, flag, snapshot), flag, "lies inside the Paimon "
                   f"table {table}", code=2)
    assert "choose a file outside it" in line and snapshot.read_bytes() == before
    refused(fileindex("kit", "run", small, "--impl", ADAPTER, flag, table / "report.html"), "Paimon table", code=2)
