"""Predicates and whole-file answers: the leaf functions (``operators``), the tree (``tree``), the
SQL-like parser (``parser``), literals (``literals``), Java's ``Predicate.toString`` (``java``), and
evaluation over a container (``evaluation``, spec §9). May import: ``fileindex.indexes``,
``fileindex.container``, the base modules.
"""
