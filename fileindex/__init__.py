"""Reference Python implementation of Apache Paimon's file index.

``fileindex.container`` opens and writes the per-data-file container; ``fileindex.errors``
holds the exception tree. See the README for the command line.
"""
__version__ = "0.1.0"
