"""Outputs never destroy inputs: the checks every writing option makes before anything starts, and a
folder written whole or not at all.

``check_output`` refuses an output that is, contains or lies inside any input (paths compared after
resolving symlinks, ``..`` and trailing slashes), and an existing non-empty output unless the user
asked to overwrite it and an earlier run of the same command wrote all of it (its ``OUTPUT_MARK`` names the
command and lists what the run wrote: ``--overwrite`` of a folder of one's own, mistyped, of an earlier output
one added a file to, or of another command's output (a ``spark verify --report`` over a ``demo --workdir``),
would remove what this command never wrote). ``replacing_folder`` gives the writer a hidden sibling folder,
marks it, and renames it to the output only when the writer completes, so a failed job leaves the old output
(or none) intact.
"""
from __future__ import annotations

import glob
import os
import shutil
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from fileindex.ending import remove_folder
from fileindex.errors import UsageError

OUTPUT_MARK = ".fileindex-output"  # in every folder replacing_folder writes (hidden: Spark and Arrow skip it)
# the mark's first line, naming the command between them ("written by fileindex; ..." before it was named)
_MARK_START = "written by fileindex"
_MARK_END = "; --overwrite replaces this folder, which held these names when written:"


def real(path: str | Path) -> Path:
    """The path as the file system will use it: absolute, symlinks and ``..`` resolved (also for a
    path that does not exist yet)."""
    return Path(os.path.realpath(os.path.expanduser(str(path))))


def input_paths(inputs: Iterable[str | None]) -> list[str]:
    """The inputs a job was given, with globs expanded to what they match (None entries dropped)."""
    paths: list[str] = []
    for given in inputs:
        if given is None:
            continue
        paths += sorted(glob.glob(given, recursive=True)) if any(ch in given for ch in "*?[") else [given]
    return paths


def collision(output: str | Path, inputs: Iterable[str | Path]) -> tuple[str, str] | None:
    """(how ``output`` collides, the input it collides with) for the first input that it is, contains
    or lies inside; None when it touches none."""
    target = real(output)
    for given in inputs:
        source = real(given)
        if target == source:
            return "is", str(given)
        if source.is_relative_to(target):
            return "contains", str(given)
        if target.is_relative_to(source):
            return "lies inside", str(given)
    return None


def check_apart(output: str | Path, inputs: Iterable[str | Path], *, what: str) -> None:
    """Refuse an output (named by option ``what``) that is, contains or lies inside an input."""
    found = collision(output, inputs)
    if found is not None:
        how, given = found
        raise UsageError(f"{what} {output} {how} {'the ' if how == 'is' else ''}input {given}: writing there "
                         "would replace or mix with what the job reads; choose a folder outside every input")


def check_file_output(output: str | Path, inputs: Iterable[str | Path], *, what: str) -> None:
    """Refuse an output file (named by option ``what``, a report) that is a symlink or a folder, lies
    in a folder that does not exist, or is, or lies inside, an input."""
    target = Path(output)
    if target.is_symlink():
        raise UsageError(f"{what} {output} is a symlink: name a plain file (a report is never written through a link)")
    if not real(target).parent.is_dir():
        raise UsageError(f"{what} {output}: cannot write there: the folder {target.parent} does not exist")
    if target.is_dir():
        raise UsageError(f"{what} {output}: is a folder; give a file name")
    check_apart(output, inputs, what=what)


def write_file_output(output: str | Path, content: str | bytes) -> None:
    """``content`` (text as UTF-8) written to a file ``check_file_output`` accepted, never through a
    symlink put there since."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(output, flags, 0o644), "wb") as out:
        out.write(content.encode("utf-8") if isinstance(content, str) else content)


def check_output(output: str | Path, inputs: Iterable[str | Path], *, overwrite: bool, what: str,
                 command: str) -> None:
    """Refuse, saying what to do instead, an output folder (named by option ``what`` of ``command``) that
    would destroy data: one that is, contains or lies inside an input, or an existing non-empty one unless
    ``overwrite`` (and then not one holding the current folder, nor one another command wrote)."""
    check_apart(output, inputs, what=what)
    target = real(output)
    if os.path.lexists(target) and not target.is_dir():
        raise UsageError(f"{what} {output} is a file, not a folder: name a folder for the output (--overwrite "
                         "replaces a folder, never a file)")
    if is_empty(target):
        return
    if not overwrite:
        raise UsageError(f"{what} {output} exists and is not empty; pass --overwrite to replace it, or choose "
                         "another folder")
    refuse_unmarked(target, f"{what} {output}", f"{command} {what}")
    if Path.cwd().resolve().is_relative_to(target):
        raise UsageError(f"{what} {output} holds the current folder, which replacing it would remove: "
                         "choose another folder")


def refuse_unmarked(target: Path, named: str, writer: str) -> None:
    """Refuse to replace a non-empty folder another command wrote (``writer``: ``spark scan --output``), or
    holding a name no earlier output of this package wrote there (one its ``OUTPUT_MARK`` does not list; all of
    them without a mark)."""
    if is_empty(target):
        return
    wrote, written = _read_mark(target)
    if wrote is not None and wrote != writer:
        raise UsageError(f"{named} is the output of fileindex {wrote}: --overwrite replaces only an earlier "
                         f"output of fileindex {writer}; choose another folder")
    unwritten = sorted(name for name in os.listdir(target) if name != OUTPUT_MARK and name not in written)
    if unwritten:
        raise UsageError(f"{named} holds files an earlier run did not write (such as {unwritten[0]}): --overwrite "
                         "replaces only what fileindex wrote; choose another folder, or empty this one yourself")


def _read_mark(folder: Path) -> tuple[str | None, set[str]]:
    """The command an earlier run's ``OUTPUT_MARK`` names (None for an older mark, which names none, or no
    readable mark) and the names it lists (none without a readable mark)."""
    try:
        lines = (folder / OUTPUT_MARK).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None, set()
    if not lines or not (lines[0].startswith(_MARK_START) and lines[0].endswith(_MARK_END)):
        return None, set()
    return lines[0][len(_MARK_START):-len(_MARK_END)].strip() or None, set(lines[1:])


def mark_written(folder: Path, writer: str) -> None:
    """Mark ``folder`` as an output ``writer`` (``spark scan --output``) wrote, listing what it holds (what
    ``--overwrite`` by the same command may replace)."""
    names = sorted(name for name in os.listdir(folder) if name != OUTPUT_MARK)
    (folder / OUTPUT_MARK).write_text("\n".join([f"{_MARK_START} {writer}{_MARK_END}", *names]) + "\n",
                                      encoding="utf-8")


def is_empty(path: Path) -> bool:
    """Nothing there, or an empty folder."""
    if path.is_dir():
        return not any(path.iterdir())
    return not os.path.lexists(path)


@contextmanager
def replacing_folder(output: str | Path, *, overwrite: bool, what: str, command: str,
                     mark: bool = True) -> Iterator[Path]:
    """A new hidden folder beside ``output`` (option ``what`` of ``command``) to write into; it becomes
    ``output`` when the block completes (an existing output is replaced only with ``overwrite``, and only one
    the same command wrote) and is removed when it fails. ``mark``: with its ``OUTPUT_MARK`` (not in a folder
    that must hold what it lists alone, a kit corpus)."""
    target = real(output)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    temporary.mkdir()
    try:
        yield temporary
        if mark:
            mark_written(temporary, f"{command} {what}")
        if not overwrite and not is_empty(target):  # written meanwhile by someone else
            raise UsageError(f"{output} appeared while the job ran; pass --overwrite to replace it")
        refuse_unmarked(target, f"{what} {output}", f"{command} {what}")
        _swap_in(temporary, target)
    finally:  # (on Ctrl-C, once the processes writing into it have ended)
        remove_folder(temporary)


def _swap_in(temporary: Path, target: Path) -> None:
    """Rename ``temporary`` to ``target``; an existing target is moved aside first and removed only
    once the new folder is in place (put back if the rename fails)."""
    aside = None
    if os.path.lexists(target):
        aside = target.with_name(f".{target.name}.{uuid.uuid4().hex}.old")
        os.rename(target, aside)
    try:
        os.rename(temporary, target)
    except BaseException:
        if aside is not None:
            os.rename(aside, target)
        raise
    if aside is not None:
        if aside.is_dir() and not aside.is_symlink():
            shutil.rmtree(aside)
        else:
            aside.unlink()
