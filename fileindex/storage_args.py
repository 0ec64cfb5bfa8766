"""``--storage-option KEY=VALUE``: how a command reaches a table or file on an object store, in Paimon's option
keys (the values are often secrets: never shown in a message)."""
from __future__ import annotations

from fileindex.errors import UsageError


def add_storage_options_argument(parser) -> None:
    """``--storage-option KEY=VALUE``: Paimon's option keys for reaching a table on an object store."""
    parser.add_argument("--storage-option", action="append", default=[], metavar="KEY=VALUE", dest="storage_options",
                        help="how to reach a table on an object store, in Paimon's option keys (s3.endpoint, "
                             "s3.access-key, s3.secret-key, s3.path-style-access, gcs.endpoint, azure.account-key, "
                             "...); repeat for more (default: the environment and the client libraries' credential "
                             "chains; a value is never shown in a message)")


def storage_options(args) -> dict[str, str] | None:
    """The ``--storage-option`` pairs as a dict (None: none given); a UsageError that names the key, never the
    value (it is often a secret)."""
    parsed: dict[str, str] = {}
    for pair in getattr(args, "storage_options", None) or []:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UsageError("--storage-option: write KEY=VALUE, e.g. --storage-option s3.endpoint=http://host:9000 "
                             "(the value given is not shown)")
        if key in parsed and parsed[key] != value.strip():
            raise UsageError(f"--storage-option {key} is given twice with different values: give it once")
        parsed[key] = value.strip()
    return parsed or None
