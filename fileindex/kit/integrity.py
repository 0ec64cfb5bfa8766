"""A corpus folder holds exactly the files its ``manifest.json`` lists, with the listed SHA-256s and
sizes (``sizes``: corpora exported before it was added are checked by SHA-256 alone).

Checked before the first adapter call: a file the manifest does not list, a listed file that is
missing, altered (another size or SHA-256) or over the size limit, and anything that is not a
regular file or a folder (a symlink, a device, a pipe) fails the run naming it.
"""
from __future__ import annotations

from collections.abc import Iterator

import os
import stat
from pathlib import Path

from fileindex.confined import MAX_FILE_BYTES, kind_of, sha256_regular
from fileindex.errors import ConfinementError

MANIFEST = "manifest.json"  # the one file the manifest cannot list


def verify_files(folder: Path, manifest: dict, *, limit: int = MAX_FILE_BYTES) -> int:
    """How many files were checked; a ConfinementError naming the first file that is not as listed."""
    listed = manifest.get("files")
    if not isinstance(listed, dict) or not all(isinstance(v, str) for v in listed.values()):
        raise ConfinementError(f"{folder / MANIFEST} lists no files with their SHA-256 (\"files\": {{path: sha256}})")
    sizes = manifest.get("sizes")
    if sizes is not None and (not isinstance(sizes, dict) or set(sizes) != set(listed)):
        raise ConfinementError(f"{folder / MANIFEST}: \"sizes\" does not give the size of every file \"files\" lists")
    found = set()
    for path in sorted(_walk(folder)):
        name = path.relative_to(folder).as_posix()
        if name == MANIFEST:
            continue
        if name not in listed:
            raise ConfinementError(f"{path}: a file {MANIFEST} does not list (an unlisted file in the corpus)")
        if sizes is not None and os.lstat(path).st_size != sizes[name]:
            raise ConfinementError(f"{path}: altered: {os.lstat(path).st_size:,} bytes where {MANIFEST} lists "
                                   f"{sizes[name]:,}")
        digest, size = sha256_regular(path, what="corpus file", limit=limit)
        if digest != listed[name].lower():
            raise ConfinementError(f"{path}: altered: its SHA-256 ({size:,} bytes) is {digest}, {MANIFEST} lists "
                                   f"{listed[name]}")
        found.add(name)
    missing = sorted(set(listed) - found)
    if missing:
        raise ConfinementError(f"{folder / missing[0]}: listed in {MANIFEST} but missing"
                               + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))
    return len(found)


def _walk(folder: Path) -> Iterator[Path]:
    """Every regular file under ``folder``; anything else but a folder is refused by name."""
    for base, folders, files in os.walk(folder, followlinks=False):
        for name in folders + files:
            path = Path(base, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISDIR(mode):
                continue
            if not stat.S_ISREG(mode):
                raise ConfinementError(f"{path} is {kind_of(mode)}: a corpus holds only regular files and folders")
            yield path
