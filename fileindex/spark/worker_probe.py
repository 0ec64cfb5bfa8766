"""What a Spark Python worker can import: run as a task (pickled by value, so that it runs on a worker
that cannot import this package) by ``session.check_workers``."""
from __future__ import annotations

NEEDED = ("fileindex", "pyarrow", "numpy", "pyroaring", "xxhash")


def probe(_partition):
    import importlib.util
    import sys

    missing = [name for name in NEEDED if importlib.util.find_spec(name) is None]
    yield sys.executable, "{}.{}.{}".format(*sys.version_info[:3]), missing
