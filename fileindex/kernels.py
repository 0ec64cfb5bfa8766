"""The compiled loops (``fileindex/_kernels.c``), or ``None`` where the numpy reference path runs.

The extension is built at install when a C compiler is present. ``FILEINDEX_KERNELS`` chooses:
unset or ``auto`` uses it when it imports, ``python`` never uses it (the reference path, as on a
machine without a compiler), ``compiled`` requires it and fails on import otherwise. Both paths
give the same bytes and answers (tests/test_kernels.py). The choice is made once per process, at
import, from the environment: a Spark executor makes it again from its own.
"""
from __future__ import annotations

import os
from types import ModuleType

ENVIRONMENT = "FILEINDEX_KERNELS"
CHOICES = ("auto", "compiled", "python")


def _load() -> ModuleType | None:
    choice = os.environ.get(ENVIRONMENT, "auto").strip().lower() or "auto"
    if choice not in CHOICES:
        raise ImportError(f"{ENVIRONMENT}={choice!r}: use one of {', '.join(CHOICES)}")
    if choice == "python":
        return None
    try:
        from fileindex import _kernels
    except ImportError as error:
        if choice == "compiled":
            raise ImportError(f"{ENVIRONMENT}=compiled, but fileindex._kernels is not built ({error}): "
                              "reinstall with a C compiler present (pip install -e .)") from error
        return None
    return _kernels


compiled = _load()


def describe() -> str:
    """One line for --version and benchmark output: which path runs."""
    return "compiled kernels (fileindex._kernels)" if compiled else "numpy reference path (no compiled kernels)"
