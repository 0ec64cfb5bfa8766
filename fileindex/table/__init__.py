"""Java-written Paimon tables: snapshots, manifests and schemas (``metadata``), schema evolution
(``evolution``), deletion vectors, and planning a scan with the indexes (``scan``). May import:
``fileindex.predicate``, ``fileindex.writing`` and below.
"""
