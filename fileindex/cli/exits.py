"""The command line's exit codes, shared by every command (``verify`` has its own, see
:mod:`fileindex.pipeline.report`). A module of its own so that ``fileindex.cli.app`` needs nothing of the
package's ``__init__`` (which loads ``app`` on first use of ``main``); the main parser's help (and so
docs/cli.md) lists them from ``EXIT_CODES``."""
from __future__ import annotations

EXIT_OK, EXIT_USAGE, EXIT_MALFORMED, EXIT_UNSUPPORTED, EXIT_CONFLICT = 0, 2, 3, 4, 5
EXIT_NON_CANONICAL = 6  # check --canonical: valid, but not the bytes Java's writer produces

EXIT_CODES = (
    f"exit codes: {EXIT_OK} done; 1 the check or job found problems (verify, conformance, kit run, spark build, "
    f"spark scan --compare, demo: see their help); {EXIT_USAGE} usage (bad arguments, a file that cannot be "
    f"read); {EXIT_MALFORMED} malformed input; {EXIT_UNSUPPORTED} well-formed input this implementation does "
    f"not support; {EXIT_CONFLICT} a commit (rewrite, table --set/--reset) that other writers beat every time "
    f"it tried: nothing was committed, run it again; {EXIT_NON_CANONICAL} check --canonical found a valid "
    "container Java's writer would not produce; 130 and 143 interrupted (SIGINT, SIGTERM)"
)
