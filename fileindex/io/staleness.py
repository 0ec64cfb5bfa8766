"""Whether a plain data file's index was built from the file as it is now.

A data file rewritten after its sidecar was built: the index answers for the old rows, and a scan trusting it drops
rows the file holds now. Nothing in an index records its data file's bytes (a body may record the row count, which the
evaluator checks), so ``build`` writes a source record beside the sidecar (``<sidecar>.source.json``, never inside it:
the Paimon container has no field for it): the size and SHA-256 of the data file and of the sidecar, and their
modification times. A record that describes the sidecar decides: the data file holds the bytes the index was built
from, or it is stale whatever the times (a copy that does not keep times keeps using its index; a rewrite is stale
even when its sidecar is newer). The hashes are what a record is judged by; its times only spare hashing the files,
and only where the time check passes as well, so a record (however wrong) can never bring into use a sidecar that the
times alone would not use unless the files' bytes match it: a wrong record costs reading the file whole, never a row.
A build that keeps a sidecar its record told by hashing (a copy's) renews the record and the sidecar's time.
Without a record (or with one that cannot be read or describes another sidecar: ignored, with a
:class:`SourceRecordWarning`), the modification times tell: a sidecar older than its data file is stale.
"""
from __future__ import annotations

import json
import os
import re
import warnings
from pathlib import Path

from fileindex.frozen import frozen
from fileindex.io.atomic import write_atomically

RECORD_SUFFIX = ".source.json"
RECORD_FORMAT = "fileindex-source-record/1"
RECORD_LIMIT = 4096  # bytes: a record is about 400; a longer file is not one
_SHA256 = re.compile(r"[0-9a-f]{64}")


class SourceRecordWarning(UserWarning):
    """A sidecar's source record that is ignored (unreadable, malformed, or of another sidecar): the times decide."""


@frozen
class FileSeen:
    """What identifies a file's bytes (size, SHA-256), and the modification time it had then."""

    size: int
    mtime_ns: int
    sha256: str

    @classmethod
    def of(cls, path: str | Path) -> FileSeen:
        """The file as it is now (read whole to hash it)."""
        import hashlib  # (OpenSSL: imported by what hashes, not by every scan that imports this module)

        with open(path, "rb") as file:
            stat = os.fstat(file.fileno())
            return cls(stat.st_size, stat.st_mtime_ns, hashlib.file_digest(file, "sha256").hexdigest())

    def as_dict(self) -> dict:
        return {"size": self.size, "mtime_ns": self.mtime_ns, "sha256": self.sha256}

    def holds(self, path: str | Path, stat: os.stat_result, *, trust_time: bool) -> bool:
        """Whether the file at ``path`` (its ``stat`` now) has these bytes: by its time where ``trust_time`` and
        the time is the one seen (a rewrite gives a file a new one), else by hashing it."""
        if stat.st_size != self.size:
            return False
        if trust_time and stat.st_mtime_ns == self.mtime_ns:
            return True
        return FileSeen.of(path).sha256 == self.sha256


def record_path(index_file: str | Path) -> Path:
    """Where the source record of a sidecar lies: beside it."""
    return Path(f"{index_file}{RECORD_SUFFIX}")


def write_source_record(data_file: str | Path, index_file: str | Path, data: FileSeen) -> None:
    """Record that ``index_file`` (just written) was built from ``data_file`` as ``data`` saw it (before reading it);
    no record (and none left) when the data file changed since (the index may hold rows of either)."""
    record = record_path(index_file)
    stat = os.stat(data_file)
    if (stat.st_size, stat.st_mtime_ns) != (data.size, data.mtime_ns):
        record.unlink(missing_ok=True)
        return
    text = json.dumps({"format": RECORD_FORMAT, "data": data.as_dict(), "index": FileSeen.of(index_file).as_dict()})
    write_atomically(record, text.encode())


def read_source_record(index_file: str | Path) -> tuple[FileSeen, FileSeen] | None:
    """(the data file, the sidecar) as the sidecar's record saw them, or None: no record, or one ignored with a
    :class:`SourceRecordWarning` naming why."""
    record = record_path(index_file)
    try:
        with open(record, "rb") as file:
            return _parsed(file.read(RECORD_LIMIT + 1))
    except FileNotFoundError:
        return None
    except OSError as err:
        _ignored(record, err.strerror or str(err))
    except ValueError as err:  # (a JSONDecodeError names its byte, as does text that is not UTF-8)
        _ignored(record, str(err))
    except RecursionError:  # (arrays nested thousands deep: json's decoder recurses)
        _ignored(record, "nested too deep")
    return None


def _parsed(text: bytes) -> tuple[FileSeen, FileSeen]:
    if len(text) > RECORD_LIMIT:
        raise ValueError(f"longer than {RECORD_LIMIT} bytes")
    fields = json.loads(text)
    if not isinstance(fields, dict) or fields.get("format") != RECORD_FORMAT:
        raise ValueError(f"not a {RECORD_FORMAT} record")
    return _file_seen(fields.get("data")), _file_seen(fields.get("index"))


def _file_seen(fields: object) -> FileSeen:
    if not isinstance(fields, dict):
        raise ValueError("its data and index fields are not objects")
    size, mtime_ns, sha256 = fields.get("size"), fields.get("mtime_ns"), fields.get("sha256")
    if type(size) is not int or type(mtime_ns) is not int or size < 0:
        raise ValueError("a size or mtime_ns that is not a whole number")
    if not isinstance(sha256, str) or not _SHA256.fullmatch(sha256):
        raise ValueError("a sha256 that is not 64 lowercase hex digits")
    return FileSeen(size, mtime_ns, sha256)


def _ignored(record: Path, why: str) -> None:
    warnings.warn(SourceRecordWarning(f"{record}: source record ignored ({why}): the modification times decide "
                                      "whether its sidecar is stale"), stacklevel=3)


def stale_index_note(data_file: str | Path, index_file: str | Path) -> str | None:
    """Why ``index_file`` is not used for ``data_file`` (its source record says the data file's bytes are not those
    it was built from; without a record, it is older than the data file), or None (it was built from the file as it
    is, or either is not a local file: a store's objects are not compared)."""
    return judged(data_file, index_file)[0]


def judged(data_file: str | Path, index_file: str | Path) -> tuple[str | None, FileSeen | None]:
    """(``stale_index_note``; the data file as it is now, where its record told by hashing the files that the index
    was built from it: their times are not those recorded, as after a copy; ``renew_source_record`` takes it)."""
    if "://" in str(data_file) or "://" in str(index_file):
        return None, None
    try:
        data_stat, index_stat = os.stat(data_file), os.stat(index_file)
        older = index_stat.st_mtime_ns < data_stat.st_mtime_ns
        record = read_source_record(index_file)
        if record is not None and _describes(record, index_file, index_stat, trust_time=not older):
            data, index = record
            if data.holds(data_file, data_stat, trust_time=not older):
                untouched = not older and (data_stat.st_mtime_ns, index_stat.st_mtime_ns) == (data.mtime_ns,
                                                                                               index.mtime_ns)
                return None, None if untouched else FileSeen(data_stat.st_size, data_stat.st_mtime_ns, data.sha256)
            return (f"index not used: {data_file} is not the file {index_file} was built from (its size or SHA-256 "
                    f"differs from {record_path(index_file).name}: rewritten since); rebuild it"), None
    except OSError:
        return None, None  # (a missing or unreadable file is reported where it is opened)
    if not older:
        return None, None
    return (f"index not used: {index_file} is older than its data file (rewritten since the index was built); "
            "rebuild it"), None


def renew_source_record(data_file: str | Path, index_file: str | Path, data: FileSeen) -> None:
    """After ``judged`` told by hashing that ``index_file`` was built from ``data_file`` as it is (``data``): give the
    sidecar a time not older than its data file's and record the times now, so that later checks need not hash."""
    try:
        if os.stat(index_file).st_mtime_ns < data.mtime_ns:
            os.utime(index_file)
        write_source_record(data_file, index_file, data)
    except OSError:
        pass  # (a folder this process cannot write: the record stands, and later checks hash again)


def _describes(record: tuple[FileSeen, FileSeen], index_file: str | Path, stat: os.stat_result, *,
               trust_time: bool) -> bool:
    if record[1].holds(index_file, stat, trust_time=trust_time):
        return True
    _ignored(record_path(index_file), "it describes another sidecar (rewritten since, not by fileindex build)")
    return False
