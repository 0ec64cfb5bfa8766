"""Bloom-filter arithmetic: sizing, false-positive rates, fill, estimated contents, and advice.

Notation: m bits, k hash functions, n distinct values, X bits set.

* theoretical false-positive rate: (1 - e^(-k·n/m))^k
* estimated distinct values from the fill (Swamidass & Baldi): n̂ = -(m/k)·ln(1 - X/m)
* the items/fpp a Java filter was sized for, from (m, k): items ≈ m·ln2/k, fpp ≈ e^(-(m/items)·ln²2)
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

from fileindex.errors import UsageError
from fileindex.indexes.bloom_filter.keys import bloom_parameters
from fileindex.lazy import numpy as np


def false_positive_rate(num_bits: int, num_hash_functions: int, items: float) -> float:
    if num_bits <= 0:
        return 1.0
    return (1.0 - math.exp(-num_hash_functions * items / num_bits)) ** num_hash_functions


def bits_set(bitset) -> int:
    return int(np.bitwise_count(np.frombuffer(bitset, dtype=np.uint8)).sum())


def estimated_items(num_bits: int, num_hash_functions: int, set_bits: int) -> float:
    """n̂ = -(m/k)·ln(1 - X/m); infinite when every bit is set."""
    if set_bits >= num_bits:
        return math.inf
    if set_bits == 0:
        return 0.0  # (not the formula's -0.0, shown as "-0")
    return -(num_bits / num_hash_functions) * math.log1p(-set_bits / num_bits)


OVERSIZED_FACTOR = 4  # a filter sized for this many times the values it holds is called oversized


@dataclass(frozen=True)
class BloomDiagnosis:
    num_bits: int
    num_hash_functions: int
    bytes: int
    bits_set: int
    fill_ratio: float
    estimated_items: float
    delivered_fpp: float  # at the estimated number of items
    design_items: float  # what a Java filter of this m and k was sized for (approximately)
    design_fpp: float
    verdict: str  # "ok", "oversized" or "overfull"
    advice: str

    def as_dict(self) -> dict:
        return {k: (None if isinstance(v, float) and math.isinf(v) else v) for k, v in asdict(self).items()}


def diagnose(payload, options: Mapping[str, str] | None = None) -> BloomDiagnosis:
    """How full a bloom-filter payload is, what it holds, and whether it was sized well; ``options``, the index
    options it was built with where known (``items``, ``fpp``): the advice names the configured fpp, and the rate
    at what it holds, where they size it (``configured_fpp``)."""
    view = memoryview(payload).cast("B")
    k = int.from_bytes(view[:4], "big", signed=True)
    m = 8 * (len(view) - 4)
    x = bits_set(view[4:])
    n_hat = estimated_items(m, k, x)
    delivered = false_positive_rate(m, k, n_hat) if math.isfinite(n_hat) else 1.0
    design_items = m * math.log(2) / k if k > 0 else math.inf
    design_fpp = math.exp(-(m / design_items) * math.log(2) ** 2) if design_items > 0 else 1.0
    configured = None if options is None else configured_fpp(payload, options)
    rate = f"a false-positive rate of {design_fpp:.3g}" if configured is None else f"the configured fpp={configured:g}"
    observed = "" if configured is None else f"; at what it holds, its rate is about {delivered:.3g}"
    verdict, advice = "ok", "sized about right for what it holds"
    if not math.isfinite(n_hat) or n_hat > 1.5 * design_items:
        verdict = "overfull"
        advice = (f"holds more values than its {m} bits and {k} hash functions hold at {rate} (about "
                  f"{design_items:.0f}){observed}: raise items above {max(n_hat, design_items):.0f}")
    elif n_hat < design_items / OVERSIZED_FACTOR:
        verdict = "oversized"
        better = advise([max(1, round(n_hat))], design_fpp if configured is None else configured)
        advice = (
            f"holds about {n_hat:.0f} values, where its {m} bits and {k} hash functions hold about "
            f"{design_items:.0f} at {rate}{observed}: "
            f"items={better.items} fpp={better.fpp:g} would take {better.bytes} bytes instead of {len(view)}"
        )
    return BloomDiagnosis(
        num_bits=m, num_hash_functions=k, bytes=len(view), bits_set=x, fill_ratio=x / m if m else 0.0,
        estimated_items=n_hat, delivered_fpp=delivered, design_items=design_items, design_fpp=design_fpp,
        verdict=verdict, advice=advice,
    )


def configured_fpp(payload, options: Mapping[str, str]) -> float | None:
    """The fpp of the index options a filter was built with (``items``, ``fpp``), when they size a filter
    exactly like this one (Java sizes it from those two only); None when they do not, e.g. options that
    changed since. Without options, ``diagnose(payload).design_fpp`` estimates it from m and k."""
    from fileindex.errors import FileIndexError
    from fileindex.indexes.bloom_filter.keys import DEFAULT_FPP, parameters_from_options
    from fileindex.indexes.options import get_double

    view = memoryview(payload).cast("B")
    try:
        sized = parameters_from_options(options)
        fpp = get_double(options, "fpp", DEFAULT_FPP)
    except FileIndexError:
        return None
    k = int.from_bytes(view[:4], "big", signed=True)
    return fpp if (sized.payload_length, sized.num_hash_functions) == (len(view), k) else None


@dataclass(frozen=True)
class BloomAdvice:
    items: int
    fpp: float
    num_bits: int
    num_hash_functions: int
    bytes: int
    expected_fpp: float  # at the largest observed distinct count


def advise(distinct_counts: Sequence[int], target_fpp: float) -> BloomAdvice:
    """``items``/``fpp`` options that meet ``target_fpp`` for every file with these distinct counts."""
    if not distinct_counts:
        raise UsageError("advise needs at least one observed distinct count")
    if not 0 < target_fpp < 1:
        raise UsageError(f"target fpp must be in (0, 1), not {target_fpp}")
    items = max(1, max(int(c) for c in distinct_counts))
    sizing = bloom_parameters(items, target_fpp)
    return BloomAdvice(
        items=items, fpp=target_fpp, num_bits=sizing.num_bits, num_hash_functions=sizing.num_hash_functions,
        bytes=sizing.payload_length,
        expected_fpp=false_positive_rate(sizing.num_bits, sizing.num_hash_functions, items),
    )
