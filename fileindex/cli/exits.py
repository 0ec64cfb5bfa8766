"""The command line's exit codes, shared by every command (``verify`` has its own, see
:mod:`fileindex.pipeline.report`). A module of its own so that ``fileindex.cli.app`` needs nothing of the
package's ``__init__`` (which loads ``app`` on first use of ``main``)."""
from __future__ import annotations

EXIT_OK, EXIT_USAGE, EXIT_MALFORMED, EXIT_UNSUPPORTED = 0, 2, 3, 4
