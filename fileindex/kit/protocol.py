"""The adapter contract: requests as JSON objects or as command lines, and driving an adapter command.

An adapter is one command (``--impl "COMMAND"``). The kit runs ``COMMAND capabilities`` once; if
the answer says ``"batch": true`` it starts ``COMMAND batch`` and writes one request per line on
its stdin, reading one answer per line from its stdout; otherwise it runs one command line per
request (:func:`to_argv`). Requests and answers are in docs/kit.md.
"""
from __future__ import annotations

import argparse
import json
import os
import select
import shlex
import subprocess
import tempfile
import time

from fileindex.errors import UsageError

TIMEOUT = 120.0  # seconds an adapter may take for one answer


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
        return [op, request["table"], "--where", json.dumps(request["where"], ensure_ascii=False)]
    if op == "write":
        return ["write", "--dataset", request["dataset"], "--column", request["column"], "--type", request["type"],
                "--index-type", request["index_type"], "--options", json.dumps(request["options"]),
                "--container-version", str(request["container_version"]), "--out", request["out"]]
    raise UsageError(f"unknown request op {op!r}")


def add_request_arguments(parser: argparse.ArgumentParser) -> None:
    """The one-call command line of an adapter, as ``fileindex kit adapter`` takes it."""
    calls = parser.add_subparsers(dest="call", metavar="CALL", required=True)
    calls.add_parser("capabilities", help="what this implementation reads and writes (JSON)")
    calls.add_parser("batch", help="answer one JSON request per stdin line, one JSON answer per stdout line")
    head = calls.add_parser("head", help="the decoded HEAD of FILE")
    head.add_argument("file")
    read = calls.add_parser("read", help="evaluate a predicate (JSON) on FILE")
    read.add_argument("file")
    read.add_argument("--schema", required=True, help='column → Paimon type, JSON: {"c": "INT"}')
    read.add_argument("--where", required=True, help="the predicate in its structured JSON form")
    scan = calls.add_parser("scan", help="the verdict of every live data file of TABLE for a predicate (JSON)")
    scan.add_argument("table")
    scan.add_argument("--where", required=True, help="the predicate in its structured JSON form")
    rows = calls.add_parser("rows", help="the rows a full read of TABLE returns under a predicate (JSON)")
    rows.add_argument("table")
    rows.add_argument("--where", required=True, help="the predicate in its structured JSON form")
    write = calls.add_parser("write", help="write a one-column container from a dataset")
    for option in ("--dataset", "--type", "--index-type", "--out"):
        write.add_argument(option, required=True)
    write.add_argument("--column", default="c")
    write.add_argument("--options", default="{}", help="the index's options, JSON")
    write.add_argument("--container-version", type=int, default=1)


def from_argv(args: argparse.Namespace) -> dict:
    """The request a parsed one-call command line makes (UsageError for JSON that does not read)."""
    request: dict = {"op": args.call}
    if args.call in ("head", "read"):
        request["file"] = args.file
    if args.call == "read":
        request["schema"], request["where"] = _json(args.schema, "--schema"), _json(args.where, "--where")
    if args.call in ("scan", "rows"):
        request["table"], request["where"] = args.table, _json(args.where, "--where")
    if args.call == "write":
        request.update(dataset=args.dataset, column=args.column, type=args.type, index_type=args.index_type,
                       options=_json(args.options, "--options"), container_version=args.container_version,
                       out=args.out)
    return request


def _json(text: str, option: str):
    try:
        return json.loads(text)
    except ValueError as err:
        raise UsageError(f"{option} is not JSON: {err}") from None


class Adapter:
    """One implementation under test, driven through its command."""

    def __init__(self, command: str):
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise UsageError("--impl is empty: give the adapter's command, e.g. \"fileindex kit adapter\"")
        self.capabilities = self._one_call({"op": "capabilities"})
        if "error" in self.capabilities or "crash" in self.capabilities:
            raise UsageError(f"{command!r} capabilities did not answer: "
                             f"{self.capabilities.get('error') or self.capabilities.get('crash')}")
        self.name = str(self.capabilities.get("implementation", self.argv[0]))
        self.process: subprocess.Popen | None = None
        self._stderr = tempfile.TemporaryFile()

    def reads(self, container_version: int, layout: str) -> bool:
        read = self.capabilities.get("read") or {}
        return container_version in read.get("containers", ()) and layout in read.get("layouts", ())

    def writes(self, layout: str) -> bool:
        write = self.capabilities.get("write") or {}
        return 1 in write.get("containers", ()) and layout in write.get("layouts", ())

    def ask(self, request: dict) -> dict:
        """The adapter's answer; ``{"crash": why}`` when it gave none (a crash is never a conforming answer)."""
        if not self.capabilities.get("batch"):
            return self._one_call(request)
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen([*self.argv, "batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=self._stderr)
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None  # both are pipes
        try:
            stdin.write(json.dumps(request, ensure_ascii=False).encode() + b"\n")
            stdin.flush()
            line = self._readline(stdout)
        except (BrokenPipeError, TimeoutError) as err:
            self._stop()
            return {"crash": f"the batch process stopped answering ({err or type(err).__name__})"}
        if not line:
            self._stop()
            return {"crash": "the batch process exited without an answer"}
        return _answer(line)

    @staticmethod
    def _readline(stream) -> bytes:
        deadline = time.monotonic() + TIMEOUT
        chunks = []
        while True:
            ready, _, _ = select.select([stream], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise TimeoutError(f"no answer in {TIMEOUT:.0f} s")
            chunk = stream.readline()
            chunks.append(chunk)
            if not chunk or chunk.endswith(b"\n"):
                return b"".join(chunks)

    def _one_call(self, request: dict) -> dict:
        try:
            done = subprocess.run([*self.argv, *to_argv(request)], capture_output=True, timeout=TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as err:
            return {"crash": str(err)}
        lines = done.stdout.strip().splitlines()
        if not lines:
            return {"crash": f"exit status {done.returncode}, no answer on stdout "
                             f"({done.stderr.decode(errors='replace').strip()[-200:]})"}
        return _answer(lines[-1])

    def _stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._stop()
        self.process = None
        self._stderr.close()


def _answer(line: bytes) -> dict:
    try:
        answer = json.loads(line)
    except ValueError:
        return {"crash": f"not a JSON answer: {line[:200]!r}"}
    return answer if isinstance(answer, dict) else {"crash": f"not a JSON object: {line[:200]!r}"}


def serve(handle, stdin=None, stdout=None) -> int:
    """An adapter's ``batch`` loop: one JSON request per line in, one JSON answer per line out."""
    stdin = stdin or os.fdopen(0, "rb", closefd=False)
    stdout = stdout or os.fdopen(1, "wb", closefd=False)
    for line in stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            answer = handle(request) if isinstance(request, dict) else {"error": "a request is a JSON object"}
        except ValueError as err:
            answer = {"error": f"not a JSON request: {err}"}
        stdout.write(json.dumps(answer, ensure_ascii=False).encode() + b"\n")
        stdout.flush()
    return 0
