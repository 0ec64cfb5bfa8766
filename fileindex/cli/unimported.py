"""A process's own command line imports neither pandas nor, up front, numpy: about half the CPU time of a cold
``fileindex read --where ... --json`` (issue #54), for conversions the command never asks for.

* pandas: pyarrow imports it, where it is installed, on its first conversion to or from numpy (``to_numpy``,
  ``pa.array``, ``pa.table``: its pandas shim and its C++ converter look for pandas' types). While the command
  runs, importing pandas fails as if it were not installed, and pyarrow works as it does without pandas.
* numpy: ``import pyarrow`` imports numpy where it can (0.15-0.2 s of CPU), though pyarrow 18 and later need it
  only to convert to and from numpy arrays (an older one is imported as it is, numpy with it). pyarrow (and its
  compute kernels, which would import numpy too) is imported here with numpy unavailable, so it runs as it does
  without numpy; numpy is importable again afterwards, and the modules that compute with it import it when they
  first do (``from fileindex.lazy import numpy as np``): a read whose path needs no array arithmetic never loads
  it. Arrays cross between the two through their buffers (``fileindex.arrow.compute``), never pyarrow's numpy
  conversions, which raise in such a process (``tests/cli/test_unimported.py`` runs every command of ``COMMANDS``
  so).

Only for a process's own command line: pyarrow remembers the failed imports for the rest of the process, which a
program calling ``main([...])`` must not inherit; and not where pyarrow (or pandas) is imported already.
"""
from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager

# the commands that convert nothing to or from pandas, and whose paths cross to numpy only through buffers (the
# writers, checkers and Spark build Arrow arrays from numpy ones, which pyarrow without numpy cannot)
COMMANDS = frozenset({"read", "table", "query", "inspect"})


class _Unavailable:
    """A finder on ``sys.meta_path`` refusing ``packages`` (not an ``importlib.abc.MetaPathFinder``: importing that
    module imports tempfile, shutil, random and the compressors)."""

    def __init__(self, *packages: str):
        self.packages = packages

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in self.packages:
            raise ModuleNotFoundError(f"No module named {name!r} (not imported by this command)", name=name)
        return None


@contextmanager
def _unavailable(*packages: str) -> Iterator[None]:
    finder = _Unavailable(*packages)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def import_pyarrow_without_numpy() -> None:
    """pyarrow's modules that import numpy where they can (its core and its compute kernels), imported as if numpy
    were not installed; nothing where pyarrow or numpy is imported already."""
    if "pyarrow" in sys.modules or "numpy" in sys.modules or not runs_without_numpy():
        return
    from fileindex.lazy import import_deferring

    with _unavailable("numpy"):
        # (pyarrow.util imports socket for a test helper, find_free_port: 32 M instructions of a cold read, with its
        # enums and selectors; pyarrow.lib imports pickle, with _compat_pickle's tables, for a buffer's PickleBuffer
        # and extension types' serialization: numpy imports it where it is imported; pyarrow imports platform for
        # show_info, and uuid, which pyarrow.lib imports, asks it for the system's name only: see lazy.ANSWERED)
        import_deferring("pyarrow", "socket", "pickle", "platform")
        import fileindex.arrow.compute  # noqa: F401  (pyarrow._compute, imported as the package imports it)


NUMPY_OPTIONAL_SINCE = 18  # pyarrow's first major version that imports without numpy (17 and before need it)


def runs_without_numpy() -> bool:
    """Whether the installed pyarrow imports without numpy, told by its version file (not by importing it: a
    failed import of its core cannot be undone)."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("pyarrow")
    if spec is None or spec.origin is None:
        return False
    try:
        text = (Path(spec.origin).parent / "_generated_version.py").read_text()
    except OSError:
        return False
    found = re.search(r"version_tuple = \((\d+),", text)
    return found is not None and int(found.group(1)) >= NUMPY_OPTIONAL_SINCE


@contextmanager
def unimported(command: str) -> Iterator[None]:
    """While ``command`` (one of ``COMMANDS``) runs: pandas and OpenSSL's hashes unavailable, pyarrow imported without
    numpy."""
    if command not in COMMANDS:
        yield
        return
    import_pyarrow_without_numpy()
    hidden = [name for name in HIDDEN_WHILE_RUNNING if name not in sys.modules]
    if not hidden:
        yield
        return
    with _unavailable(*hidden):
        yield


# what a command's process would import and never use: pandas (see above); OpenSSL's hashes (_hashlib: 7 M
# instructions of a cold read, #54), which fastavro's schema module imports hashlib for, to fingerprint schemas, and
# the commands hash nothing: hashlib falls back on the interpreter's own md5, sha1, sha2, sha3 and blake2 (the same
# digests)
HIDDEN_WHILE_RUNNING = ("pandas", "_hashlib")
