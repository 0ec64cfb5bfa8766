"""What the rest of the package knows about an index type: each package declares one :class:`IndexType`
(its ``INDEX``) and the registry lists them; nothing else names a type or asks which type it holds."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from fileindex.frozen import frozen
from typing import TYPE_CHECKING, Any

from fileindex.errors import UsageError

if TYPE_CHECKING:
    from fileindex.indexes.invariants import BodyFacts
    from fileindex.indexes.reader import FileIndexReader


@frozen
class FilterSizing:
    """A probabilistic index (one that may answer REMAIN for a value it does not hold): how to judge the
    false-positive rate it was built for."""
    # (payload, options it was built with or None) -> diagnosis with .verdict, .advice, .design_fpp, .as_dict()
    diagnose: Callable[[Any, Mapping[str, str] | None], Any]
    configured_fpp: Callable[[Any, Mapping[str, str]], float | None]  # (payload, options) -> the fpp they size


@frozen
class KeyedSpec:
    """The ``kaitai_spec`` of a type whose body's key layout follows the column type (``key_kind(data_type).code``
    is the spec's parameter): none without a column type, or for one the index cannot have."""
    spec: Callable[..., Any]  # (code, io) -> the generated reader
    root: str
    key_kind: Callable[[Any], Any]

    def __call__(self, data_type) -> tuple[Callable, str] | None:
        if data_type is None:
            return None
        try:
            code = self.key_kind(data_type).code
        except UsageError:
            return None
        return (lambda io: self.spec(code, io)), self.root


@frozen
class IndexType:
    name: str  # Paimon's identifier (``FileIndexerFactory``)
    options: tuple[str, ...]  # the per-column options it accepts
    build: Callable[..., bytes]  # (values, data_type, options) -> payload
    reader: Callable[..., FileIndexReader]  # (payload, data_type, *, base_offset) -> reader with .validate()
    # (payload, data_type, *, base_offset, distinct) -> BodyFacts; raises the first broken invariant
    check: Callable[..., BodyFacts]
    check_needs_type: bool = True  # False: the deep check runs without the column's type
    check_last: bool = False  # the deep check needs the column's distinct count from its other bodies
    row_count_at: tuple[int, str] | None = None  # (offset in the body, spec field) of the recorded row count
    exact: frozenset[str] = frozenset()  # predicate functions answered with exactly the matching rows
    extended: bool = False  # its reader takes ``extended=True`` (answers beyond Java's: --mode extended)
    # its reader takes ``fetch=``: a large body on a store is fetched by the parts a query needs (PartialBody)
    reads_by_parts: bool = False
    exact_extended: frozenset[str] = frozenset()  # and those answered exactly only when ``extended``
    nano_timestamps_remain: bool = False  # value predicates on TIMESTAMP(p > 6) answer REMAIN (current Java)
    # data_type (None: unknown) -> (Kaitai reader factory of io, spec root) or None: shown as raw bytes
    kaitai_spec: Callable[[Any], tuple[Callable, str] | None] | None = None
    layout: Callable[[Any, Mapping | None], str] | None = None  # (payload or None, options) -> layout label
    # (reader, values, data_type, row_count) -> fileindex.indexes.exhaustive.Outcome: every row checked
    exhaustive: Callable[..., Any] | None = None
    # (data_type, options) -> None: raises what its writer refuses before it reads a value (a type it does not
    # support, an option value): an ALTER checks the options it sets so (fileindex.table.options_alter)
    check_writable: Callable[..., Any] | None = None
    filter_sizing: FilterSizing | None = None  # set for a probabilistic index
    # (payload, options it was built with or None) -> (verdict, advice) (indexes.advice)
    sizing: Callable[[Any, Mapping[str, str] | None], tuple[str, str]] | None = None
    when_too_large: str = ""  # what to use instead when it costs more than it can save (indexes.advice)

    def answers_exactly(self, function: str, *, extended: bool) -> bool:
        """Whether a row set this type answers ``function`` with (in that mode) is exactly the matching rows,
        for literals the column's type holds exactly (``fileindex.values.held_exactly``); REMAIN never is."""
        return function in self.exact or (extended and function in self.exact_extended)

    def layout_of(self, payload, options: Mapping | None = None) -> str:
        """The layout a body (or, unread, its options) is counted under by the conformance report."""
        return self.name if self.layout is None else self.layout(payload, options)
