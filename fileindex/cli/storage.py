"""``--storage-option KEY=VALUE`` on the command line: the argument and its parsing live in
:mod:`fileindex.storage_args` (the kit's adapter protocol takes them too)."""
from __future__ import annotations

from fileindex.storage_args import add_storage_options_argument, storage_options

__all__ = ["add_storage_options_argument", "storage_options"]
