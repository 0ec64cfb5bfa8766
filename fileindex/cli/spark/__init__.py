"""``fileindex spark build|verify|scan``: the pipeline's jobs on Spark (local mode unless ``--master``)."""
from __future__ import annotations

import argparse
import importlib
import sys
from contextlib import nullcontext

from fileindex.cli import EXIT_MALFORMED, EXIT_USAGE, HANDLED, add_snapshot_argument, parse_key_values, report_failure

NAME = "spark"
HELP = "build, verify and index-pruned scans over many data files, as Spark jobs (local mode by default)"
SUBCOMMANDS = ("build", "verify", "scan", "rewrite")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    subparsers = parser.add_subparsers(dest="spark_command", metavar="JOB", required=True)
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"{__name__}.{name}")
        sub = subparsers.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(sub)
        add_session_arguments(sub)
        sub.set_defaults(spark_run=module.run)


def add_inputs_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="a Paimon table root, or Parquet/ORC data files, folders and globs")
    add_snapshot_argument(parser, "a table's snapshot id, or latest (the default)")


def add_session_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("Spark")
    group.add_argument("--master", help="where to run: local[N], spark://HOST:PORT, yarn, ... (default local[*]; "
                                        "under spark-submit, what spark-submit was given)")
    group.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                       help="a Spark configuration setting; repeat for more")
    group.add_argument("--ui", action="store_true", help="start Spark's web UI (off by default)")


def session(args: argparse.Namespace):
    from fileindex.spark import spark_session

    return spark_session(args.master, session_conf(args), ui=args.ui)


def session_conf(args: argparse.Namespace) -> dict[str, str]:
    return parse_key_values(args.conf, "--conf", "spark.executor.memory=2g")


def check_session_arguments(args: argparse.Namespace) -> None:
    """``--master`` and ``--conf`` checked as starting the session checks them (a SparkSetupError, a UsageError),
    for a command that may answer without Spark, or says it is starting Spark before it starts it."""
    from fileindex.spark.session import check_master

    if args.master is not None:
        check_master(args.master)
    session_conf(args)


def run(args: argparse.Namespace) -> int:
    return guarded(f"spark {args.spark_command}", lambda: args.spark_run(args))


def guarded(command: str, job, *, progress: bool = True) -> int:
    """Run a Spark command: setup problems (no [spark] extra, Java, master, workers) exit 2, the
    project's errors as usual, and a Spark job that failed on an executor is one line with the first
    error a task raised, exit 3. The jobs' progress is shown on stderr while it runs (``progress``:
    a command that narrates its own steps, whose jobs' totals would add up across steps, says False)."""
    from fileindex.spark.progress import reporting
    from fileindex.spark.session import SparkSetupError, missing_spark

    try:
        from py4j.protocol import Py4JJavaError
        from pyspark.errors import PySparkException

        with reporting(command) if progress else nullcontext():
            return job()
    except SparkSetupError as err:
        return setup_failure(command, err)
    except ImportError as err:
        missing = missing_spark(err)
        if missing is None:
            raise
        return setup_failure(command, missing)
    except HANDLED as err:
        return report_failure(command, err)
    except (PySparkException, Py4JJavaError) as err:
        from fileindex.spark.failures import first_cause

        print(f"fileindex {command}: a Spark job failed: {first_cause(err)}", file=sys.stderr)
        return EXIT_MALFORMED


def setup_failure(command: str, err: Exception) -> int:
    print(f"fileindex {command}: {err}", file=sys.stderr)
    return EXIT_USAGE
