"""``python -m fileindex.cli``: the same command line as ``fileindex``."""
import sys

from fileindex.cli import main

sys.exit(main())
