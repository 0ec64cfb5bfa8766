"""Subcommands of the ``fileindex`` CLI (see fileindex.cli)."""
