"""Running a tool from a plain checkout: this checkout's package imported, whether it is installed editable,
installed from elsewhere or not at all.

pyproject.toml installs ``generated/python`` and ``specs/construct`` as ``fileindex.generated`` and
``fileindex.specs``; an editable install maps them (to the checkout it was made from), a plain checkout does
not. :func:`use_checkout` puts this checkout first on ``sys.path`` (its ``tools/`` too) and maps the two to
its own folders, as pyproject.toml does."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAPPED = {"fileindex.generated": ROOT / "generated" / "python", "fileindex.specs": ROOT / "specs" / "construct"}


def use_checkout() -> None:
    sys.path[:0] = [str(ROOT), str(ROOT / "tools")]
    import fileindex

    for name, folder in MAPPED.items():
        if name in sys.modules:
            continue
        spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        setattr(fileindex, name.rpartition(".")[2], module)
