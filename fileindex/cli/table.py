"""``fileindex table TABLE_PATH --where EXPR [--where EXPR ...]``: per live data file, what its index lets Paimon
skip."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fileindex.cli import HANDLED, add_external_paths_argument, add_snapshot_argument, report_failure
from fileindex.storage_args import add_storage_options_argument
from fileindex.cli.query import warn_null_comparisons
from fileindex.errors import UsageError

NAME = "table"
HELP = ("plan a Java-written Paimon table: per live data file, where its index lives and the verdict "
        "(--where), or its indexes (--indexes)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table", help="the table root (the folder holding snapshot/, schema/, manifest/): a path or "
                                      "a URI (s3://, gs://, abfs://, ...)")
    parser.add_argument("--where", action="append", metavar="EXPR",
                        help="a predicate over the table's columns; repeat for more (each answered on its own)")
    parser.add_argument("--indexes", action="store_true",
                        help="list every live data file's indexes (like Paimon's $file_indexes table): where each "
                             "container lives, its version and size, each payload's size; reads only heads and footers")
    parser.add_argument("--explain", metavar="FILE",
                        help="explain a live data file's index byte by byte (embedded in the manifest or a sidecar), "
                             "with the column types of the file's schema (see fileindex explain); FILE is the data "
                             "file or its .index sidecar: its name, the path --indexes prints, or a path")
    add_snapshot_argument(parser)
    add_external_paths_argument(parser)
    add_storage_options_argument(parser)
    parser.add_argument("--mode", choices=("java", "extended"), default="java",
                        help="java (default): Paimon's answers; extended: also sound tighter answers")
    parser.add_argument("--json", action="store_true",
                        help="JSON lines: one object per data file and predicate, then a summary per predicate "
                             "(with --indexes: one per index, then a summary counting files, indexes and problems)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="change a table option as Java's ALTER TABLE SET does (writes schema/schema-N+1), e.g. "
                             "file-index.bloom-filter.columns=id; repeat for more; then fileindex rewrite ROOT")
    parser.add_argument("--reset", action="append", default=[], metavar="KEY",
                        help="remove a table option as ALTER TABLE RESET does; repeat for more (resetting "
                             "file-index.<type>.columns removes that type's per-column options too)")
    parser.add_argument("--drop-index", action="append", default=[], metavar="TYPE[:COLUMN]",
                        help="drop an index type from a column (from every column without :COLUMN) with its "
                             "per-column options, e.g. bloom-filter:id; repeat for more; then fileindex rewrite ROOT")
    parser.add_argument("--branch", metavar="NAME",
                        help="with --set/--reset/--drop-index: alter this branch's options (its schemas under "
                             "branch/branch-NAME/); main (default) is the table root")
    parser.add_argument("--force", action="store_true",
                        help="with --set: set an index type the table's Java writers cannot write (every append of "
                             "theirs then fails), or file-index options on a table fileindex rewrite refuses (a "
                             "primary-key table: only Java's writers then follow them), all the same")
    parser.add_argument("--orphans", action="store_true",
                        help="list index files, manifests, manifest lists and temporary files that no snapshot or "
                             "tag names (e.g. sidecars a rewrite superseded), relative to the table root; data files "
                             "are not looked for; lists only, deletes nothing")


def run(args: argparse.Namespace) -> int:
    from fileindex.scan.table import PaimonTable

    altering = args.set or args.reset or args.drop_index
    given = [flag for flag, value in (("--where", args.where), ("--indexes", args.indexes),
                                      ("--explain", args.explain), ("--set/--reset/--drop-index", altering),
                                      ("--orphans", args.orphans)) if value]
    if len(given) > 1:
        return report_failure(NAME, UsageError(f"give one of {' and '.join(given)}: each is a command of its own "
                                               "(the others would be ignored)"))
    if args.force and not args.set:
        return report_failure(NAME, UsageError("--force goes with --set"))
    if args.branch is not None and not altering:
        return report_failure(NAME, UsageError("--branch goes with --set, --reset or --drop-index (the other "
                                               "commands read the main branch)"))
    if altering or args.orphans:
        return alter_or_orphans(args)
    if args.explain:
        return explain_table_file(args)
    if not given:
        return report_failure(NAME, UsageError("give --where EXPR (what the indexes let Paimon skip), --indexes "
                                               "(which indexes the data files have), --explain FILE, --set/--reset "
                                               "(change options) or --orphans"))
    try:
        table = PaimonTable(args.table, args.snapshot, external_roots=args.external_roots)
        if args.indexes:
            return print_indexes(table, as_json=args.json)
        predicates = [table.parse(text) for text in args.where]
        warn_null_comparisons(NAME, args.where, predicates)
        plans = table.plan_many(predicates, extended=args.mode == "extended")
    except HANDLED as err:
        return report_failure(NAME, err, args.table)
    for text, verdicts in zip(args.where, plans, strict=True):
        if len(args.where) > 1 and not args.json:
            print(f"where {text}:")
        print_plan(verdicts, text, as_json=args.json)
    hint = no_index_hint(table, args.table, plans)
    if hint:
        print(f"fileindex {NAME}: {hint}", file=sys.stderr)
    return 0


def no_index_hint(table, root: str, plans: list[list]) -> str | None:
    """Why no live data file has an index, and how to give them one, when none has (None otherwise): the table
    declares none (``--set`` declares one, ``rewrite`` builds it), or declares some its files predate."""
    from fileindex.table.rewrite_plan import check_scope
    from fileindex.writing.options import COLUMNS_SUFFIX, PREFIX

    if any(verdict.index != "none" for verdicts in plans for verdict in verdicts) or not any(plans):
        return None
    declared = sorted(key for key in table.schema.options if key.startswith(PREFIX) and key.endswith(COLUMNS_SUFFIX))
    try:
        check_scope(root, table.schema)
    except UsageError as err:
        return (f"{root} has no file index{'' if declared else ' (its schema declares none)'}, so every file "
                f"remains; fileindex rewrite cannot add one ({str(err).removeprefix(f'{root}: ')})")
    if declared:
        return (f"no live data file has an index (the schema declares {', '.join(declared)}, added after the files "
                f"were written?): fileindex rewrite {root} builds them")
    return (f"{root} declares no file index, so every file remains: declare one with fileindex table {root} --set "
            f"file-index.bloom-filter.columns=COLUMN (or bitmap, bsi), then build it with fileindex rewrite {root}")


def alter_or_orphans(args: argparse.Namespace) -> int:
    """``--set``/``--reset``: a new schema with the options changed; ``--orphans``: files nothing names."""
    from fileindex.cli import parse_key_values
    from fileindex.table.options_alter import alter_table
    from fileindex.table.orphans import LOOKS_FOR, orphan_files
    from fileindex.table.rewrite_plan import appends_broken_by
    from fileindex.table.store import TableStore
    from fileindex.writing.options import READ_ENABLED_KEY

    try:
        if args.orphans:
            orphans = orphan_files(args.table)
            root = TableStore.at(args.table).root
            for path in orphans:  # relative to the table root, as --indexes lists files
                relative = Path(path.relative_to(root)).as_posix()
                print(json.dumps({"orphan": relative}) if args.json else relative)
            print(f"{len(orphans)} orphan file(s): {LOOKS_FOR}", file=sys.stderr)
            return 0
        changes = parse_key_values(args.set, "--set", "file-index.bloom-filter.columns=id")
        if not args.force:
            refuse_unrewritable(args.table, args.branch, changes)
        broken = appends_broken_by(args.table, args.branch, changes)
        if broken and not args.force:
            raise UsageError(f"{broken[0]}; nothing written (--force sets it all the same)")
        altered = alter_table(args.table, set=changes, reset=[k.strip() for k in args.reset],
                              drop=[d.strip() for d in args.drop_index], branch=args.branch)
        schema_id = altered.schema_id
        rewrite_refusal = why_rewrite_refuses(args.table, args.branch)
    except HANDLED as err:
        return report_failure(NAME, err, args.table)
    if schema_id is None:
        print(f"{args.table}: the options are already so; no new schema")
        return 0
    store = TableStore.at(args.table, args.branch)
    written = Path(str(store.schema_file(schema_id).relative_to(store.root))).as_posix()
    if altered.removed:
        print(f"{args.table}: removed with their index: {', '.join(altered.removed)}")
    if {*changes, *args.reset} == {READ_ENABLED_KEY} and not args.drop_index:
        print(f"{args.table}: wrote {written}; reads (Java's and this project's) follow it, and no index is rebuilt")
    elif rewrite_refusal:
        print(f"{args.table}: wrote {written}; files Java writes from now on follow it, but "
              f"fileindex rewrite cannot rebuild the existing files' indexes here ({rewrite_refusal})")
    else:
        print(f"{args.table}: wrote {written}; run fileindex rewrite {args.table} to "
              "rebuild the indexes of the existing files")
    return 0


def refuse_unrewritable(root: str, branch: str | None, changes: dict[str, str]) -> None:
    """``--set`` of file-index options on a table ``fileindex rewrite`` refuses whatever its options (a primary-key
    table, one with deletion vectors, ...): refused before anything is written, in rewrite's words."""
    if not any(key.startswith("file-index.") for key in changes):
        return
    refusal = _scope_refusal(root, branch)
    if refusal:
        raise UsageError(f"{refusal}; nothing written (--force writes the file-index options all the same, for the "
                         "files Java writes from now on)")


def _scope_refusal(root: str, branch: str | None) -> str | None:
    """Why ``fileindex rewrite`` refuses the table whatever its options (a primary-key table, ...), in its words."""
    from fileindex.table.metadata import load_schema
    from fileindex.table.rewrite_plan import check_scope
    from fileindex.table.store import TableStore

    store = TableStore.at(root, branch)
    try:
        check_scope(root, load_schema(store, store.latest_schema_id()))
    except UsageError as err:
        return str(err)
    return None


def why_rewrite_refuses(root: str, branch: str | None) -> str | None:
    """What the next ``fileindex rewrite`` refuses, in its words, and (on stderr) what the table's Java
    writers cannot honour."""
    from fileindex.table.rewrite_plan import alter_warnings

    scope = _scope_refusal(root, branch)
    if scope:
        return scope.removeprefix(f"{root}: ")
    refusal, notes = alter_warnings(root, branch)
    for note in notes:
        print(f"fileindex {NAME}: warning: {note}", file=sys.stderr)
    return refusal


def explain_table_file(args: argparse.Namespace) -> int:
    """``--explain FILE``: a live data file's index (FILE: the data file or its sidecar, by name, by the path
    ``--indexes`` prints, or from the current folder), embedded or not, under the file's own schema."""
    from fileindex.cli.explain import explain_file
    from fileindex.scan.table import PaimonTable

    try:
        table = PaimonTable(args.table, args.snapshot, external_roots=args.external_roots)
        entry = table.find(args.explain)
        if entry is None:
            return explain_unregistered(table, args)
        where, found, note = table.index_location(entry)
        schema = table.data_schema(entry).types()
    except HANDLED as err:
        return report_failure(NAME, err, args.table)
    label = table.relative(entry)
    if entry.external_path:
        print(f"fileindex {NAME}: {label}: a data file under an external path, outside the table", file=sys.stderr)
    if found is None:
        why = note or "Paimon wrote no index for it"
        return report_failure(NAME, UsageError(f"{label} has no index to explain: {why}"))
    if isinstance(found, bytes):  # embedded in the manifest
        print(f"fileindex {NAME}: {label}: its index is embedded in the manifest ({len(found)} bytes)",
              file=sys.stderr)
        return explain_file(f"{label} (embedded)", schema, as_json=args.json, command=NAME, data=found,
                            data_types=schema)
    return explain_file(str(found), schema, as_json=args.json, command=NAME, data_types=schema)


def explain_unregistered(table, args: argparse.Namespace) -> int:
    """An index file the manifests do not name (e.g. a sidecar ``spark build`` wrote): under the schema of
    the live data file it sits beside, else the table's latest."""
    from fileindex.cli.column_types import SIDECAR_SUFFIX
    from fileindex.cli.explain import explain_file

    path = None if table.store.remote else next(
        (p for p in (Path(args.explain), table.root / args.explain) if p.is_file()), None)
    if path is None:
        raise UsageError(f"{args.explain} is not a live data file of {args.table} nor its index, nor a file; "
                         f"fileindex table {args.table} --indexes lists them")
    beside = table.find(str(path)[: -len(SIDECAR_SUFFIX)]) if str(path).endswith(SIDECAR_SUFFIX) else None
    schema = (table.data_schema(beside) if beside else table.schema).types()
    print(f"fileindex {NAME}: {args.explain}: not an index the table's manifests name; explained with the "
          + (f"schema of {table.relative(beside)}" if beside else "table's latest schema"), file=sys.stderr)
    return explain_file(str(path), schema, as_json=args.json, command=NAME, data_types=schema)


def print_indexes(table, *, as_json: bool) -> int:
    from fileindex.scan.table import index_listing
    from fileindex.table.verdict import is_problem

    rows = list(index_listing(table))
    for row in rows:
        file = f"{row['file']} (external path)" if row.get("external") else row["file"]
        if as_json:
            print(json.dumps(row, ensure_ascii=False))
        elif "column" in row:
            size = "empty" if row["empty"] else f"{row['payload_bytes']} B"
            print(f"{file}  {row['index']} v{row['version']} {row['container_bytes']} B  "
                  f"{row['column']}:{row['index_type']} {size}")
        else:
            print(f"{file}  {row['index']}" + (f"  ({row['note']})" if row.get("note") else ""))
    summary = {"files": len({row["file"] for row in rows}),
               "files_indexed": len({row["file"] for row in rows if "column" in row}),
               "indexes": sum("column" in row for row in rows),
               "problems": sum(is_problem(row.get("note", "")) for row in rows)}  # (counted as --where counts them)
    if as_json:
        print(json.dumps({"summary": summary}))
    else:
        print(f"{summary['files']} live data file(s), {summary['files_indexed']} with an index, "
              f"{summary['indexes']} index(es)" + (f"; {summary['problems']} index problem(s)"
                                                   if summary["problems"] else ""))
    return 0


def print_plan(verdicts: list, where: str, *, as_json: bool) -> None:
    from fileindex.cli.query import describe
    from fileindex.indexes.result import result_json
    from fileindex.table.verdict import summarize

    for verdict in verdicts:
        if as_json:
            print(json.dumps({"where": where, **verdict.as_dict()}, ensure_ascii=False))
        else:
            note = f"  ({verdict.note})" if verdict.note else ""
            print(f"{verdict.file}  rows={verdict.row_count}  index={verdict.index}  "
                  f"{describe(result_json(verdict.result))}{note}")
    summary = summarize(verdicts)
    if as_json:
        print(json.dumps({"where": where, "summary": summary}))
    else:
        print(f"kept {summary['files_kept']} of {summary['files']} files, {summary['rows_kept']} of "
              f"{summary['rows']} rows" + (f"; {summary['problems']} index problem(s)" if summary["problems"] else ""))
