"""A deliberately wrong adapter (a test fixture): this project's adapter with REMAIN and SKIP answers
swapped on one-column containers of ``c`` (--flip-answers) and the last byte of every bloom-filter
container it writes flipped (--flip-bytes); --one-call declares no batch mode, so the kit runs one
command line per request; --only LAYOUT declares that layout alone (in container version 1) as read
and written; --garbage answers every read with a JSON string, not an object; --die exits on every read;
--drop-row leaves the first row out of every non-empty ``rows`` answer; --no-rows declares no ``rows``.
Robustness (tests/kit/test_kit_robust.py): --stray writes one line that is no answer on stdout before the
first read's answer; --noise writes a line of binary garbage before every read's answer;
--hang never answers anything but ``capabilities``; --crash-on TEXT exits with status 7 (after a line on
stderr) when a request's file names TEXT; --unsupported answers every request ``{"unsupported": …}``;
--half-line writes half an answer line, then hangs; --no-ids answers in batch mode without echoing the
request ids (an adapter of kit 1.0.0); --remain answers every request but ``capabilities`` {"result": "REMAIN"};
--litter leaves a copy of every file it writes beside it (``OUT.bak``).

    python tests/kit/wrong_adapter.py [--one-call] [--flip-answers] [--flip-bytes] [--only LAYOUT]
                                      [--garbage] [--die] [--drop-row] [--no-rows] [--stray] [--noise]
                                      [--hang] [--crash-on TEXT] [--unsupported]
                                      [--half-line] [--no-ids] [--remain] [--litter] CALL ...
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

from fileindex.kit.adapter import handle
from fileindex.kit.protocol import add_request_arguments, from_argv, serve

SWAPPED = {"REMAIN": "SKIP", "SKIP": "REMAIN"}


def wrong(flags):
    strays = ["before"] if flags.stray else []  # one stray line, before the first read's answer

    def answer(request: dict) -> dict:
        if (flags.hang or flags.half_line) and request.get("op") != "capabilities":
            if flags.half_line:
                os.write(1, b'{"result": "REM')  # no newline: the runner must not wait on the rest
            time.sleep(3600)
        if flags.crash_on and flags.crash_on in str(request.get("file")):
            print(f"wrong adapter: crashing on purpose at {request['file']}", file=sys.stderr, flush=True)
            os._exit(7)
        if flags.unsupported and request.get("op") != "capabilities":
            return {"unsupported": "this adapter supports nothing"}
        if flags.remain and request.get("op") != "capabilities":
            return {"result": "REMAIN"}
        if request.get("op") == "read" and (flags.noise or strays == ["before"]):
            os.write(1, b"\x89PNG garbage \xff\xfe\n" if flags.noise else b"debug: reading\n")
            strays.clear()
        result = handle(request)
        if request.get("op") == "capabilities":
            result = {**result, "implementation": "wrong", "batch": not flags.one_call}
            if flags.no_rows:
                result.pop("rows")
            if flags.only:
                result["read"] = result["write"] = {"containers": [1], "layouts": [flags.only]}
        if request.get("op") == "read" and flags.die:
            os._exit(3)  # the batch process dies mid-run: the kit must restart it and go on
        if request.get("op") == "read" and flags.garbage:
            return "not an answer"
        if flags.flip_answers and result.get("result") in SWAPPED and list(request.get("schema", ())) == ["c"]:
            result = {"result": SWAPPED[result["result"]]}
        if flags.drop_row and request.get("op") == "rows" and result.get("rows"):
            result = {"rows": result["rows"][1:]}
        if flags.litter and request.get("op") == "write" and "written" in result:
            Path(request["out"] + ".bak").write_bytes(Path(request["out"]).read_bytes())
        if flags.flip_bytes and request.get("op") == "write" and "written" in result \
                and request["index_type"] == "bloom-filter":
            out = Path(request["out"])
            data = bytearray(out.read_bytes())
            data[-1] ^= 0x01
            out.write_bytes(bytes(data))
        return result
    return answer


def main() -> int:
    parser = argparse.ArgumentParser()
    for flag in ("--one-call", "--flip-answers", "--flip-bytes", "--garbage", "--die", "--drop-row", "--no-rows",
                 "--stray", "--noise", "--hang", "--unsupported", "--half-line", "--no-ids", "--remain", "--litter"):
        parser.add_argument(flag, action="store_true")
    parser.add_argument("--crash-on", metavar="TEXT")
    parser.add_argument("--only", metavar="LAYOUT")
    add_request_arguments(parser)
    flags = parser.parse_args()
    answer = wrong(flags)
    if flags.call == "batch" and flags.no_ids:  # kit 1.0.0's loop: answers without the request's id
        for line in sys.stdin:
            request = json.loads(line)
            request.pop("id", None)
            print(json.dumps(answer(request)), flush=True)
        return 0
    if flags.call == "batch":
        return serve(answer)
    print(json.dumps(answer(from_argv(flags))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
