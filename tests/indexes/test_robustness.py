"""Hostile bytes: every shared vector's body truncated, flipped, stretched and given extreme lengths.

Each mutated body is decoded in full and queried; the only exceptions allowed are the project's
DecodeErrors, with offsets inside the input. Evaluating a container whose only index is broken
raises, or answers REMAIN when the caller asks for lenient mode: never SKIP. A short atheris run
of tools/fuzz.py covers the same decoders, coverage-guided.
"""
import os
import random
import subprocess
import sys
import tracemalloc

import pytest
from conftest import ROOT, unavailable
from vector_cases import all_cases

from fileindex.container.file import FileIndexContainer
from fileindex.container.writer import write_entries
from fileindex.errors import DecodeError
from fileindex.indexes.registry import INDEX_TYPES
from fileindex.indexes.result import REMAIN
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.tree import Leaf

CASES = [c for c in all_cases() if c.ok]
EXTREMES = [b"\x00\x00\x00\x00", b"\xff\xff\xff\xff", b"\x7f\xff\xff\xff", b"\x80\x00\x00\x00"]
COUNTS = {"mutations": 0, "non_project_exceptions": 0}


def mutations(payload: bytes, rng: random.Random):
    large = len(payload) > 100_000  # fewer (each is decoded in full)
    if len(payload) <= 400:
        yield from (payload[:n] for n in range(len(payload)))
    else:
        yield from (payload[:rng.randrange(len(payload))] for _ in range(30 if large else 120))
    for _ in range(40 if large else 150):
        data = bytearray(payload)
        kind = rng.randrange(3)
        at = rng.randrange(len(data)) if data else 0
        if kind == 0 and data:
            data[at] ^= 1 << rng.randrange(8)
        elif kind == 1:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
        elif len(data) >= 4:
            at = min(at, len(data) - 4)
            data[at:at + 4] = rng.choice(EXTREMES)
        yield bytes(data)


def exercise(index, payload: bytes, case) -> None:
    reader = index.reader(payload, case.data_type, base_offset=1000)
    reader.validate()
    for method, args, _, _ in list(case.queries())[:12]:
        getattr(reader, method)(*args)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_mutated_bodies_raise_only_project_errors(case):
    index = INDEX_TYPES[case.record["index_type"]]
    payload = case.payload()
    rng = random.Random(case.name)
    for mutated in mutations(payload, rng):
        COUNTS["mutations"] += 1
        try:
            exercise(index, mutated, case)
        except DecodeError as err:
            assert 1000 <= err.offset <= 1000 + len(mutated), err
        except Exception:
            COUNTS["non_project_exceptions"] += 1
            raise


@pytest.mark.parametrize("case", [c for c in CASES if c.record["index_type"] != "bloom-filter"][::4],
                         ids=lambda c: c.name)
def test_a_broken_only_index_never_skips(case):
    payload = case.payload()
    rng = random.Random(case.name)
    strict, lenient = FileIndexEvaluator({"c": case.data_type}), FileIndexEvaluator({"c": case.data_type},
                                                                                    lenient=True)
    probe = next((v for v in case.values() if v is not None), None)
    predicate = Leaf("eq", "c", (probe,)) if probe is not None else Leaf("is_null", "c")
    for mutated in mutations(payload, rng):
        container = FileIndexContainer.from_bytes(write_entries([("c", case.record["index_type"], mutated)]))
        try:
            strict.evaluate(container, predicate)
        except DecodeError:
            assert lenient.evaluate(container, predicate) is REMAIN


def test_extreme_lengths_do_not_allocate():
    """Length and count fields of 2^31-1 must not be trusted to size an allocation."""
    peak_budget = 8 << 20
    for case in [c for c in CASES if len(c.payload()) < 50_000][::4]:
        payload = case.payload()
        index = INDEX_TYPES[case.record["index_type"]]
        for at in range(0, min(len(payload) - 4, 40)):
            mutated = payload[:at] + b"\x7f\xff\xff\xff" + payload[at + 4:]
            tracemalloc.start()
            try:
                exercise(index, mutated, case)
            except DecodeError:
                pass
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            assert peak < peak_budget + 50 * len(payload), (case.name, at, peak)


def test_mutation_counts_are_reported(capsys):
    with capsys.disabled():
        print(f"\nrobustness: {COUNTS['mutations']} mutated bodies, "
              f"{COUNTS['non_project_exceptions']} non-project exceptions")
    assert COUNTS["non_project_exceptions"] == 0


@pytest.mark.slow  # fuzzes for 20 s by design
def test_short_coverage_guided_fuzz_run(capsys, tmp_path):
    try:
        import atheris  # noqa: F401
    except ImportError:
        unavailable("atheris", "tools/setup.sh --test installs it")
    # Linux carries a process's peak RSS (ru_maxrss, what -rss_limit_mb checks) across fork and exec,
    # so a direct child would start at this test session's peak; a grandchild forked by sh does not.
    command = [sys.executable, str(ROOT / "tools" / "fuzz.py"), "-max_total_time=20", "-rss_limit_mb=1024",
               f"-artifact_prefix={tmp_path}/"]  # a failing input is saved there, not in the checkout
    temporary = tmp_path / "tmp"  # the temporary folder of the run: its seed corpus is removed afterwards
    temporary.mkdir()
    result = subprocess.run(["/bin/sh", "-c", '"$0" "$@"; exit $?', *command], capture_output=True, text=True,
                            timeout=600, env={**os.environ, "TMPDIR": str(temporary)})
    assert result.returncode == 0, result.stderr[-3000:]
    done = [line for line in result.stderr.splitlines() if line.startswith("Done ")]
    assert done, result.stderr[-2000:]
    assert list(temporary.iterdir()) == []
    with capsys.disabled():
        print(f"\natheris: {done[-1]}")
