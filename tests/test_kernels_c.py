"""The loops of csrc/ without Python: tests/c/kernels_test.c is compiled against them alone (no Python
headers on the include path), with the address and undefined-behaviour sanitizers, and run. It
checks what C alone can; what it prints is checked here against the reference implementations
(xxhash, the scalar FastHash, the numpy bloom path, pyroaring)."""
import os
import shlex
import subprocess
import sysconfig

import pytest
import xxhash
from conftest import ROOT
from pyroaring import BitMap

from fileindex import kernels
from fileindex.indexes import bloom_filter
from fileindex.java import fast_hash
from fileindex.types import parse_type

pytestmark = pytest.mark.compiled  # a C compiler, as the kernels need; deselected by the fallback job of .ci/run

CSRC = ROOT / "csrc"


def test_the_loops_are_plain_c():
    loops = sorted(CSRC.glob("*.[ch]"))
    assert loops and not [p.name for p in loops if "Python.h" in p.read_text()]


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("kernels-c") / "kernels_test"
    compiler = shlex.split(sysconfig.get_config_var("CC") or "cc")
    build = subprocess.run([*compiler, "-std=c11", "-O2", "-g", "-Wall", "-Wextra", "-Werror",
                            "-fsanitize=address,undefined", "-fno-sanitize-recover=all", f"-I{CSRC}",
                            *map(str, sorted(CSRC.glob("*.c"))), str(ROOT / "tests" / "c" / "kernels_test.c"),
                            "-o", str(out)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    return str(out)


def reference_bloom() -> bytes:
    """The numpy path's BIGINT filter of keys 0..999."""
    saved, kernels.compiled = kernels.compiled, None
    try:
        return bloom_filter.build(list(range(1000)), parse_type("BIGINT"), {"items": "1000", "fpp": "0.01"})
    finally:
        kernels.compiled = saved


def test_the_loops_run_without_python_and_agree_with_the_reference(program, tmp_path):
    bitmap = BitMap(range(0, 100_000, 3)) | BitMap(range(200_000, 300_000))
    bitmap.run_optimize()
    roaring = tmp_path / "bitmap.bin"
    roaring.write_bytes(bitmap.serialize())
    payload = reference_bloom()
    reader = bloom_filter.BloomFilterReader(payload, parse_type("BIGINT"))
    run = subprocess.run([program, str(reader.num_bits), str(reader.num_hash_functions), str(roaring)],
                         capture_output=True, text=True, env={**os.environ, "ASAN_OPTIONS": "detect_leaks=0"})
    assert run.returncode == 0, run.stderr
    printed: dict[str, list[list[str]]] = {}
    for line in run.stdout.splitlines():
        kind, *fields = line.split()
        printed.setdefault(kind, []).append(fields)
    xxh = [(bytes.fromhex(data.strip("-")), int(h)) for data, h in printed["xxh64"]]
    assert len(xxh) == 14 and all(h == xxhash.xxh64_intdigest(data) for data, h in xxh)
    wang = [(int(key), int(h)) for key, h in printed["wang"]]
    assert len(wang) == 8 and all(h == fast_hash.wang_mix(key) for key, h in wang)
    assert printed["bloom"] == [[payload[4:].hex()]]
    assert printed["roaring"] == [[str(len(bitmap.serialize()))]]
