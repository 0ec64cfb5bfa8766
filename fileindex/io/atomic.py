"""Writing a file so that readers see either nothing or all of it: a temporary name, then a rename.

A writer that dies (a failed or killed Spark task, a full disk) leaves at most a hidden temporary
file, never a partial file under the final name; a retried writer replaces it whole.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


def write_atomically(path: str | Path, data: bytes, *, overwrite: bool = True,
                     before_rename: Callable[[Path], None] | None = None) -> bool:
    """Write ``data`` to ``path``; False (nothing written) when it exists and ``overwrite`` is off.

    ``before_rename`` is called with the complete temporary file just before it takes the final
    name (tests use it to fail a writer at the worst moment).
    """
    target = Path(path)
    if not overwrite and target.exists():
        return False
    temporary = target.with_name(f".{target.name}.{os.urandom(16).hex()}.tmp")
    try:
        with open(temporary, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if before_rename is not None:
            before_rename(temporary)
        if overwrite:
            os.replace(temporary, target)
        else:
            try:
                os.link(temporary, target)  # fails if another writer got there first
            except FileExistsError:
                return False
            except OSError:  # a file system without hard links: the check above has to do
                os.replace(temporary, target)
            finally:
                temporary.unlink(missing_ok=True)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return True


@contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """A temporary name beside ``path`` for a writer that needs a path (Parquet); renamed to ``path``
    when the block completes, removed when it fails."""
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{os.urandom(16).hex()}.tmp")
    try:
        yield temporary
        with open(temporary, "rb+") as written:
            os.fsync(written.fileno())
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
