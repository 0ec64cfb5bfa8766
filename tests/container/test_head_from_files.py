"""``parse_head`` of a binary file reads the file from its start wherever it stands, and places an error at the
file's offset, as for the same bytes (a file left at offset 7, or at a failure's offset by the reader that found
it, was read from there: errors 7 to 330 bytes off, a valid container refused); a stream that cannot seek is a
typed error."""
import io
import subprocess
import sys

import pytest
from conftest import JAVA_VECTORS
from vector_cases import java_v2

from fileindex.container.head import parse_head
from fileindex.errors import FileIndexError, UsageError

V1 = (JAVA_VECTORS / "multi__engine_layout.index").read_bytes()
V2 = java_v2("multi__engine_layout")


def changed(data: bytes, at: int, new: bytes) -> bytes:
    return data[:at] + new + data[at + len(new):]


INPUTS = {
    "v1": V1, "v2": V2,
    "v1 column name past the end": changed(V1, 20, b"\x7f\xff"),
    "v2 tail magic": changed(V2, len(V2) - 8, b"PAFIDX09"),
    "v2 footer longer than the file": changed(V2, len(V2) - 12, len(V2).to_bytes(4, "big")),
    "not an index": b"hello, this is not an index at all",
    "empty": b""}


def outcome(data):
    try:
        head = parse_head(data)
    except FileIndexError as err:
        return type(err), err.offset, err.field
    return head


@pytest.mark.parametrize("name", INPUTS)
def test_a_file_anywhere_is_read_as_its_bytes_are(name, tmp_path):
    data = INPUTS[name]
    expected = outcome(data)
    path = tmp_path / "file.index"
    path.write_bytes(data)
    for position in (0, 7, len(data)):
        stream = io.BytesIO(data)
        stream.seek(position)
        assert outcome(stream) == expected, position
        with open(path, "rb") as file:
            file.seek(position)
            assert outcome(file) == expected, position


def test_a_stream_that_cannot_seek_is_a_typed_error():
    cat = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read())"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert cat.stdin is not None and cat.stdout is not None
    cat.stdin.write(V1)
    cat.stdin.close()
    with pytest.raises(UsageError, match="a stream that cannot seek: give its bytes"):
        parse_head(cat.stdout)
    cat.stdout.close()
    cat.wait()
