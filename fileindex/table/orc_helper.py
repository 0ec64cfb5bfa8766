"""Reading ORC metadata files in a helper process, so that a reader crash never takes the caller down.

Apache ORC's C++ reader (under pyarrow) crashes the process on some corrupt files (a single flipped
bit in 27 of 363 mutated manifests), and a conformance tool is run on broken tables. ``orc_rows``
sends each file's bytes (read by the caller through its table's store) to one long-lived helper and
gets its rows back; a crash is reported as a ValueError and the next call starts a new helper.

The helper is this module run as a program (``python -m fileindex.table.orc_helper``), not a
multiprocessing worker: multiprocessing's spawn and forkserver starts import the caller's
``__main__``, which re-runs the top level of a user's script that has no ``if __name__ ==
"__main__"`` guard (a PySpark driver script, a notebook exported as a script). Requests and answers
are length-prefixed pickles over the helper's stdin and stdout.
"""
from __future__ import annotations

import atexit
import os
import pickle
import struct
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any, cast

_FRAME = struct.Struct("<Q")
READY = "ready"


class _Helper:
    def __init__(self) -> None:
        package_root = str(Path(__file__).resolve().parent.parent.parent)
        path = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": package_root + (os.pathsep + path if path else "")}
        self.process = subprocess.Popen([sys.executable, "-m", __name__], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        pipes = (self.process.stdin, self.process.stdout, self.process.stderr)  # all three PIPE: never None
        self.stdin, self.stdout, self.stderr = (cast(IO[bytes], pipe) for pipe in pipes)
        try:
            ready = _read_frame(self.stdout)
        except EOFError:
            ready = None
        if ready != READY:
            self.process.kill()
            error = self.stderr.read().decode(errors="replace").strip().splitlines()
            self.process.wait()
            for stream in (self.stdin, self.stdout, self.stderr):
                stream.close()
            raise OSError(f"the ORC helper process ({sys.executable} -m {__name__}) did not start: "
                          f"{error[-1] if error else 'no error shown'}")
        self.stderr.close()  # the helper sends its stderr to /dev/null once started

    def ask(self, data: bytes) -> tuple[str, object]:
        """("ok", rows) or ("error", the exception the reader raised)."""
        _write_frame(self.stdin, data)
        return _read_frame(self.stdout)

    def close(self) -> None:
        try:
            self.stdin.close()  # the helper ends at the end of its input
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        self.stdout.close()


_helper: _Helper | None = None
_lock = threading.Lock()


def orc_rows(data: bytes) -> list[dict]:
    """The rows of an ORC file's bytes, read in the helper process (started on first use, replaced after a
    crash)."""
    global _helper
    with _lock:
        if _helper is None:
            _helper = _Helper()
        try:
            status, value = _helper.ask(data)
        except (EOFError, BrokenPipeError):
            _discard()
            raise ValueError("the ORC reader crashed on it") from None
        except BaseException:  # interrupted between a request and its answer: the pipes are out of step
            _discard()
            raise
    if status == "error":
        raise cast(BaseException, value)
    return cast(list[dict], value)


def _discard() -> None:
    global _helper
    if _helper is not None:
        _helper.close()
    _helper = None


def _forked() -> None:
    global _helper, _lock
    _helper, _lock = None, threading.Lock()  # the parent's helper and lock stay the parent's


os.register_at_fork(after_in_child=_forked)


@atexit.register
def _close() -> None:
    if _helper is not None:
        try:
            _helper.close()
        except KeyboardInterrupt:  # (an interrupt at exit: the helper ends with its input anyway)
            _helper.process.kill()


def _write_frame(stream: IO[bytes], value: object) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_FRAME.pack(len(data)) + data)
    stream.flush()


def _read_frame(stream: IO[bytes]) -> Any:
    header = stream.read(_FRAME.size)
    if len(header) < _FRAME.size:
        raise EOFError
    (size,) = _FRAME.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


def _answer(data: bytes) -> tuple[str, Any]:
    import pyarrow as pa
    import pyarrow.orc

    try:
        orc = pyarrow.orc.ORCFile(pa.BufferReader(data))
        if orc.nrows > len(data):  # every metadata row names a file: none takes under a byte
            return "error", ValueError(f"the file claims {orc.nrows} rows in {len(data)} bytes")
        table = orc.read()
        return "ok", table.cast(_in_microseconds(table.schema), safe=False).to_pylist()
    except Exception as err:  # returned to the caller, whose boundary turns it into a TableError
        try:
            pickle.dumps(err)
        except Exception:
            err = ValueError(f"{type(err).__name__}: {err}")
        return "error", err


def _in_microseconds(schema: Any) -> Any:
    """``schema`` with ORC's nanosecond timestamps (a manifest's ``_CREATION_TIME``, written in milliseconds) in
    microseconds: rows of Python datetimes, never pandas Timestamps, which a caller without pandas cannot unpickle."""
    import pyarrow as pa

    def plain(data_type: Any) -> Any:
        if pa.types.is_timestamp(data_type) and data_type.unit == "ns":
            return pa.timestamp("us", data_type.tz)
        if pa.types.is_struct(data_type):
            return pa.struct([field.with_type(plain(field.type)) for field in data_type])
        if pa.types.is_list(data_type):
            return pa.list_(data_type.value_field.with_type(plain(data_type.value_type)))
        if pa.types.is_map(data_type):
            return pa.map_(data_type.key_field.with_type(plain(data_type.key_type)),
                           data_type.item_field.with_type(plain(data_type.item_type)))
        return data_type

    return pa.schema([field.with_type(plain(field.type)) for field in schema], metadata=schema.metadata)


def serve(requests: IO[bytes], answers: IO[Any]) -> None:
    import faulthandler

    faulthandler.disable()  # a crash here is reported by the caller, not dumped on stderr
    import pyarrow.orc  # noqa: F401  (loaded before the caller is told the helper is ready)

    answers = os.fdopen(os.dup(answers.fileno()), "wb")  # nothing a library prints can reach the caller
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    _write_frame(answers, READY)
    while True:
        try:
            data = _read_frame(requests)
        except EOFError:
            return
        _write_frame(answers, _answer(data))


if __name__ == "__main__":
    serve(sys.stdin.buffer, sys.stdout)
