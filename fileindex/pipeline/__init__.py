"""The per-data-file work of build and verify, free of Spark: what one task does to one data file.

``inputs`` turns command-line inputs (a Paimon table, files, directories, globs) into
:class:`~fileindex.scan.task.DataFileTask` objects; ``build`` and ``verify`` are the work of one task
on one file (build its index, check its index against its data); ``probes`` generates predicates from
a file's own values. Reading a table (planning, the per-file reader the Python reader and Spark share,
the exact filter) is :mod:`fileindex.scan`'s. Everything here pickles, holds no per-process state,
and may import the codecs, evaluation, table and scan layers, never ``fileindex.spark``.
"""
