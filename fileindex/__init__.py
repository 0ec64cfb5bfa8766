"""Reference Python implementation of Apache Paimon's file index.

The public API, importable from here (loaded on first use, so ``import fileindex`` stays light):

* containers: :class:`FileIndexContainer`, :func:`write_container`, :func:`write_entries`,
  :func:`reframe` (version 1 ↔ the experimental version 2);
* index bodies: :data:`INDEX_TYPES` (Paimon's identifier → builder and reader);
* predicates: :func:`parse_schema`, :func:`parse_type`, :func:`parse_predicate`,
  :class:`FileIndexEvaluator`, and the answers :data:`REMAIN`, :data:`SKIP`, :class:`Rows`;
* building: :func:`build_data_file_index`, :func:`parse_options`;
* tables: :class:`PaimonTable` (planning, and reading rows with ``scan``: a :class:`TableScan`);
* errors: :mod:`fileindex.errors` (everything raised on purpose derives from ``FileIndexError``).

The layers, each a subpackage that imports only from those below it (``tests/test_layers.py``):
base modules (``errors``, ``types``, ``values``, ``java_numbers``, ``tokens``, ``parallel``, ``memo``, ``lazy``,
``confined``, ``extras``, ``storage_args``) < ``io`` < ``arrow`` < ``java`` < ``decoding`` < ``container`` <
``indexes`` < ``predicate`` < ``writing`` < ``table`` < ``merge`` < ``scan`` < ``reference`` < ``pipeline`` < ``kit`` <
``spark`` < ``cli``.
"""
__version__ = "0.1.0"

_API = {
    "FileIndexContainer": "fileindex.container.file", "write_container": "fileindex.container.writer",
    "write_entries": "fileindex.container.writer", "reframe": "fileindex.container.writer",
    "INDEX_TYPES": "fileindex.indexes.registry",
    "REMAIN": "fileindex.indexes.result", "SKIP": "fileindex.indexes.result", "Rows": "fileindex.indexes.result",
    "parse_schema": "fileindex.types", "parse_type": "fileindex.types",
    "parse_predicate": "fileindex.predicate.parser", "FileIndexEvaluator": "fileindex.predicate.evaluation",
    "build_data_file_index": "fileindex.writing.data_file", "parse_options": "fileindex.writing.options",
    "PaimonTable": "fileindex.scan.table", "TableScan": "fileindex.scan.table_scan",
}
__all__ = sorted(_API)


# modules that the API's modules import through pyarrow (its util: socket, for a test helper; platform, for its
# show_info and uuid's system name), numpy (its core: ctypes, for an array's .ctypes) and pathlib (urllib.parse:
# ipaddress, for bracketed URL hosts) at their top and use only in functions a read never calls: stand-ins there
# (fileindex.lazy.import_deferring), 0.032 G instructions of a program's cold read (#54); the real modules are
# imported by their first use, and by any later import
DEFERRED_BY_THE_API = ("socket", "ctypes", "ipaddress", "platform")


def __getattr__(name: str):
    if name in _API:
        from fileindex.lazy import import_deferring

        return getattr(import_deferring(_API[name], *DEFERRED_BY_THE_API), name)
    raise AttributeError(f"module 'fileindex' has no attribute {name!r}")
