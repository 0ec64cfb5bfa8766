"""The package's layers only import downwards (the order is in fileindex/__init__.py's docstring)."""
import ast

from conftest import ROOT

LAYERS = ["base", "arrow", "java", "codec", "container", "indexes", "predicate", "writing", "table", "reference",
          "pipeline", "spark", "cli"]
BASE = {"errors", "types", "values", "java_numbers", "tokens", "parallel", "kernels", "_kernels", "kaitai_runtime", "generated", "specs", "__init__", "samples"}


def layer_of(module: str) -> str:
    part = module.split(".")[1] if "." in module else "__init__"
    if part == "__main__":  # `python -m fileindex`: the command line
        return "cli"
    return "base" if part in BASE else part


def imports_of(path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        if isinstance(node, ast.ImportFrom) and node.level:
            raise AssertionError(f"{path}: relative import; the layers are checked on absolute imports")
    return {name for name in found if name == "fileindex" or name.startswith("fileindex.")}


def test_every_subpackage_is_a_declared_layer():
    packages = {p.name for p in (ROOT / "fileindex").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert packages - {"samples"} <= set(LAYERS)


def test_no_module_imports_upwards():
    upward = []
    for path in sorted((ROOT / "fileindex").rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        own = LAYERS.index(layer_of(module))
        for target in imports_of(path):
            if target == "fileindex" and own > 0:
                continue  # `from fileindex import __version__`
            if LAYERS.index(layer_of(target)) > own:
                upward.append(f"{module} imports {target}")
    assert not upward, "\n".join(upward)
