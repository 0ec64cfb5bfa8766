"""``fileindex inspect FILE [--json]``: the container's structure with absolute byte offsets."""
from __future__ import annotations

import argparse
import json

from fileindex.cli import HANDLED, column_types, pad, report_failure
from fileindex.storage_args import add_storage_options_argument
from fileindex.container.file import FileIndexContainer
from fileindex.container.head import MAGIC, VERSION, IndexEntry
from fileindex.errors import FileIndexError

NAME = "inspect"
HELP = ("show a container's entry table (version 1's HEAD, version 2's footer): magic, version, columns and "
        "index entries with absolute offsets")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_storage_options_argument(parser)
    parser.add_argument("file", help="a Paimon file-index container (.index file or embedded bytes)")
    parser.add_argument("--json", action="store_true", help="print one JSON object (shape in docs/guide/query.md)")


def body_details(container: FileIndexContainer, entry: IndexEntry) -> dict:
    """Per-type facts about a body that need no column type (bloom-filter: fill and sizing)."""
    from fileindex.indexes.registry import INDEX_TYPES

    index = INDEX_TYPES.get(entry.index_type)
    if entry.is_empty or index is None or index.filter_sizing is None:
        return {}
    try:
        return {"bloom": index.filter_sizing.diagnose(container.body(entry), None).as_dict()}
    except (FileIndexError, ValueError) as err:
        return {"error": str(err)}


def describe(container: FileIndexContainer) -> dict:
    """The JSON shape of ``inspect --json``: columns and indexes in file order."""
    head = container.head
    body_length = sum(e.length for e in head.entries if not e.is_empty)
    framing = ({"head_length": head.head_length} if head.version == VERSION else
               {"footer_start": head.footer_start, "footer_length": head.footer_length})
    return {
        "file": container.source,
        "size": container.size,
        "magic": int.from_bytes(MAGIC, "big"),
        "version": head.version,
        **framing,
        "columns": [
            {
                "column": record.name,
                "offset": record.offset,
                "indexes": [
                    {
                        "index_type": entry.index_type,
                        "start": entry.start,
                        "length": entry.length,
                        "empty": entry.is_empty,
                        "entry_offset": entry.entry_offset,
                        **({"past_end": True} if _past_end(head, entry, container.size) else {}),
                        **body_details(container, entry),
                    }
                    for entry in record.indexes
                ],
            }
            for record in head.column_records
        ],
        **({"redundant_length": head.redundant_length} if head.version == VERSION else {}),
        "body_length": body_length,
    }


def _past_end(head, entry: IndexEntry, size: int) -> bool:
    """The entry's body ends past the end of the file (version 2: past the footer)."""
    return not entry.is_empty and entry.start + entry.length > head.body_end(size)


def render(description: dict) -> str:
    lines = [
        f"{description['file']}: {description['size']} bytes",
        f"  magic 0x{description['magic']:016x}  version {description['version']}  " + (
            f"head_length {description['head_length']}  redundant_length {description['redundant_length']}"
            if "head_length" in description else
            f"(experimental, Paimon PR #10101)  footer_start {description['footer_start']}  "
            f"footer_length {description['footer_length']}"),
        f"  {'column':<24} {'index type':<14} {'start':>10} {'length':>10} {'end':>10}",
    ]
    for column in description["columns"]:
        for entry in column["indexes"]:
            if entry["empty"]:
                where = f"{'-1':>10} {0:>10} {'(empty)':>10}"
            else:
                where = f"{entry['start']:>10} {entry['length']:>10} {entry['start'] + entry['length']:>10}"
            past = "  PAST THE END OF THE FILE" if entry.get("past_end") else ""
            lines.append(f"  {pad(column['column'], 24)} {entry['index_type']:<14} {where}{past}")
            if "bloom" in entry:
                lines.append("      " + render_bloom(entry["bloom"]))
            if "error" in entry:
                lines.append(f"      body error: {entry['error']}")
    lines.append(
        f"  {len(description['columns'])} column(s), "
        f"{sum(len(c['indexes']) for c in description['columns'])} index(es), "
        f"body {description['body_length']} bytes"
    )
    return "\n".join(lines)


def render_bloom(bloom: dict) -> str:
    n_hat = bloom["estimated_items"]
    held = "every bit set" if n_hat is None else f"~{n_hat:.0f} distinct value(s)"
    return (
        f"k={bloom['num_hash_functions']} bits={bloom['num_bits']} fill={100 * bloom['fill_ratio']:.4f}% "
        f"holds {held}, fpp at that {bloom['delivered_fpp']:.2g}; {bloom['verdict']}: {bloom['advice']}"
    )


def run(args: argparse.Namespace) -> int:
    try:
        column_types.refuse_data_file(args.file)
        container = FileIndexContainer.open(args.file)
    except HANDLED as err:
        return report_failure(NAME, column_types.named_folder(args.file, err), args.file)
    description = describe(container)
    problem = None
    try:
        container.validate_layout()  # entries past the end of the file, overlapping bodies
    except FileIndexError as err:
        problem = err
        description["error"] = str(err)
    if args.json:
        print(json.dumps(description, ensure_ascii=False))
    else:
        print(render(description))
    return 0 if problem is None else report_failure(NAME, problem, args.file)
