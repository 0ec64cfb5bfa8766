"""Per-data-file work of the pipeline, free of Spark: what one task does to one data file.

``inputs`` turns command-line inputs (a Paimon table, files, directories, globs) into
:class:`~fileindex.pipeline.inputs.DataFileTask` objects; ``build``, ``verify`` and ``scan`` are
the work of one task on one file (build its index, check its index against its data, answer a
predicate and read the candidate rows); ``truth`` evaluates a predicate over the data itself and
``probes`` generates predicates from a file's own values. Everything here pickles, holds no
per-process state, and may import the codecs, evaluation and table layers, never ``fileindex.spark``.
"""
