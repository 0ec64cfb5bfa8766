"""What to install for an optional part of the package, as one line: the requirements of one of its extras
(``[spark]``, ``[duckdb]``, ``[polars]``), read from the installed package's metadata (pyproject.toml declares
them), since the package itself is not on the package registry."""
from __future__ import annotations

DISTRIBUTION = "paimon-fileindex"


def install_hint(extra: str, package: str | None = None) -> str:
    """``pip install 'duckdb<3,>=2.0.0'`` for the ``duckdb`` extra (with ``package``: that one of the extra's
    requirements alone, ``pandas`` of ``spark``); from a checkout whose package is not installed, the checkout's
    own extra (or ``pip install package``)."""
    import re
    from importlib.metadata import PackageNotFoundError, requires

    try:
        declared = requires(DISTRIBUTION) or []
    except PackageNotFoundError:
        declared = []
    wanted = [requirement.strip() for requirement, _, marker in (line.partition(";") for line in declared)
              if marker.replace("'", '"').split() == ["extra", "==", f'"{extra}"']
              and (package is None or re.split(r"[\s<>=!~\[(]", requirement.strip(), maxsplit=1)[0] == package)]
    if not wanted:
        return f"pip install {package}" if package else f"pip install -e '.[{extra}]' (in a checkout of {DISTRIBUTION})"
    return "pip install " + " ".join(f"'{requirement}'" for requirement in wanted)
