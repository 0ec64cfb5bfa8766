"""A command line that converts nothing to or from pandas runs without importing it.

pyarrow imports pandas, where it is installed, on its first conversion to or from numpy (``to_numpy``,
``pa.array``, ``pa.table``: its pandas shim and its C++ converter look for pandas' types): about a third of
the CPU time of a cold ``fileindex read --where ... --json`` (issue #54), for conversions the command never
asks for. While :func:`pandas_unavailable` holds, importing pandas fails as if it were not installed, and
pyarrow works as it does without pandas. Only for a process's own command line: pyarrow remembers the
failed import for the rest of the process (until something asks for pandas itself), which a program calling
``main([...])`` must not inherit; and not where pandas is imported already.
"""
from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.abc import MetaPathFinder

COMMANDS = frozenset({"read", "table", "query", "inspect"})  # (none of them converts to or from pandas)


class _Unavailable(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"No module named {name!r} (not imported by this command)", name=name)
        return None


@contextmanager
def pandas_unavailable() -> Iterator[None]:
    if "pandas" in sys.modules:
        yield
        return
    finder = _Unavailable()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
