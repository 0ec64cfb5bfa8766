#!/usr/bin/env python3
"""Record the container-version-2 vectors (../shared/vectors/java-v2) compactly in tests/vectors/java-v2.

Each V2 file written by the proposal's Java writer holds the payloads of its V1 twin in
tests/vectors/java, framed differently. Only what differs is kept: the 12-byte preamble, the footer
and trailer (hex), and the SHA-256 and size of the whole Java file. The tests rebuild every V2 file
from its V1 twin and these bytes, and check the SHA-256: the bytes under test are Java's.

    python tools/import_v2_vectors.py [SOURCE_DIR]
"""
from __future__ import annotations

import hashlib
import json
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "tests" / "vectors" / "java-v2" / "frames.json"


def frame(data: bytes) -> dict:
    footer_length = struct.unpack(">i", data[-12:-8])[0]
    footer_start = len(data) - 12 - footer_length
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest(), "preamble": data[:12].hex(),
            "footer_start": footer_start, "tail": data[footer_start:].hex()}


def main() -> int:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "vectors" / "java-v2"
    frames = {path.name.removesuffix(".v2.index"): frame(path.read_bytes())
              for path in sorted(source.glob("*.v2.index"))}
    TARGET.write_text(json.dumps({"source": "apache/paimon PR #10030/#10101 FileIndexFormatV2.Writer (experimental)",
                                  "frames": frames}, indent=1, sort_keys=True) + "\n")
    print(f"{TARGET.relative_to(ROOT)}: {len(frames)} frames")
    return 0


if __name__ == "__main__":
    sys.exit(main())
