"""A data file's answer, from its index's result: within the rows its deletion vector keeps (Java's
``FileIndexEvaluator``), and the notes of a file whose index could not be used."""
from __future__ import annotations

from fileindex.frozen import replace
from typing import cast

from pyroaring import FrozenBitMap

from fileindex.errors import FileIndexError, SchemaMisfitError
from fileindex.indexes.result import REMAIN, SKIP, FileIndexResult, Rows
from fileindex.table.metadata import ManifestEntry
from fileindex.table.names import external_scheme, readable_external
from fileindex.table.verdict import FileVerdict

MAX_INDEXED_ROWS = 2**31 - 1


def missing_note(entry: ManifestEntry) -> str:
    """Why a data file cannot be read, as a verdict's note."""
    if entry.external_path and not readable_external(entry.external_path):
        return f"data file is on {external_scheme(entry.external_path)}:// storage, not readable here"
    return "data file is missing"


def index_problem(err: FileIndexError) -> str:
    """The note of a file answered REMAIN because its index could not be read under the table's types."""
    return f"index built for another type: {err}" if isinstance(err, SchemaMisfitError) else f"corrupt index: {err}"


def past_rows(result: FileIndexResult, row_count: int) -> bool:
    """Does the index's result name a row at or past the row count a table's manifest gives the file? Then the
    two disagree about the file and the index cannot rule out a row: cut to the manifest's rows, it dropped the
    file's rows past them unread (the read checks the file's own row count against the manifest's)."""
    return isinstance(result, Rows) and bool(result.bitmap) and result.bitmap.max() >= row_count


def past_rows_note(result: FileIndexResult, row_count: int) -> str:
    return (f"index not used: it names row {cast(Rows, result).bitmap.max()}, past the {row_count} rows the "
            "manifest records")


def within(result: FileIndexResult, selection: FrozenBitMap) -> FileIndexResult:
    """Java's FileIndexEvaluator: result ∩ kept rows; all kept rows → REMAIN, none → SKIP."""
    if result is SKIP or not selection:
        return SKIP
    rows = selection if result is REMAIN else cast(Rows, result).bitmap & selection
    if rows == selection:
        return REMAIN
    return Rows(rows) if rows else SKIP


def within_live(verdict: FileVerdict, live: FrozenBitMap) -> FileVerdict:
    """``verdict`` (its index's result over the whole file) ``within`` the rows not deleted; where the index
    kept rows and every one is deleted, the verdict says how many (the deletion vector ruled the file out)."""
    result = within(verdict.result, live)
    if result is SKIP and verdict.result is not SKIP:
        return replace(verdict, result=SKIP, kept_before_deletes=verdict.kept_rows)
    return replace(verdict, result=result)


def within_all(result: FileIndexResult, row_count: int) -> FileIndexResult:
    """``within`` the file's every row (no deletion vector), without building a bitmap of them all."""
    if result is SKIP or row_count == 0:
        return SKIP
    if result is REMAIN:
        return REMAIN
    bitmap = cast(Rows, result).bitmap
    if bitmap and bitmap.max() >= row_count:  # positions past the file's end are not rows of it
        return within(result, FrozenBitMap(range(row_count)))
    if len(bitmap) == row_count:
        return REMAIN
    return result if bitmap else SKIP
