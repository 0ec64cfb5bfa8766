"""A data file's answer to a predicate: the one shape the table scan, the pipeline's scans and pruning
funnel, the Spark jobs and data source, the reports and the JSON output share.

``as_dict`` is the JSON of ``fileindex table --where … --json`` (a line per file); ``as_row`` the row a
Spark job returns per file (its ``candidates`` the serialized Roaring bitmap of a ``ROWS`` answer).
"""
from __future__ import annotations

from fileindex.frozen import frozen

from fileindex.indexes.result import REMAIN, SKIP, FileIndexResult, Rows, result_json


# how the notes of the problems met begin (``scan.verdicts``, ``scan.table``)
PROBLEMS = ("corrupt", "index file", "more than", "data file", "index not used: corrupt")


def is_problem(note: str) -> bool:
    """Whether a file's note is a problem met (an index or data file missing, corrupt or unreadable here), not a
    reason its index did not apply (``FileVerdict.has_problem``, ``table --indexes``)."""
    return note.startswith(PROBLEMS)


@frozen
class FileVerdict:
    file: str  # relative to the table root, or the external path (a plain data file: its path)
    row_count: int  # rows in the file
    index: str  # where its index lives: "embedded", "sidecar" or "none" ("" where not looked at)
    result: FileIndexResult  # within the rows not deleted
    note: str = ""  # why the index was not used, or a problem met
    exact: bool = False  # the result's rows are exactly the matching ones (asked for: ``PaimonTable.verdicts``)
    # a SKIP by the deletion vector alone: the rows the index kept, every one of them deleted (None otherwise)
    kept_before_deletes: int | None = None

    @property
    def has_problem(self) -> bool:
        return is_problem(self.note)

    @property
    def kept_rows(self) -> int:
        if self.result is SKIP:
            return 0
        return self.result.cardinality if isinstance(self.result, Rows) else self.row_count

    def as_dict(self) -> dict:
        """``{"file", "row_count", "index", "result"[, "cardinality", "ranges"][, "note"]}``"""
        out = {"file": self.file, "row_count": self.row_count, "index": self.index, **result_json(self.result)}
        if self.note:
            out["note"] = self.note
        return out

    @classmethod
    def from_row(cls, row: dict) -> FileVerdict:
        """The verdict of an ``as_row`` row (what a Spark job sends back)."""
        from pyroaring import BitMap

        result = Rows(BitMap.deserialize(row["candidates"])) if row["result"] == "ROWS" else \
            SKIP if row["result"] == SKIP.kind else REMAIN
        return cls(row["file"], row["rows"], row["index"], result, row["note"] or "",
                   kept_before_deletes=row.get("kept_before_deletes"))

    def as_row(self) -> dict:
        """The flat row of a Spark job: ``file, rows, index, result, candidates, note, kept_before_deletes``."""
        result = self.result
        return {"file": self.file, "rows": self.row_count, "index": self.index, "result": result.kind,
                "candidates": result.bitmap.serialize() if isinstance(result, Rows) else None, "note": self.note,
                "kept_before_deletes": self.kept_before_deletes}


def summarize(verdicts: list[FileVerdict]) -> dict:
    kept = [v for v in verdicts if v.result is not SKIP]
    return {"files": len(verdicts), "files_kept": len(kept), "rows": sum(v.row_count for v in verdicts),
            "rows_kept": sum(v.kept_rows for v in verdicts),
            "problems": sum(1 for v in verdicts if v.has_problem)}
