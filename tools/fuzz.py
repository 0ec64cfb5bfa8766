#!/usr/bin/env python3
"""Coverage-guided fuzzing (atheris) of every decoder: the container and each index body.

    .venv/bin/python tools/fuzz.py -atheris_runs=100000          # on demand
    .venv/bin/python tools/fuzz.py -max_total_time=60 corpus/    # with a corpus folder

Without a corpus folder the seeds go into a temporary one, removed when the run ends.

The first input byte picks the layout and column type; the rest is the payload. Decoding, a full
validate() and a few queries may raise only the project's DecodeError (with an offset inside the
input); any other exception is a crash that atheris reports with the input that caused it. Seeds
are the Java-written vectors of tests/vectors.
"""
from __future__ import annotations

import resource
import sys
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from fileindex.container.file import FileIndexContainer
    from fileindex.errors import DecodeError
    from fileindex.indexes import bitmap, bloom_filter, bsi, range_bitmap
    from fileindex.types import parse_type

TARGETS = [
    ("container", None, None),
    *[("bloom-filter", bloom_filter.BloomFilterReader, t) for t in ("INT", "STRING")],
    *[("bitmap", bitmap.BitmapReader, t) for t in ("INT", "BIGINT", "STRING", "DOUBLE", "BOOLEAN")],
    *[("bsi", bsi.BsiReader, t) for t in ("INT", "BIGINT")],
    *[("range-bitmap", range_bitmap.RangeBitmapReader, t) for t in ("INT", "STRING", "FLOAT")],
]
PROBES = {"INT": 7, "BIGINT": -3, "STRING": "a", "DOUBLE": 1.5, "BOOLEAN": True, "FLOAT": 0.5}


PEAK_GROWTH_KB = 256 * 1024  # an input that raises the peak RSS this much is reported as the culprit
_peak_kb = [0]


def exercise(data: bytes) -> None:
    """Decode one input; fail on a foreign exception or when it alone raised the peak RSS by 256 MiB.

    libFuzzer's own -rss_limit_mb notices memory a second later and blames whatever input runs
    then; this check names the input that allocated.
    """
    try:
        _decode(data)
    finally:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        grew, _peak_kb[0] = peak - _peak_kb[0], peak
        if grew > PEAK_GROWTH_KB and peak != grew:  # (the first input sets the baseline)
            raise AssertionError(f"this input raised the peak RSS by {grew // 1024} MiB to {peak // 1024} MiB")


def _decode(data: bytes) -> None:
    if not data:
        return
    name, reader_class, type_name = TARGETS[data[0] % len(TARGETS)]
    payload = data[1:]
    try:
        if reader_class is None:
            container = FileIndexContainer.from_bytes(payload)
            container.validate_layout()
            return
        reader = reader_class(payload, parse_type(type_name))
        reader.validate()
        probe = PROBES[type_name]
        reader.visit_equal(probe)
        reader.visit_in([probe, None])
        reader.visit_less_than(probe)
        reader.visit_is_null()
        if name == "range-bitmap":
            reader.visit_top_n(3, descending=True)
    except DecodeError as err:
        if not 0 <= err.offset <= len(payload):
            raise AssertionError(f"{name}: offset {err.offset} outside the {len(payload)}-byte input: {err}") from err


def seeds() -> list[bytes]:
    from fileindex.container.file import FileIndexContainer as Container

    root = Path(__file__).resolve().parent.parent / "tests" / "vectors" / "java"
    out = []
    for path in sorted(root.glob("*.index")):
        data = path.read_bytes()
        if len(data) > 20000:
            continue
        out.append(bytes([0]) + data)
        container = Container.from_bytes(data)
        for entry in container:
            for i, (name, _, _) in enumerate(TARGETS):
                if name == entry.index_type and not entry.is_empty:
                    out.append(bytes([i]) + bytes(container.body(entry)))
    return out


def main() -> int:
    import shutil
    import subprocess
    import tempfile

    argv = list(sys.argv)
    if not any(not a.startswith("-") for a in argv[1:]):  # no corpus folder given: start from the seeds, in a
        corpus = Path(tempfile.mkdtemp(prefix="fileindex-fuzz-"))  # folder removed afterwards: atheris.Fuzz()
        try:  # ends the process itself, so the fuzzing runs in a child given the folder
            for i, seed in enumerate(seeds()):
                (corpus / f"seed-{i:04d}").write_bytes(seed)
            return subprocess.run([sys.executable, *argv, str(corpus)]).returncode
        finally:
            shutil.rmtree(corpus, ignore_errors=True)
    atheris.Setup(argv, exercise)
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main())
