"""The reader floor: the oldest Paimon that must read a table, and the indexes it can read.

One unreadable embedded body breaks every filtered Paimon 0.9 scan of the table, and a later rewrite
does not heal it (rewrite design §1.6.1), so a rewrite refuses what the floor cannot read, naming the
option. The floor comes from the shape of the table's newest manifests: 0.9 entries lack
``_VALUE_STATS_COLS`` (1.0), lists lack ``_MIN_BUCKET`` before 1.1, entries lack ``_FIRST_ROW_ID`` before 1.3.
"""
from __future__ import annotations

from collections.abc import Mapping

from fileindex.container.writer import FORMAT_VERSION_OPTION
from fileindex.errors import UsageError
from fileindex.writing.options import COLUMNS_SUFFIX, PREFIX, one_type_notes

FLOORS = ("0.9", "1.0", "1.1", "1.3")
# the first release reading each index type
INDEX_SINCE = {"bloom-filter": "0.9", "bitmap": "0.9", "bsi": "1.0", "range-bitmap": "1.3"}
BITMAP_V2_SINCE = "1.1"


def floor_of(entry_fields: set[str], list_fields: set[str]) -> str:
    if "_VALUE_STATS_COLS" not in entry_fields:
        return "0.9"
    if "_MIN_BUCKET" not in list_fields:
        return "1.0"
    if "_FIRST_ROW_ID" not in entry_fields:
        return "1.1"
    return "1.3"


def _before(floor: str, release: str) -> bool:
    return FLOORS.index(floor) < FLOORS.index(release)


def reader_defaults(options: Mapping[str, str], floor: str | None) -> dict[str, dict[str, str]]:
    """Per index type, the index options a writer must default to for the floor's reader to read what it
    writes (bitmap version 1 below 1.1, which is what Java of that version writes); a UsageError naming the
    option for what it cannot read. ``floor`` None: no check (``--compat none``). Defaults, rather than
    option keys added to the table's: the set of option keys decides the order of Java's containers."""
    if floor is None:
        return {}
    hint = f"the table's manifests say Paimon {floor} may read it; --compat none (or a newer floor) overrides"
    if str(options.get(FORMAT_VERSION_OPTION, "1")).strip() != "1":
        raise UsageError(f"{FORMAT_VERSION_OPTION}={options[FORMAT_VERSION_OPTION]}: no Paimon release reads "
                         f"container version 2; reset it ({hint})")
    defaults: dict[str, dict[str, str]] = {}
    for key, value in options.items():
        if not (key.startswith(PREFIX) and key.endswith(COLUMNS_SUFFIX)):
            continue
        index_type = key[len(PREFIX):-len(COLUMNS_SUFFIX)]
        since = INDEX_SINCE.get(index_type)
        if since is None or _before(floor, since):
            first = f"Paimon {since}" if since else "no Paimon release"
            raise UsageError(f"{key}: {first} reads {index_type} indexes, older than that cannot (a filtered scan "
                             f"fails on the whole table); reset the option ({hint})")
        if index_type == "bitmap" and _before(floor, BITMAP_V2_SINCE):
            for column in (c.strip() for c in value.split(",")):
                version_key = f"{PREFIX}bitmap.{column}.version"
                if str(options.get(version_key, "1")).strip() != "1":
                    raise UsageError(f"{version_key}={options[version_key]}: Paimon {BITMAP_V2_SINCE} is the first "
                                     f"to read bitmap version 2; set it to 1 ({hint})")
            defaults["bitmap"] = {"version": "1"}
    return defaults


def writer_notes(options: Mapping[str, str], floor: str, writer: str | None) -> list[str]:
    """What the table's Java writers cannot honour, each with the release that can: an index type newer
    than the release that wrote its manifests (``floor``: every Java append then fails,
    :func:`unwritable_types`), and a column listed under several types where ``writer`` writes one
    (:func:`one_type_notes`). The words both ``table --set`` and ``rewrite`` print."""
    return unwritable_types(options, floor) + one_type_notes(options, writer)


def unwritable_types(options: Mapping[str, str], floor: str) -> list[str]:
    """One line per ``file-index.<type>.columns`` option whose index type the release that wrote the table's
    manifests (``floor``) cannot write: each append of those writers fails on it."""
    notes = []
    for key in options:
        if key.startswith(PREFIX) and key.endswith(COLUMNS_SUFFIX):
            index_type = key[len(PREFIX):-len(COLUMNS_SUFFIX)]
            since = INDEX_SINCE.get(index_type)
            if since is not None and _before(floor, since):
                notes.append(f"{key}: the table's writers (Paimon {floor}, from its manifests) cannot write "
                             f"{index_type} indexes, so each of their appends fails (\"Can't find file index for "
                             f"type: {index_type}\"); Paimon {since} is the first that can")
    return notes
