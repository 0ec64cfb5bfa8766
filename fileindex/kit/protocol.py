"""The adapter contract: requests as JSON objects or as command lines, and driving an adapter command.

An adapter is one command (``--impl "COMMAND"``). The kit runs ``COMMAND capabilities`` once; if
the answer says ``"batch": true`` it starts ``COMMAND batch`` and writes one request per line on
its stdin (each with an ``id``), reading one answer per line from its stdout (each echoing the id);
otherwise it runs one command line per request (:func:`to_argv`). Requests and answers are in docs/kit.md.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any, BinaryIO

import argparse
import json
import os
import select
import shlex
import signal
import threading
import time

from fileindex.errors import UsageError
from fileindex.lazy import LazyModule

if TYPE_CHECKING:
    import subprocess
else:
    subprocess = LazyModule("subprocess")  # imported by the first peer started (every --help reads this module)

TIMEOUT = 120.0  # seconds an adapter may take for one answer
STARTUP = 30.0  # seconds ``capabilities`` may take at least (a JVM starting), whatever the timeout
LIMIT = 64 << 20  # bytes of one answer line, and of everything a one-call adapter prints for one request
STDERR_KEPT = 64 << 10  # bytes of an adapter's stderr kept (its tail, shown when it crashes)
RESTART_AFTER = 3  # protocol errors in a row after which a batch process is replaced by a new one
GIVE_UP_AFTER = 3  # answers in a row not given within the timeout, after which an adapter is asked nothing more
MAX_RESTARTS = 3  # batch restarts for protocol errors in a row (no answer between), after which none helps
NOT_JSON = "not a JSON answer"
EXIT_POLL = 0.1  # seconds between looks whether an adapter that has not closed its stdout has exited


# the fields each request holds (docs/kit.md); a write's "column", "options" and "container_version" have defaults
FIELDS = {"capabilities": (), "head": ("file",), "read": ("file", "schema", "where"), "scan": ("table", "where"),
          "rows": ("table", "where"), "write": ("dataset", "type", "index_type", "out")}


def missing_fields(request: dict) -> str | None:
    """Why a request of a known op lacks fields it holds (None when it holds them all)."""
    fields = FIELDS.get(str(request.get("op")), ())
    missing = [name for name in fields if name not in request]
    if not missing:
        return None
    return (f"the {request['op']} request has no {', '.join(json.dumps(name) for name in missing)} (a "
            f"{request['op']} request holds {', '.join(json.dumps(name) for name in fields)}: docs/kit.md)")


def to_argv(request: dict) -> list[str]:
    """A request as the arguments of a one-call adapter command line (the inverse of :func:`from_argv`)."""
    op = request["op"]
    if op == "capabilities":
        return ["capabilities"]
    if op == "head":
        return ["head", request["file"]]
    if op == "read":
        return ["read", request["file"], "--schema", json.dumps(request["schema"], ensure_ascii=False),
                "--where", json.dumps(request["where"], ensure_ascii=False)]
    if op in ("scan", "rows"):
        reach = [f for key, value in (request.get("storage_options") or {}).items()
                 for f in ("--storage-option", f"{key}={value}")]
        return [op, request["table"], "--where", json.dumps(request["where"], ensure_ascii=False), *reach]
    if op == "write":
        return ["write", "--dataset", request["dataset"], "--column", request["column"], "--type", request["type"],
                "--index-type", request["index_type"], "--options", json.dumps(request["options"]),
                "--container-version", str(request["container_version"]), "--out", request["out"]]
    raise UsageError(f"unknown request op {op!r}")


def add_request_arguments(parser: argparse.ArgumentParser) -> None:
    """The one-call command line of an adapter, as ``fileindex kit adapter`` takes it."""
    from fileindex.storage_args import add_storage_options_argument
    calls = parser.add_subparsers(dest="call", metavar="CALL", required=True)

    def call(name: str, text: str) -> argparse.ArgumentParser:  # (its --help opens with the text)
        return calls.add_parser(name, help=text, description=text)

    call("capabilities", "what this implementation reads and writes (JSON)")
    call("batch", "answer one JSON request per stdin line, one JSON answer per stdout line")
    head = call("head", "the decoded HEAD of FILE")
    head.add_argument("file")
    read = call("read", "evaluate a predicate (JSON) on FILE")
    read.add_argument("file")
    read.add_argument("--schema", required=True, help='column → Paimon type, JSON: {"c": "INT"}')
    read.add_argument("--where", required=True, help="the predicate in its structured JSON form")
    scan = call("scan", "the verdict of every live data file of TABLE for a predicate (JSON)")
    scan.add_argument("table")
    scan.add_argument("--where", required=True, help="the predicate in its structured JSON form")
    add_storage_options_argument(scan)
    rows = call("rows", "the rows a full read of TABLE returns under a predicate (JSON)")
    rows.add_argument("table")
    rows.add_argument("--where", required=True, help="the predicate in its structured JSON form")
    add_storage_options_argument(rows)
    write = call("write", "write a one-column container from a dataset")
    for option in ("--dataset", "--type", "--index-type", "--out"):
        write.add_argument(option, required=True)
    write.add_argument("--column", default="c")
    write.add_argument("--options", default="{}", help="the index's options, JSON")
    write.add_argument("--container-version", type=int, default=1)


def from_argv(args: argparse.Namespace) -> dict:
    """The request a parsed one-call command line makes (UsageError for JSON that does not read)."""
    from fileindex.storage_args import storage_options
    request: dict = {"op": args.call}
    if args.call in ("head", "read"):
        request["file"] = args.file
    if args.call == "read":
        request["schema"], request["where"] = _json(args.schema, "--schema"), _json(args.where, "--where")
    if args.call in ("scan", "rows"):
        request["table"], request["where"] = args.table, _json(args.where, "--where")
        reach = storage_options(args)
        if reach:
            request["storage_options"] = reach
    if args.call == "write":
        request.update(dataset=args.dataset, column=args.column, type=args.type, index_type=args.index_type,
                       options=_json(args.options, "--options"), container_version=args.container_version,
                       out=args.out)
    return request


def _json(text: str, option: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as err:
        form = (': give the predicate in its structured JSON form, e.g. {"function": "Equal", "column": "f0", '
                '"type": "STRING", "literals": ["Bob"]} (docs/kit.md)' if option == "--where" else "")
        raise UsageError(f"{option} is not JSON ({err}){form}") from None


class StopRun(Exception):
    """The run ends before its last check (``--budget`` spent, ``--fail-fast``): the report holds what it got."""


class Budget:
    """The time a whole run may take (None: no limit), and the time one answer may take."""

    def __init__(self, seconds: float | None = None, timeout: float = TIMEOUT):
        self.seconds, self.timeout = seconds, timeout
        self.deadline = None if seconds is None else time.monotonic() + seconds

    def limit(self, at_least: float = 0.0) -> tuple[float, bool]:
        """The seconds the next answer may take (``timeout``, or ``at_least`` when longer), and whether the
        run's budget sets them instead; StopRun once the budget is spent."""
        timeout = max(self.timeout, at_least)
        if self.deadline is None:
            return timeout, False
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise StopRun(self.spent())
        return (left, True) if left < timeout else (timeout, False)

    def spent(self) -> str:
        return f"the run's budget of {self.seconds:g} s (--budget) is spent"


class Adapter:
    """One implementation under test, driven through its command. Its processes run in a session of their
    own (a Ctrl-C at the terminal reaches the runner alone) and are killed with everything they started.
    Every exchange is bounded: a request is written, and an answer read, within the answer's time limit (an
    adapter that stops reading cannot block the runner), an answer line and a one-call adapter's output are
    at most ``LIMIT`` bytes, and of stderr only the last ``STDERR_KEPT`` bytes are kept. A batch line that is
    not JSON at all (a debug print) is skipped and counted, and the answer is the next line carrying the
    request's id, within the same time limit. A batch process that answers ``RESTART_AFTER`` requests in a row
    with lines that are no answer is replaced by a new one, ``MAX_RESTARTS`` times in a row at most (no answer
    between: then restarting does not help, and its requests are still asked and judged, at no restart's cost); an
    adapter that gives no answer within the timeout ``GIVE_UP_AFTER`` times in a row is asked nothing more (each
    later request fails at once, ``gave_up`` says why): a hung or garbled adapter costs a few timeouts or
    restarts, not one a check."""

    def __init__(self, command: str, budget: Budget | None = None):
        self.command = command
        self.budget = budget or Budget()
        self.argv = shlex.split(command)
        if not self.argv:
            raise UsageError("--impl is empty: give the adapter's command, e.g. \"fileindex kit adapter\"")
        self.process: subprocess.Popen | None = None
        self._stderr: _Tail | None = None
        self._lines: _Lines | None = None
        self._asked = 0  # the id of the last batch request
        self._protocol_errors = 0  # in a row
        self._restarts = 0  # batch processes replaced for protocol errors, with no answer between
        self.answered_with_id = 0  # batch answers that echoed their request's id
        self.lines_without_id = 0  # batch lines that carried no id
        self.lines_not_json: list[bytes] = []  # the first batch lines that were not JSON objects (a log line)
        self.count_not_json = 0
        self._timeouts = 0  # answers in a row not given within the timeout
        self._timed_out = False  # the last answer was not
        self.gave_up: str | None = None  # why the adapter is asked nothing more
        self.not_asked = 0  # requests not sent since
        self.capabilities = self._one_call({"op": "capabilities"}, at_least=STARTUP)
        failed = next((key for key in ("error", "crash", "protocol", "timeout") if key in self.capabilities), None)
        if failed is not None:
            raise UsageError(f"{command!r} capabilities did not answer: {self.capabilities[failed]}")
        self.name = str(self.capabilities.get("implementation", self.argv[0]))

    def reads(self, container_version: int, layout: str) -> bool:
        return self.unread(container_version, [layout]) is None

    def writes(self, layout: str) -> bool:
        return self.unwritten(layout) is None

    def unread(self, container_version: int, layouts: list[str]) -> str | None:
        """Why the capabilities exclude reading a container of that version holding ``layouts`` (None: they
        do not)."""
        return _undeclared(self.capabilities.get("read"), "read", container_version, layouts)

    def unwritten(self, layout: str) -> str | None:
        """Why the capabilities exclude writing ``layout`` in container version 1 (None: they do not)."""
        return _undeclared(self.capabilities.get("write"), "write", 1, [layout])

    def ask(self, request: dict) -> dict:
        """The adapter's answer; ``{"crash": why}`` when it gave none (a crash is never a conforming answer),
        ``{"timeout": why}`` when it gave none within the time limit, ``{"protocol": why}`` when a line that is
        not this request's answer came instead, ``{"unsent": why}`` when the corpus's request cannot be written as
        JSON or the adapter is asked nothing more (``gave_up``). StopRun when the run's budget ends first."""
        if self.gave_up is not None:
            self.not_asked += 1
            return {"unsent": self.gave_up}
        self._timed_out = False
        answer = self._one_call(request) if not self.capabilities.get("batch") else self._batch(request)
        self._timeouts = self._timeouts + 1 if self._timed_out else 0
        if self._timeouts >= GIVE_UP_AFTER:
            self.gave_up = (f"{self.name} gave no answer within the timeout to {GIVE_UP_AFTER} requests "
                            "in a row before it")
        return answer

    def _batch(self, request: dict) -> dict:
        limit, by_budget = self.budget.limit()
        try:
            line = json.dumps({**request, "id": self._asked + 1}, ensure_ascii=False).encode() + b"\n"
        except (ValueError, TypeError, RecursionError) as err:
            return {"unsent": f"the request cannot be written as JSON ({type(err).__name__}: {str(err)[:120]})"}
        if self.process is None or self.process.poll() is not None:
            self._start()
        assert self.process is not None and self.process.stdin is not None and self._lines is not None
        self._asked += 1
        deadline = time.monotonic() + limit
        try:
            written = _write_within(self.process.stdin.fileno(), line, deadline)
        except OSError:  # a broken pipe: it has exited
            return {"crash": self._exited()}
        if not written:
            return self._too_slow(limit, by_budget, "did not read its request")
        process = self.process
        while True:
            answer_line = self._lines.readline(deadline, lambda: process.poll() is not None)
            if answer_line is None:
                return self._too_slow(limit, by_budget, "did not answer")
            if answer_line == b"":
                return {"crash": self._exited()}
            answer = _answer(answer_line)
            if answer.get("crash", "").startswith(NOT_JSON):  # a debug print: never an answer, whatever its id
                self.count_not_json += 1
                self.lines_not_json = (self.lines_not_json + [answer_line[:80]])[:1]
                continue
            if "crash" in answer:
                return self._protocol(answer["crash"])
            got = answer.pop("id", None)
            if got == self._asked:
                self._protocol_errors = self._restarts = 0
                self.answered_with_id += 1
                return answer
            if isinstance(got, int) and not isinstance(got, bool) and 0 < got < self._asked:
                continue  # the late answer of a request already charged with a stray line: never this one's
            self.lines_without_id += got is None
            return self._protocol(f"a line that is not the answer to request {self._asked} "
                                  f"({'no id' if got is None else f'id {_short(got)}'}): {answer_line[:200]!r}")

    def _protocol(self, why: str) -> dict:
        """A protocol error for this request; the batch process is replaced after ``RESTART_AFTER`` in a row, at
        most ``MAX_RESTARTS`` times with no answer between."""
        self._protocol_errors += 1
        if self._protocol_errors >= RESTART_AFTER and self._restarts < MAX_RESTARTS:
            self._stop()
            self._protocol_errors = 0
            self._restarts += 1
            why += f"; the batch process was restarted after {RESTART_AFTER} protocol errors in a row"
        return {"protocol": why}

    @property
    def restarts_spent(self) -> bool:
        """Whether the batch process was restarted ``MAX_RESTARTS`` times with no answer since (not again)."""
        return self._restarts >= MAX_RESTARTS

    def _too_slow(self, limit: float, by_budget: bool, what: str) -> dict:
        self._stop()
        if by_budget:
            raise StopRun(self.budget.spent())
        self._timed_out = True
        return {"timeout": f"{what} within {limit:g} s (a timeout, --timeout): the batch process was stopped"}

    def _start(self) -> None:
        self.process = subprocess.Popen([*self.argv, "batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, start_new_session=True)
        assert self.process.stdin is not None and self.process.stdout is not None
        os.set_blocking(self.process.stdin.fileno(), False)
        self._lines = _Lines(self.process.stdout.fileno())
        self._stderr = _Tail(self.process.stderr)

    def _exited(self) -> str:
        """Why the batch process gave no answer: its exit status and the tail of its stderr."""
        assert self.process is not None and self._stderr is not None
        try:
            status = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            status = None
        stderr = self._stderr
        self._stop()  # (first: a process it started may hold its stderr open)
        tail = _tail(stderr.text())
        how = "closed its stdout" if status is None else f"exited with status {status}"
        return f"the batch process {how} without an answer" + (f"; stderr ends: {tail}" if tail else "")

    def _one_call(self, request: dict, at_least: float = 0.0) -> dict:
        limit, by_budget = self.budget.limit(at_least)
        try:
            argv = to_argv(request)
        except (ValueError, TypeError, RecursionError) as err:
            return {"unsent": f"the request cannot be written as JSON ({type(err).__name__}: {str(err)[:120]})"}
        try:
            process = subprocess.Popen([*self.argv, *argv], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, start_new_session=True)
        except OSError as err:
            return {"crash": str(err)}
        assert process.stdout is not None
        stderr = _Tail(process.stderr)
        deadline = time.monotonic() + limit
        try:
            last, why = _last_line(_Lines(process.stdout.fileno()), deadline, lambda: process.poll() is not None)
            if why is None:
                process.wait(timeout=max(0.01, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            why = "timeout"
        except BaseException:  # interrupted: the adapter goes too
            _kill(process)
            raise
        _kill(process)
        if why == "timeout":
            if by_budget:
                raise StopRun(self.budget.spent()) from None
            self._timed_out = True
            return {"timeout": f"did not answer within {limit:g} s (a timeout" + ("" if at_least else ", --timeout")
                               + ")"}
        if why == "too much":
            return {"crash": f"printed over {LIMIT >> 20} MiB for one request: stopped"}
        if not last:
            tail = _tail(stderr.text())
            return {"crash": f"exit status {process.returncode}, no answer on stdout"
                             + (f"; stderr ends: {tail}" if tail else "")}
        answer = _answer(last)
        return {"protocol": answer["crash"]} if "crash" in answer else answer

    def _stop(self) -> None:
        if self.process is not None:
            _kill(self.process)
            self.process = None
            self._lines = None
            self._stderr = None

    def close(self, *, kill: bool = False) -> None:
        """Ends the batch process: its stdin closed (it exits), or killed (``kill``, or after 10 s)."""
        if self.process is not None and self.process.poll() is None and not kill:
            assert self.process.stdin is not None
            try:
                self.process.stdin.close()
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._stop()


def _undeclared(declared: Any, what: str, container_version: int, layouts: list[str]) -> str | None:
    """Why the capabilities' ``read`` or ``write`` (``declared``) exclude a container version or layouts."""
    declared = declared if isinstance(declared, dict) else {}
    if container_version not in declared.get("containers", ()):
        return f"needs container version {container_version}, not declared ({what}.containers)"
    missing = [layout for layout in layouts if layout not in declared.get("layouts", ())]
    if missing:
        return f"needs layout {', '.join(missing)}, not declared ({what}.layouts)"
    return None


def _last_line(lines: _Lines, deadline: float, exited: Callable[[], bool]) -> tuple[bytes, str | None]:
    """The last non-empty line a one-call adapter prints before it closes its stdout or exits, and why reading
    stopped early: ``timeout`` at the deadline, ``too much`` past ``LIMIT`` bytes (None: it closed its stdout)."""
    last, total = b"", 0
    while True:
        line = lines.readline(deadline, exited)
        if line is None:
            return last, "timeout"
        if line == b"":
            return last, None
        total += len(line)
        if total > LIMIT:
            return last, "too much"
        if line.strip():
            last = line


def _write_within(fd: int, data: bytes, deadline: float) -> bool:
    """Write ``data`` to a non-blocking pipe, all of it before ``deadline`` (False: the reader did not take it)."""
    view = memoryview(data)
    while view:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([], [fd], [], left)[1]:
            return False
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:
            continue
    return True


class _Tail:
    """The last ``STDERR_KEPT`` bytes of a pipe, drained on a thread of its own (which closes it at its end) so
    that an adapter never blocks on a full stderr and its stderr is never held whole."""

    def __init__(self, pipe: IO[bytes] | None):
        self._kept = b""
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, args=(pipe,), name="fileindex-kit-stderr", daemon=True)
        if pipe is not None:
            self._thread.start()

    def _drain(self, pipe: IO[bytes]) -> None:
        with pipe:
            for chunk in iter(lambda: pipe.read1(1 << 16), b""):  # type: ignore[attr-defined]
                with self._lock:
                    self._kept = (self._kept + chunk)[-STDERR_KEPT:]

    def text(self, wait: float = 5.0) -> bytes:
        """What was kept, once the pipe has ended (the process exited) or after ``wait`` seconds."""
        if self._thread.is_alive():
            self._thread.join(wait)
        with self._lock:
            return self._kept


class _Lines:
    """Lines from a pipe, each within a deadline: never blocked by an adapter that writes half a line, and none
    held beyond ``LIMIT`` bytes (a longer line is cut there, the rest of it skipped)."""

    def __init__(self, fd: int):
        self.fd, self.buffer, self.skipping = fd, b"", False

    def readline(self, deadline: float, exited: Callable[[], bool] = lambda: False) -> bytes | None:
        """The next line (b"" at end of file, what is left before it without a newline), None at the deadline.
        Once ``exited()`` (the writer has exited), the end of what is in the pipe is the end of file: a process it
        started may hold the pipe open for ever, and what the writer wrote is in the pipe before it exits."""
        while b"\n" not in self.buffer:
            if len(self.buffer) > LIMIT:
                line, self.buffer, self.skipping = self.buffer, b"", True
                return line[:200] + b"... (an answer line over 64 MiB)\n"
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            gone = exited()  # (asked before looking: what it wrote before it exited is there to see)
            if not select.select([self.fd], [], [], 0 if gone else min(left, EXIT_POLL))[0]:
                if not gone:
                    continue
                chunk = b""
            else:
                chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                line, self.buffer = self.buffer, b""
                return line
            if self.skipping:  # the rest of a line already cut
                _, newline, chunk = chunk.partition(b"\n")
                if not newline:
                    continue
                self.skipping = False
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line + b"\n"


def _kill(process: subprocess.Popen) -> None:
    """The process and everything it started (its own session), then reaped: the processes it started are killed
    whether it has exited or not (one left running holds the adapter's pipes, and outlives the run)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:  # none of them is left
        pass
    except OSError:
        process.kill()
    process.wait()
    for stream in (process.stdin, process.stdout):  # (stderr: the thread that drains it closes it)
        if stream is not None:
            stream.close()


def _tail(data: bytes, limit: int = 300) -> str:
    text = " | ".join(line.strip() for line in data.decode(errors="replace").strip().splitlines()[-5:])
    return text if len(text) <= limit else "..." + text[-limit:]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _answer(line: bytes) -> dict:
    try:
        answer = json.loads(line)
    except ValueError:
        return {"crash": f"{NOT_JSON}: {line[:200]!r}"}
    except RecursionError:
        return {"crash": f"a JSON answer nested too deeply to read: {line[:100]!r}"}
    return answer if isinstance(answer, dict) else {"crash": f"not a JSON object: {line[:200]!r}"}


def serve(handle: Callable[[dict], dict], stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """An adapter's ``batch`` loop: one JSON request per line in, one JSON answer per line out, each answer
    echoing its request's ``id`` (the runner never takes a line without it for an answer)."""
    stdin = stdin or os.fdopen(0, "rb", closefd=False)
    stdout = stdout or os.fdopen(1, "wb", closefd=False)
    for line in stdin:
        if not line.strip():
            continue
        request_id = None
        try:
            request = json.loads(line)
            if isinstance(request, dict):
                request_id = request.pop("id", None)
                answer = handle(request)
            else:
                answer = {"error": "a request is a JSON object"}
        except ValueError as err:
            answer = {"error": f"not a JSON request: {err}"}
        if request_id is not None and isinstance(answer, dict):
            answer = {**answer, "id": request_id}
        stdout.write(json.dumps(answer, ensure_ascii=False).encode() + b"\n")
        stdout.flush()
    return 0
