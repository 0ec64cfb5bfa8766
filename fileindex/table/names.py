"""What a table's metadata may name, and where the files it names may be (table spec §5, §7).

A table is often someone else's: its manifests decide which files are read and, for ``rewrite``,
where new files go. So every name the metadata gives (a data file, an extra file, a manifest, a
manifest list, an index file, statistics) is a plain file name, joined to the folder Paimon's layout
puts it in; anything else is malformed metadata, refused before a byte is read or written. The one
legitimate way for a table to name a file elsewhere is an external path (Paimon 1.1+
``_EXTERNAL_PATH``): an absolute URI, read here when its scheme is ``file``.

Symlinks are the other way out: ``inside`` checks a path, after resolving them, against the table root.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from fileindex.io.locations import OBJECT_STORES, SCHEMES, UriPath, parse_location
from fileindex.table.errors import UnsafeNameError

MAX_NAME_BYTES = 255  # NAME_MAX of POSIX file systems: no real file has a longer name
MAX_EXTERNAL_PATH_BYTES = 4096  # PATH_MAX
READABLE_SCHEMES = ("file", "")  # "": an absolute path without a scheme
STORE_SCHEMES = tuple(scheme for scheme, store in SCHEMES.items() if store in OBJECT_STORES)  # read by the store

_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\]")


def name_problem(name: str) -> str | None:
    """Why ``name`` is not a plain file name (None: it is one)."""
    if not name:
        return "is empty"
    if name in (".", ".."):
        return f"is {name!r}"
    found = _UNSAFE.search(name)
    if found is not None:
        char = found.group()
        return "holds a path separator" if char in "/\\" else f"holds the control character {char!r}"
    if len(name.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        return f"is longer than {MAX_NAME_BYTES} bytes"
    return None


def whole_number(text: str) -> bool:
    """Whether ``text`` is a whole number as a table writes one: ASCII digits (``str.isdigit`` takes '²' too,
    which ``int`` refuses)."""
    return text.isascii() and text.isdigit()


def plain_name(name: str, where: str, field: str) -> str:
    """``name`` if it is a plain file name, else an UnsafeNameError naming where it was read."""
    problem = name_problem(name)
    if problem is not None:
        raise UnsafeNameError(f"{where}: {field} {shown_value(name)} {problem}: a table names its files by plain "
                              "names (malformed metadata; nothing was read or written)")
    return name


def external_path(value: str, where: str, field: str) -> str:
    """``value`` if it is an absolute URI (``scheme:/…``), as Paimon writes external paths, or an absolute
    path (Hadoop's default file system: local here)."""
    problem = None
    if len(value.encode("utf-8", "surrogatepass")) > MAX_EXTERNAL_PATH_BYTES:
        problem = f"is longer than {MAX_EXTERNAL_PATH_BYTES} bytes"
    elif re.search(r"[\x00-\x1f\x7f]", value):
        problem = "holds a control character"
    else:
        parts = urlsplit(value)
        if len(parts.scheme) == 1 or not parts.path.startswith("/"):  # (one letter: a Windows drive)
            problem = "is not an absolute URI (scheme:/path) or path"
        elif ".." in unquote(parts.path).split("/"):
            problem = "holds a '..' segment"
    if problem is not None:
        raise UnsafeNameError(f"{where}: {field} {shown_value(value)} {problem}: Paimon writes an external path as an "
                              "absolute URI (malformed metadata; nothing was read or written)")
    return value


def external_scheme(value: str) -> str:
    return urlsplit(value).scheme.lower()


def on_store(value: str) -> bool:
    """Whether an external path (or a folder of them) names an object store (``s3://``, ``gs://``, ``abfs://``...):
    read through that store, where the caller allows its folder."""
    return external_scheme(value) in STORE_SCHEMES


def readable_external(value: str) -> bool:
    """Whether an external path is on storage this reader opens: the local disk or an object store."""
    return external_scheme(value) in READABLE_SCHEMES or on_store(value)


def local_external_path(value: str) -> Path:
    """The local path of an external ``file:`` URI; an UnsafeNameError for a scheme this reader cannot open."""
    parts = urlsplit(value)
    if parts.scheme.lower() not in READABLE_SCHEMES or parts.netloc not in ("", "localhost"):
        raise UnsafeNameError(f"external path {shown_value(value)}: {parts.scheme}:// storage is not readable here "
                              f"(this reader opens local paths and file: URIs)")
    return Path(unquote(parts.path))


def inside(root: str | Path | UriPath, path: str | Path | UriPath, what: str, *, real_root: str | None = None) -> Any:
    """``path`` when it lies inside ``root`` after resolving symlinks (both sides), else an UnsafeNameError
    (``real_root``: the root resolved already, by a caller that checks many paths against it).
    On a store reached by URI (no links) ``path`` is compared with ``root`` by bucket and key."""
    if isinstance(root, UriPath):
        if not root.location.contains(parse_location(str(path))):
            raise UnsafeNameError(f"{what} {path} lies outside the table ({root}): refused; nothing was read or "
                                  "written there")
        return path if isinstance(path, UriPath) else UriPath(str(path))
    real_root, real_path = real_root or os.path.realpath(root), os.path.realpath(path)
    if real_path != real_root and not real_path.startswith(real_root.rstrip(os.sep) + os.sep):
        raise UnsafeNameError(f"{what} {path} leads outside the table (to {real_path}, through a symlink): "
                              "refused; nothing was read or written there")
    return Path(path)


def shown_value(value: str) -> str:
    """A value from a table (or its user) in a message: quoted, and cut to a line's length."""
    return repr(value if len(value) <= 80 else value[:77] + "...")
