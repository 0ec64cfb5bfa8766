"""``python -m fileindex``: the same command line as ``fileindex``."""
import sys

from fileindex.cli import main

sys.exit(main())
