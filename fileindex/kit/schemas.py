"""JSON Schemas (draft 2020-12) of every JSON file of a kit folder and of the adapters' answers,
exported under ``schemas/`` so that a consumer in any language validates what it reads."""
from __future__ import annotations

from fileindex.kit.provenance import EXPECTED_FROM
from fileindex.predicate.java import COMPOUNDS
from fileindex.predicate.operators import Operator

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE = "https://paimon-fileindex.invalid/kit/"

RANGES = {"type": "array", "items": {"type": "array", "items": {"type": "integer", "minimum": 0},
                                     "minItems": 2, "maxItems": 2}}
ANSWER = {
    "type": "object", "required": ["result"],
    "properties": {"result": {"enum": ["REMAIN", "SKIP", "ROWS"]}, "ranges": RANGES,
                   "cardinality": {"type": "integer"}, "first32": {"type": "array", "items": {"type": "integer"}},
                   "rows_sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"}},
}
FUNCTIONS = [*(op.java_name for op in Operator), *COMPOUNDS]  # Java's LeafFunction and CompoundFunction names
PREDICATE = {"$ref": "#/$defs/predicate"}  # structured predicates nest: And / Or hold predicates
DEFS = {"predicate": {
    "type": "object", "required": ["function"],
    "properties": {"function": {"enum": FUNCTIONS}, "column": {"type": "string"}, "type": {"type": "string"},
                   "literals": {"type": "array"}, "children": {"type": "array", "items": PREDICATE, "minItems": 2}},
}}
SHA = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
HEAD = {
    "type": "object", "required": ["columns"],
    "properties": {
        "version": {"type": "integer"},
        "columns": {"type": "array", "items": {
            "type": "object", "required": ["column", "indexes"],
            "properties": {"column": {"type": "string"}, "indexes": {"type": "array", "items": {
                "type": "object", "required": ["index_type", "payload_sha256"],
                "properties": {"index_type": {"type": "string"}, "start": {"type": "integer"},
                               "length": {"type": "integer"}, "payload_sha256": {"oneOf": [SHA, {"type": "null"}]}},
            }}}}}},
}
FROM = {"enum": list(EXPECTED_FROM)}  # who produced the expected answer (fileindex.kit.provenance)
SPEC = {"type": "string", "minLength": 1}  # the part of the format a case tests
CASE = {
    "type": "object", "required": ["where", "expected", "expected_from", "spec"],
    "properties": {"where": PREDICATE, "expected": ANSWER, "since": {"type": "string"}, "until": {"type": "string"},
                   "before": {"type": "object"}, "java_toString": {"type": "string"}, "expected_from": FROM,
                   "spec": SPEC},
}
# Tier 2 result rows: each a list of values in the order of the case's columns, spelled as the datasets
# spell values (FLOAT/DOUBLE as Java toString text, TIMESTAMP as {millis, nanos_of_milli}, ...), sorted by JSON text
ROWS = {"type": "array", "items": {"type": "array"}}
COLUMNS = {"type": "array", "items": {"type": "object", "required": ["name", "type"],
                                      "properties": {"name": {"type": "string"}, "type": {"type": "string"}}}}
WRITER = {"type": "object", "required": ["implementation", "version"],
          "properties": {"implementation": {"type": "string"}, "version": {"type": "string"}}}


def _schema(name: str, body: dict) -> dict:
    return {"$schema": DRAFT, "$id": f"{BASE}{name}.schema.json", "$defs": DEFS, **body}


SCHEMAS = {
    "container-case": _schema("container-case", {
        "title": "A Tier 1 container and its cases (containers/v1|v2/<layout>/<name>.json)",
        "type": "object",
        "required": ["name", "tier", "container_version", "status", "writer", "type", "index_type", "layout",
                     "options", "dataset", "column", "row_count", "file", "sha256", "payload_sha256", "head", "cases"],
        "properties": {"name": {"type": "string"}, "tier": {"const": 1}, "container_version": {"enum": [1, 2]},
                       "status": {"type": "string"}, "writer": WRITER, "type": {"type": "string"},
                       "index_type": {"type": "string"}, "layout": {"type": "string"},
                       "options": {"type": "object", "additionalProperties": {"type": "string"}},
                       "dataset": {"type": "string"}, "column": {"type": "string"},
                       "row_count": {"type": "integer"}, "file": {"type": "string"}, "sha256": SHA,
                       "payload_sha256": SHA, "head": HEAD, "cases": {"type": "array", "items": CASE}},
    }),
    "multi-case": _schema("multi-case", {
        "title": "A container of several columns (containers/multi/<name>.json)",
        "type": "object", "required": ["name", "container_version", "writer", "file", "sha256", "head", "cases"],
        "properties": {"name": {"type": "string"}, "container_version": {"enum": [1, 2]}, "writer": WRITER,
                       "file": {"type": "string"}, "sha256": SHA, "head": HEAD, "dataset": {"type": "string"},
                       "empty_is_skip": {"type": "boolean"}, "cases": {"type": "array", "items": CASE}},
    }),
    "table-case": _schema("table-case", {
        "title": "A Tier 2 table and its cases (tables/<name>/case.json)",
        "type": "object", "required": ["name", "tier", "writer", "table", "cases"],
        "properties": {"name": {"type": "string"}, "tier": {"const": 2}, "writer": WRITER, "table": {"type": "string"},
                       "exercises": {"type": "string"}, "empty_is_skip": {"type": "boolean"}, "columns": COLUMNS,
                       "whole_files": {"type": "boolean"},
                       "cases": {"type": "array", "items": {
                           "type": "object", "required": ["where", "expected", "expected_from", "spec"],
                           "properties": {"where": PREDICATE, "sql": {"type": "string"}, "spec": SPEC,
                                          "expected_from": {"type": "object", "required": ["rows"],
                                                            "properties": {"files": FROM, "rows": FROM}},
                                          "expected": {
                               "type": "object", "anyOf": [{"required": ["files"]}, {"required": ["rows"]}],
                               "properties": {"files": {"type": "object", "additionalProperties": ANSWER},
                                              "rows": ROWS}}}}}},
    }),
    "bad-case": _schema("bad-case", {
        "title": "A negative case (bad/<name>.json)",
        "type": "object", "required": ["name", "rule", "file", "request", "why", "accepted", "expected_from", "spec"],
        "properties": {"name": {"type": "string"}, "rule": {"enum": ["MUST reject", "MAY fail open"]},
                       "expected_from": FROM, "spec": SPEC,
                       "file": {"type": "string"}, "why": {"type": "string"}, "divergence": {"type": "string"},
                       "request": {"type": "object", "required": ["op"]},
                       "accepted": {"type": "array", "items": {"oneOf": [{"const": "error"}, ANSWER]}}},
    }),
    "refusals": _schema("refusals", {
        "title": "Combinations a writer must refuse (refusals.json)",
        "type": "object", "required": ["refusals"],
        "properties": {"refusals": {"type": "array", "items": {
            "type": "object", "required": ["name", "type", "index_type", "layout", "options", "dataset",
                                           "expected_from", "spec"],
            "properties": {"java": {"type": "string"}, "expected_from": FROM, "spec": SPEC}}}},
    }),
    "hashes": _schema("hashes", {
        "title": "Java's FastHash of values of every type a bloom filter takes (hashes.json)",
        "type": "object", "required": ["cases"],
        "properties": {"cases": {"type": "array", "items": {
            "type": "object", "required": ["type", "value", "hash", "expected_from", "spec"],
            "oneOf": [{"required": ["key"]}, {"required": ["bytes"]}],
            "properties": {"type": {"type": "string"}, "hash": {"type": "integer"},
                           "key": {"type": "integer"}, "bytes": {"type": "string", "pattern": "^([0-9a-f]{2})*$"},
                           "expected_from": FROM, "spec": SPEC}}}},
    }),
    "dataset": _schema("dataset", {
        "title": "Input rows (datasets/<name>.json): one column's values, or several columns",
        "type": "object", "required": ["name", "row_count"],
        "properties": {"name": {"type": "string"}, "type": {"type": "string"}, "row_count": {"type": "integer"},
                       "values": {"type": "array"}, "columns": {"type": "array"}, "index_config": {"type": "array"}},
    }),
    "manifest": _schema("manifest", {
        "title": "The corpus manifest (manifest.json)",
        "type": "object", "required": ["kit_version", "cases", "files"],
        "properties": {"kit_version": {"type": "string"}, "cases": {"type": "object"},
                       "files": {"type": "object", "additionalProperties": SHA},
                       "sizes": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}},
    }),
    "capabilities": _schema("capabilities", {
        "title": "An adapter's answer to `capabilities`",
        "type": "object", "required": ["implementation", "version", "read", "write"],
        "properties": {
            "implementation": {"type": "string"}, "version": {"type": "string"}, "batch": {"type": "boolean"},
            "read": {"type": "object", "properties": {"containers": {"type": "array", "items": {"type": "integer"}},
                                                      "layouts": {"type": "array", "items": {"type": "string"}}}},
            "rows": {"type": "boolean"}, "scan": {"const": "files"},
            "write": {"type": "object", "properties": {"containers": {"type": "array", "items": {"type": "integer"}},
                                                       "layouts": {"type": "array", "items": {"type": "string"}}}}},
    }),
    "answer": _schema("answer", {
        "title": "An adapter's answer to head, read or write",
        "oneOf": [ANSWER,
                  {"type": "object", "required": ["head"], "properties": {"head": HEAD}},
                  {"type": "object", "required": ["files"],
                   "properties": {"files": {"type": "object", "additionalProperties": ANSWER}}},
                  {"type": "object", "required": ["rows"], "properties": {"rows": ROWS}},
                  {"type": "object", "required": ["written"], "properties": {"written": {"type": "string"}}},
                  {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}},
                  {"type": "object", "required": ["unsupported"], "properties": {"unsupported": {"type": "string"}}}],
    }),
}
