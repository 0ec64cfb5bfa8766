"""A hostile adapter (a test fixture for tests/kit/test_kit_bounded.py): it answers ``capabilities`` as this
project's adapter does, then misbehaves on every other request.

    python tests/kit/hostile_adapter.py MODE CALL ...

MODE is one of:
  chatter       batch; never reads a request, prints lines without ids as fast as the pipe takes them
  deaf          batch; never reads a request, prints nothing
  nested        batch; answers each request (with its id) holding JSON nested 100,000 deep
  flood-stdout  one-call; prints 3 GB of lines on stdout for each request
  flood-stderr  batch; reads a request, prints 20 MB on stderr, exits with status 9
  debug-prints  batch; answers each request as this project's adapter does, after a debug line on stdout
  leave-a-child one-call; answers as this project's adapter does and exits, leaving a process it started
                (``sleep 1000 &``, its pid appended to the file $KIT_CHILD_PIDS) that holds its stdout and stderr
  batch-leave-a-child  batch; the same, the process started with the batch loop, which exits at end of input
"""
import json
import os
import sys
import time

LINE = b'{"noise": "a line that is no answer"}\n'


def capabilities(batch: bool) -> None:
    from fileindex.kit.adapter import handle  # (here alone: a batch process starts in a blink)

    print(json.dumps({**handle({"op": "capabilities"}), "implementation": "hostile", "batch": batch}))


def leave_a_child() -> None:
    """A process that outlives this one, holding its stdout and stderr (as ``sleep 1000 &`` in a shell script)."""
    import subprocess

    child = subprocess.Popen(["sleep", "1000"], stdin=subprocess.DEVNULL)
    with open(os.environ["KIT_CHILD_PIDS"], "a") as pids:
        pids.write(f"{child.pid}\n")


def main() -> int:
    mode, call = sys.argv[1], sys.argv[2]
    if mode.endswith("leave-a-child"):
        from fileindex.kit.adapter import handle
        from fileindex.kit.protocol import serve

        leave_a_child()
        if call == "batch":
            return serve(handle)
        answer = handle({"op": call, "file": sys.argv[-1]})  # (capabilities, or a head: all a test asks)
        if call == "capabilities":
            answer = {**answer, "implementation": "hostile", "batch": mode.startswith("batch")}
        print(json.dumps(answer))
        return 0
    if call == "capabilities":
        capabilities(batch=mode != "flood-stdout")
        return 0
    if mode == "chatter":
        while True:
            os.write(1, LINE * 64)
    if mode == "deaf":
        time.sleep(3600)
    if mode == "nested":
        for number, _ in enumerate(sys.stdin, start=1):
            depth = 100_000
            os.write(1, b'{"id": %d, "result": ' % number + b"[" * depth + b"]" * depth + b"}\n")
        return 0
    if mode == "debug-prints":
        from fileindex.kit.adapter import handle

        for number, line in enumerate(sys.stdin, start=1):
            request = json.loads(line)
            request.pop("id")
            print(f"DEBUG: handling request {number}")
            print(json.dumps({**handle(request), "id": number}), flush=True)
        return 0
    if mode == "flood-stdout":
        chunk = LINE * (1 << 14)
        for _ in range(3_000_000_000 // len(chunk)):
            os.write(1, chunk)
        return 0
    if mode == "flood-stderr":
        sys.stdin.readline()
        for _ in range(20):
            os.write(2, b"e" * ((1 << 20) - 1) + b"\n")
        os.write(2, b"the last words of the hostile adapter\n")
        return 9
    raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    sys.exit(main())
