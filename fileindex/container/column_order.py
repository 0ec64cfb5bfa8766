"""The order of columns and index types in a container, as Paimon's writers produce it (spec §11).

Every order that byte identity with Java depends on is decided here, and nowhere else:

* :func:`writer_layout`: the order Paimon's ``DataFileIndexWriter`` gives a data file's container,
  from the table options alone. Each ``java.util.HashMap`` of the chain is emulated with the same
  calls: the options map (``put``), ``FileIndexOptions``'s ``Column`` map and its per-column type
  maps (``computeIfAbsent``), the writer's per-type maintainer maps (``computeIfAbsent`` /
  ``put``), each map maintainer's key map (``put``), and the final column map (``computeIfAbsent``:
  head insertion) with its per-column type maps (``put``). Two rules differ in how a map column's
  keys reach the final map: ``RELEASED`` (a fresh ``HashMap`` of ``m[k]`` names per maintainer,
  Paimon's ``serializeMaintainers``) and ``FOR_EACH_INDEX`` (the maintainer's key map walked
  directly: open PR #10101, not merged).
* :func:`column_order` / :func:`index_type_order`: the order of a column → type → payload
  mapping when only the names are known (``write_container``'s ``order="java"``).

Tree bins of the ``Column`` map would break ties by identity hash codes (``Column`` is not
``Comparable``), which no program can reproduce; they need eight columns in one bucket of a map
of at least 64 buckets.
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterable, Mapping

from fileindex.errors import UsageError
from fileindex.java.hashmap import JavaHashMapOrder, compute_if_absent_order, put_order
from fileindex.java_numbers import int32

PREFIX = "file-index."
COLUMNS_SUFFIX = ".columns"
RELEASED = "released"
FOR_EACH_INDEX = "for-each-index"
RULES = (RELEASED, FOR_EACH_INDEX)

Layout = list[tuple[str, list[str]]]  # (container column, index types) in file order


def string_hash(text: str) -> int:
    """``String.hashCode`` (over UTF-16 code units)."""
    from fileindex.java.hash import string_hash_code

    return string_hash_code(text)


def string_compare(a: str, b: str) -> int:
    """``String.compareTo``: UTF-16 code units, which order supplementary characters differently
    from code points."""
    ua, ub = a.encode("utf-16-be"), b.encode("utf-16-be")
    return (ua > ub) - (ua < ub)


@dataclass(frozen=True)
class Column:
    """``FileIndexOptions.Column``: a column, or a map column's key (``m[k]``)."""

    name: str
    nested: str | None = None

    @classmethod
    def parse(cls, text: str) -> Column:
        start = text.find("[")
        if start != -1 and text.endswith("]"):
            return cls(text[:start], text[start + 1:-1])
        return cls(text)

    def java_hash(self) -> int:
        """``Arrays.hashCode(new Object[] {columnName, nestedColumnName, isNestedColumn})``."""
        h = 31 + string_hash(self.name)
        h = int32(31 * h + (0 if self.nested is None else string_hash(self.nested)))
        return int32(31 * h + (1231 if self.nested is not None else 1237))

    @property
    def container_name(self) -> str:
        return self.name if self.nested is None else f"{self.name}[{self.nested}]"


def _strings() -> JavaHashMapOrder[str]:
    return JavaHashMapOrder(string_hash, string_compare)


def _column_compare(a: Column, b: Column) -> int:
    raise UsageError(f"columns {a.container_name!r} and {b.container_name!r} fall into a tree bin of Paimon's "
                     "Column map, whose order depends on identity hash codes: no writer can reproduce it")


def declared_columns(options: Mapping[str, str]) -> tuple[list[Column], dict[Column, list[str]]]:
    """``FileIndexOptions``: the declared columns in its ``Column`` map's order, each with its index
    types in its type map's order (option keys put in a HashMap, each column ``computeIfAbsent``'ed)."""
    option_keys = _strings()
    for key in options:
        option_keys.put(key)
    declared: JavaHashMapOrder[Column] = JavaHashMapOrder(Column.java_hash, _column_compare)
    types_of: dict[Column, JavaHashMapOrder[str]] = {}
    for key in option_keys:
        if not (key.startswith(PREFIX) and key.endswith(COLUMNS_SUFFIX)):
            continue
        index_type = key[len(PREFIX):-len(COLUMNS_SUFFIX)]
        for item in str(options[key]).split(","):
            if item.strip():
                column = Column.parse(item.strip())
                declared.compute_if_absent(column)
                types_of.setdefault(column, _strings()).compute_if_absent(index_type)
    columns = list(declared)
    return columns, {column: list(types_of[column]) for column in columns}


def per_column_types(options: Mapping[str, str]) -> dict[str, str]:
    """Data column -> the one index type Paimon 0.9 to 1.1 write for it. Their ``DataFileIndexWriter`` keys
    its maintainers by column name: walking the declared columns, the first type of the first entry naming
    a column creates its maintainer and every later type is skipped (a map column's keys all join that one
    maintainer, whatever type declared them)."""
    columns, types_of = declared_columns(options)
    chosen: dict[str, str] = {}
    for column in columns:
        chosen.setdefault(column.name, types_of[column][0])
    return chosen


def writer_layout(options: Mapping[str, str], *, rule: str = RELEASED, per_column: bool = False) -> Layout:
    """The container layout ``DataFileIndexWriter`` produces for these table options (in the order
    they were set), including EMPTY entries' positions. ``per_column``: the writer of Paimon 0.9 to 1.1,
    one maintainer (one index type) per column, kept in a HashMap by column name."""
    if rule not in RULES:
        raise UsageError(f"column-order rule must be one of {', '.join(RULES)}, not {rule!r}")
    columns, types_of = declared_columns(options)
    if per_column:
        return _per_column_layout(columns, types_of)
    # DataFileIndexWriter: index type -> column name -> maintainer; a map maintainer's keys
    maintained = _strings()
    columns_of: dict[str, JavaHashMapOrder[str]] = {}
    keys_of: dict[tuple[str, str], JavaHashMapOrder[str]] = {}
    for column in columns:
        for index_type in types_of[column]:
            maintained.compute_if_absent(index_type)
            columns_of.setdefault(index_type, _strings()).put(column.name)
            if column.nested is not None:
                keys_of.setdefault((index_type, column.name), _strings()).put(column.nested)
    # serialization: every (container column, type) into the final column map
    final = _strings()
    final_types: dict[str, JavaHashMapOrder[str]] = {}
    for index_type in maintained:
        for name in columns_of[index_type]:
            for container_name in _serialized_names(index_type, name, keys_of, rule):
                final.compute_if_absent(container_name)
                final_types.setdefault(container_name, _strings()).put(index_type)
    return [(name, list(final_types[name])) for name in final]


def _per_column_layout(columns: list[Column], types_of: dict[Column, list[str]]) -> Layout:
    """0.9 to 1.1: maintainers in a HashMap by column name (``put`` when the first type creates one), a
    map maintainer's keys ``put`` by every type declaring them; serialized as :func:`writer_layout`."""
    maintainers = _strings()
    chosen: dict[str, str] = {}
    keys_of: dict[tuple[str, str], JavaHashMapOrder[str]] = {}
    for column in columns:
        for _ in types_of[column]:
            if column.name not in chosen:
                chosen[column.name] = types_of[column][0]
                maintainers.put(column.name)
            if column.nested is not None:
                keys_of.setdefault((chosen[column.name], column.name), _strings()).put(column.nested)
    final = _strings()
    for name in maintainers:
        for container_name in _serialized_names(chosen[name], name, keys_of, RELEASED):
            final.compute_if_absent(container_name)
    return [(name, [chosen[Column.parse(name).name]]) for name in final]


def _serialized_names(index_type: str, name: str, keys_of: dict, rule: str) -> list[str]:
    keys = keys_of.get((index_type, name))
    if keys is None:
        return [name]
    names = [f"{name}[{key}]" for key in keys]
    if rule == FOR_EACH_INDEX:
        return names
    fresh = _strings()  # serializedBytes() puts the keys' names into a new HashMap
    for container_name in names:
        fresh.put(container_name)
    return list(fresh)


def column_order(columns: Iterable[str], *, insertion: str = "compute_if_absent") -> list[str]:
    """Iteration order of a column ``HashMap`` filled with these names in this sequence
    (``computeIfAbsent`` as ``DataFileIndexWriter`` does, or ``put``)."""
    if insertion == "compute_if_absent":
        return compute_if_absent_order(columns, string_hash, string_compare)
    if insertion == "put":
        return put_order(columns, string_hash, string_compare)
    raise UsageError(f"insertion must be 'compute_if_absent' or 'put', not {insertion!r}")


def index_type_order(index_types: Iterable[str]) -> list[str]:
    """Order of a column's index types (a ``HashMap`` filled by ``put``)."""
    return put_order(index_types, string_hash, string_compare)
