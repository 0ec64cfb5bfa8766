"""specs/*.ksy read as YAML, for the tests that check what the specs declare."""
from __future__ import annotations

import yaml
from conftest import ROOT

SPECS = ROOT / "specs"


def spec_names() -> list[str]:
    return sorted(path.stem for path in SPECS.glob("*.ksy"))


def load(name: str) -> dict:
    return yaml.safe_load((SPECS / f"{name}.ksy").read_text())


def validated_fields(name: str) -> dict[str, dict]:
    """The fields of spec ``name`` with a `valid` or `contents` check, by the ``src_path`` the generated
    reader reports when the check fails ("/seq/2", "/types/header/seq/0", "/types/a/instances/b")."""
    found: dict[str, dict] = {}

    def walk(node: dict, prefix: str) -> None:
        for i, field in enumerate(node.get("seq") or []):
            if "valid" in field or "contents" in field:
                found[f"{prefix}/seq/{i}"] = field
        for instance, field in (node.get("instances") or {}).items():
            if "valid" in field:
                found[f"{prefix}/instances/{instance}"] = field
        for type_name, child in (node.get("types") or {}).items():
            walk(child, f"{prefix}/types/{type_name}")

    walk(load(name), "")
    return found


def generated_source(name: str) -> str:
    return (ROOT / "fileindex" / "generated" / f"{name}.py").read_text()
