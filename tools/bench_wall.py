"""Where a scan's wall time goes, thread by thread (#54): on a CPU, waiting for one, or blocked.

    .venv/bin/python tools/bench_wall.py ROOT [--where "id = 5"] [--repeat 10] [--loaded]

Runs ``PaimonTable(ROOT).scan(where).to_arrow()`` (two untimed runs, then ``--repeat`` timed ones) and prints,
per run and per kind of thread of this process that ran meanwhile (the consumer, the reader threads, the
read-ahead threads of a primary-key table's buckets, pyarrow's; threads of one name added up, those that end
within a run counted from their last sample, taken every few milliseconds),
the milliseconds it spent on a CPU and waiting on a run queue (Linux's ``/proc/self/task/*/schedstat``),
the rest of the wall time being blocked (a lock, the GIL, a queue, I/O), and its voluntary context switches
(each a wake-up that waits for a core on a busy machine). ``--loaded`` adds a CPU-bound neighbour process
per core. On a busy machine a thread's run-queue wait is what the scheduler's fair share gives it; the
process's wall shrinks with the threads it keeps runnable at once, and with the wake-ups it avoids.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from checkout import use_checkout

use_checkout()

from fileindex import PaimonTable


def threads() -> dict[str, tuple[int, int, int]]:
    """Thread id -> (ns on a CPU, ns waiting on a run queue, voluntary context switches)."""
    found = {}
    for task in os.listdir("/proc/self/task"):
        with contextlib.suppress(OSError):
            on_cpu, waiting, _ = map(int, Path(f"/proc/self/task/{task}/schedstat").read_text().split())
            status = Path(f"/proc/self/task/{task}/status").read_text()
            switches = int(status.split("voluntary_ctxt_switches:")[1].split()[0])
            found[task] = (on_cpu, waiting, switches)
    return found


class Sampler:
    """Every thread's figures (:func:`threads`) sampled every few milliseconds on a thread of its own, so that a
    thread that ends within a run (a bucket's read-ahead) is counted up to its last sample; each thread named as
    Python names it (others, pyarrow's among them, by their id)."""

    def __init__(self, period: float = 0.003):
        self.last: dict[str, tuple[int, int, int]] = {}
        self.names: dict[str, str] = {}
        self._stop = threading.Event()
        self._period = period
        self._thread = threading.Thread(target=self._run, name="bench-wall-sampler", daemon=True)

    def __enter__(self) -> Sampler:
        self.sample()
        self._thread.start()
        return self

    def __exit__(self, *_) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()

    def sample(self) -> None:
        self.names.update({str(thread.native_id): thread.name for thread in threading.enumerate()})
        self.last.update(threads())

    def _run(self) -> None:
        while not self._stop.wait(self._period):
            self.sample()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root")
    parser.add_argument("--where")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--loaded", action="store_true", help="a CPU-bound neighbour process per core meanwhile")
    args = parser.parse_args()
    if not Path("/proc/self/task").is_dir():
        sys.exit("bench_wall: needs Linux's /proc/self/task")
    neighbours = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                  for _ in range(len(os.sched_getaffinity(0)) if args.loaded else 0)]
    try:
        for _ in range(2):
            PaimonTable(args.root).scan(args.where).to_arrow()
        before = threads()
        with Sampler() as sampler:
            started = time.perf_counter()
            for _ in range(args.repeat):
                PaimonTable(args.root).scan(args.where).to_arrow()
            wall_ms = (time.perf_counter() - started) * 1000 / args.repeat
        after, names = sampler.last, sampler.names
    finally:
        for process in neighbours:
            process.kill()
            process.wait()
    consumer = str(threading.get_native_id())
    print(f"where {args.where!r}: wall {wall_ms:.1f} ms a run, mean of {args.repeat}; load average "
          f"{os.getloadavg()[0]:.1f}" + (" (with a CPU-bound neighbour per core)" if args.loaded else ""))
    kinds: dict[str, list[float]] = {}  # a kind of thread -> [threads, ms on CPU, on a run queue, wake-ups]
    for task, (on_cpu, waiting, switches) in after.items():
        was = before.get(task, (0, 0, 0))
        cpu, queued = (on_cpu - was[0]) / 1e6 / args.repeat, (waiting - was[1]) / 1e6 / args.repeat
        name = names.get(task, task)
        if not cpu or name == "bench-wall-sampler":
            continue
        kind = "consumer" if task == consumer else name.rstrip("0123456789").rstrip("_-") if name != task else task
        figures = kinds.setdefault(kind, [0, 0.0, 0.0, 0.0])
        for position, value in enumerate((1, cpu, queued, (switches - was[2]) / args.repeat)):
            figures[position] += value
    print(f"{'thread':>20} {'threads':>8} {'on CPU':>8} {'run queue':>10} {'wake-ups':>9}   (ms a run, added up)")
    for kind, (count, cpu, queued, wakeups) in kinds.items():
        print(f"{kind:>20} {count:>8} {cpu:>8.1f} {queued:>10.1f} {wakeups:>9.1f}")
    print(f"(the consumer's wall not on a CPU nor a run queue is blocked: "
          f"{max(0.0, wall_ms - sum(kinds.get('consumer', [0, 0.0, 0.0])[1:3])):.1f} ms a run)")


if __name__ == "__main__":
    main()
