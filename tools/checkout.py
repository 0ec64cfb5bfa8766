"""Running a tool from a plain checkout: this checkout's package imported, whether it is installed editable,
installed from elsewhere or not at all. Every subpackage (``fileindex.generated`` and ``fileindex.specs`` too) lies
in its folder under ``fileindex/``, so :func:`use_checkout` only puts this checkout first on ``sys.path`` (its
``tools/`` too)."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def use_checkout() -> None:
    sys.path[:0] = [str(ROOT), str(ROOT / "tools")]
