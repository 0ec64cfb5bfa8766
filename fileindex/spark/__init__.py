"""The pipeline on Spark: build, verify and index-pruned scans over many data files, and a data source.

Spark only orchestrates here: the per-file work is :mod:`fileindex.pipeline`, which knows nothing of
Spark. ``spark_session()`` gives a local (or cluster) session; ``build_indexes``, ``verify_indexes``
and ``pruned_scan`` return DataFrames; ``register(spark)`` makes
``spark.read.format("paimon-fileindex")`` available (the session builder does it), and
``read_table`` reads a table through it, pruned for a predicate. May import
everything below it; nothing imports it but the command line.

Inside, the modules are layered as the package is: ``session`` (starting a session, checking its workers)
< ``jobs`` (per-file work as Spark jobs) < ``datasource`` (the data source, planned with the jobs' helpers)
< ``compare``, ``rewrite``, ``demo`` < this module, which puts a started session and the data source together.
"""
from collections.abc import Mapping

from fileindex.spark.jobs import (
    PrunedScan,
    ScanStats,
    build_indexes,
    plain_scan,
    pruned_scan,
    verify_indexes,
)
from fileindex.spark.session import SparkSetupError, check_workers, start_session


def spark_session(master: str | None = None, conf: Mapping[str, str] | None = None, *, ui: bool = False,
                  app_name: str = "fileindex"):
    """The session the pipeline runs on (:func:`fileindex.spark.session.start_session`), with
    ``spark.read.format("paimon-fileindex")`` registered."""
    session = start_session(master, conf, ui=ui, app_name=app_name)
    register(session)
    return session


def register(spark) -> None:
    from fileindex.spark.datasource import register as register_source

    check_workers(spark)
    register_source(spark)


def read_table(spark, table: str, where: str | None = None, *, snapshot: int | None = None,
               report: str | None = None, options: Mapping[str, str] | None = None):
    from fileindex.spark.datasource import read_table as read

    return read(spark, table, where, snapshot=snapshot, report=report, options=options)


read_table.__doc__ = "See :func:`fileindex.spark.datasource.read_table`."


__all__ = ["PrunedScan", "ScanStats", "SparkSetupError", "build_indexes", "plain_scan", "pruned_scan", "read_table",
           "register", "spark_session", "verify_indexes"]
