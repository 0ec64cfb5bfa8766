"""The container decoded with the Construct schema: the second parser, independent of the
Kaitai-generated one, that the conformance check holds against it (spec §3).
"""
from __future__ import annotations

from fileindex import errors
from fileindex.container.head import ROOT, VERSION_2

def parse_with_construct(data):
    """Decode with the Construct schema (the second, independent parser); errors become the project's."""
    import construct

    from fileindex.specs import file_index_format as schema

    version_2 = bytes(data[8:12]) == VERSION_2.to_bytes(4, "big")
    try:
        return (schema.file_index_format_v2 if version_2 else schema.file_index_format).parse(bytes(data))
    except construct.ConstructError as err:
        raise construct_error(err, len(data)) from None


def construct_error(err, size: int) -> errors.DecodeError:
    import construct

    path = (getattr(err, "path", None) or "").replace("(parsing) -> ", "").replace(" -> ", "/")
    field = f"{ROOT}/{path}" if path else ROOT
    message = str(err).split("\n")[-1]
    kind: type[errors.DecodeError]
    if isinstance(err, construct.ConstError):
        kind = errors.BadMagicError if "magic" in path else errors.UnsupportedVersionError
    elif isinstance(err, construct.StreamError):
        kind = errors.TruncatedError
    elif isinstance(err, (construct.CheckError, construct.RangeError)):
        kind = errors.InvalidLengthError
    else:
        kind = errors.DecodeError
    # Construct does not report positions; the error is placed at the end of the input.
    return kind(message, offset=size, field=field)
