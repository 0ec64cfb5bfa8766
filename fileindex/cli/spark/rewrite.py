"""``fileindex spark rewrite TABLE_PATH``: ``fileindex rewrite`` with the per-file work as Spark tasks and one
commit on the driver."""
from __future__ import annotations

import argparse

from fileindex.cli.rewrite import add_arguments, print_result
from fileindex.cli.spark import session

HELP = ("rebuild a Paimon table's file indexes from its current options on Spark (per-file work as tasks) and "
        "commit them once as a COMPACT snapshot, as Paimon's rewrite_file_index procedure")
__all__ = ["HELP", "add_arguments", "run"]


def run(args: argparse.Namespace) -> int:
    from fileindex.pipeline.inputs import driver_path
    from fileindex.spark.rewrite import spark_rewrite
    from fileindex.table.rewrite_plan import plan_rewrite

    plan = plan_rewrite(driver_path(args.table), partitions=args.partition, mode=args.mode, compat=args.compat,
                        allow_external=args.allow_external_paths, writer=args.writer_version,
                        branch=args.branch)  # refuses first
    result = spark_rewrite(session(args), args.table, dry_run=args.dry_run, plan=plan)
    print_result(result, as_json=args.json, command="spark rewrite")
    return 0
