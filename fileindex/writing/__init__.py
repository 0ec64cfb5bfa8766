"""Building a data file's container as Paimon's ``DataFileIndexWriter`` does: table options
(``options``), the build (``data_file``), atomic file writes (``atomic``). May import: ``fileindex.indexes``,
``fileindex.container``, ``fileindex.arrow`` and below.
"""
