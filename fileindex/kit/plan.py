"""What a ``kit run`` runs and how far it is: ``--only`` patterns, and progress within a phase."""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

import fnmatch
import glob
import time
from collections.abc import Callable

from fileindex.errors import UsageError
from fileindex.kit.corpus import Case
from fileindex.tokens import closest_name

PROGRESS_FIRST, PROGRESS_EVERY = 1.0, 5.0  # seconds into a phase before its first progress line; between lines


T = TypeVar("T")

class Phase:
    """Progress within a phase: a line when it begins, and ``done/total`` once it has taken over a second."""

    def __init__(self, progress: Callable[[str], None], text: str, total: int):
        self.progress, self.text, self.total, self.done, self.lines = progress, text, total, 0, 0
        self.start = self.last = time.monotonic()
        progress(text)

    def each(self, items: Iterable[T]) -> Iterator[T]:
        """``items``, one step counted as each is done."""
        for item in items:
            yield item
            self.step()

    def step(self) -> None:
        self.done += 1
        now = time.monotonic()
        if self.done < self.total and now - self.last >= (PROGRESS_EVERY if self.lines else PROGRESS_FIRST):
            self.progress(f"{self.text}: {self.done}/{self.total} ({now - self.start:.0f} s)")
            self.last, self.lines = now, self.lines + 1


def selectors(case: Case) -> set[str]:
    """The layout names ``--only`` may pick a case by."""
    if case.path.parent.name == "bad":
        return {"bad"}
    version = case.sidecar.get("container_version", 1)
    return {case.layout, f"{case.layout}@v{version}"}


class Only:
    """``--only`` patterns: a layout name (``bitmap-v1``, ``bitmap-v1@v2``, ``multi-column``, ``table``,
    ``bad``, ``refusals``) or a glob of case names (``int_*``); each must pick at least one case."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = list(patterns)
        self.used: set[str] = set()
        self.seen: set[str] = set()
        self.names: set[str] = set()

    def takes(self, name: str, selectors: set[str]) -> bool:
        self.seen |= selectors
        self.names.add(name)
        hits = {p for p in self.patterns if p in selectors or fnmatch.fnmatchcase(name, p)}
        self.used |= hits
        return bool(hits)

    def check(self) -> None:
        for pattern in self.patterns:
            if pattern not in self.used:
                meant = None if glob.has_magic(pattern) else self._meant(pattern)
                raise UsageError(f"--only {pattern!r} picks no case of this corpus: "
                                 + (f"did you mean {meant}? " if meant else "")
                                 + f"give a layout ({', '.join(sorted(self.seen))}) or a glob of case names (int_*)")

    def _meant(self, pattern: str) -> str | None:
        """The layout a pattern begins (``bloom`` → ``bloom-filter``), else the closest layout or case name."""
        begun = sorted((layout for layout in self.seen if layout.startswith(pattern)), key=lambda lay: (len(lay), lay))
        return begun[0] if begun else closest_name(pattern, sorted(self.seen | self.names))
