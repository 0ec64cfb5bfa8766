"""The package's layers only import downwards (the order is in fileindex/__init__.py's docstring), no module
reaches itself through the modules it imports (within a layer too), and the third-party libraries that belong
to one layer are imported only there."""
import ast
import graphlib

from conftest import ROOT

LAYERS = ["base", "io", "arrow", "java", "decoding", "container", "indexes", "predicate", "writing", "table", "merge",
          "scan",
          "reference", "pipeline", "kit", "spark", "cli"]
BASE = {"errors", "types", "values", "java_numbers", "tokens", "parallel", "memo", "kernels", "_kernels", "ending",
        "kaitai_runtime", "generated", "specs", "__init__", "samples", "confined", "extras", "lazy", "storage_args",
        "frozen"}


def layer_of(module: str) -> str:
    part = module.split(".")[1] if "." in module else "__init__"
    if part == "__main__":  # `python -m fileindex`: the command line
        return "cli"
    return "base" if part in BASE else part


# A library's top-level name -> the modules (and their submodules) that may import it.
CONFINED = {
    "pyspark": ("fileindex.spark", "fileindex.cli.spark"),
    "py4j": ("fileindex.spark", "fileindex.cli.spark"),
    # the decoding layer runs the generated readers; kaitai_runtime is the runtime those readers import
    "kaitaistruct": ("fileindex.decoding", "fileindex.kaitai_runtime", "fileindex.generated"),
    # Parquet's Thrift metadata is decoded in one place, with the classes generated from specs/parquet.thrift
    "thrift": ("fileindex.arrow.parquet_pages", "fileindex.generated"),
    # the object-store client (an optional dependency): only the file access of an object store uses it
    "obstore": ("fileindex.io",),
}


def package_files() -> list:
    """The package's own modules: not the readers tools/regenerate.py compiles nor Construct's declarations
    (``fileindex/generated``, ``fileindex/specs``: base, importing each other relatively and no other layer)."""
    return [path for path in sorted((ROOT / "fileindex").rglob("*.py"))
            if path.relative_to(ROOT / "fileindex").parts[0] not in ("generated", "specs")]


def module_of(path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def absolute_imports(path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        if isinstance(node, ast.ImportFrom) and node.level:
            raise AssertionError(f"{path}: relative import; the layers are checked on absolute imports")
    return found


def imports_of(path) -> set[str]:
    return {name for name in absolute_imports(path) if name == "fileindex" or name.startswith("fileindex.")}


def module_name(path) -> str:
    """``fileindex/spark/__init__.py`` is the module ``fileindex.spark``."""
    return module_of(path).removesuffix(".__init__")


def is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imported_modules(path) -> set[str]:
    """The package's modules ``path`` imports, anywhere in it: ``from fileindex.spark import progress`` is
    ``fileindex.spark.progress`` (a name that is a submodule), ``from fileindex.spark import register`` is
    ``fileindex.spark``. The parent packages Python runs first are left out (every submodule would be in a
    circle with its package's ``__init__``)."""
    found = set()
    for node in ast.walk(_without_type_checking(ast.parse(path.read_text()))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if is_module(submodule) else node.module)
    return {name for name in found if name.startswith("fileindex.") and is_module(name)}


def _without_type_checking(tree: ast.Module) -> ast.Module:
    """The module without its ``if TYPE_CHECKING:`` blocks: imports for annotations only, never run."""
    for node in ast.walk(tree):
        for name in ("body", "orelse"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                setattr(node, name, [child for child in block if not _type_checking(child)])
    return tree


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def import_circle(graph: dict[str, set[str]]) -> list[str]:
    """One circle of imports in ``graph`` (module -> the modules it imports), or [] when there is none."""
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as err:
        return list(err.args[1])
    return []


def within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes)


def test_every_subpackage_is_a_declared_layer():
    packages = {p.name for p in (ROOT / "fileindex").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert packages - {"samples", "generated", "specs"} <= set(LAYERS)


def test_no_module_imports_upwards():
    upward = []
    for path in package_files():
        module = module_of(path)
        own = LAYERS.index(layer_of(module))
        for target in imports_of(path):
            if target == "fileindex" and own > 0:
                continue  # `from fileindex import __version__`
            if LAYERS.index(layer_of(target)) > own:
                upward.append(f"{module} imports {target}")
    assert not upward, "\n".join(upward)


def test_confined_libraries_are_imported_only_where_they_belong():
    misplaced = []
    for path in package_files():
        module = module_of(path)
        for target in absolute_imports(path):
            library = target.split(".")[0]
            if library in CONFINED and not within(module, CONFINED[library]):
                misplaced.append(f"{module} imports {target}")
    assert not misplaced, "\n".join(sorted(misplaced))


def test_the_confinement_check_sees_imports_inside_functions(tmp_path):
    module = tmp_path / "lazy.py"
    module.write_text("def f():\n    from pyspark.sql import functions\n    import kaitaistruct\n")
    assert absolute_imports(module) == {"pyspark.sql", "kaitaistruct"}
    assert not within("fileindex.cli.spark_helpers", CONFINED["pyspark"])
    assert within("fileindex.cli.spark.scan", CONFINED["pyspark"])


def test_no_module_imports_itself_through_others():
    graph = {module_name(path): imported_modules(path) for path in package_files()}
    circle = import_circle(graph)
    assert not circle, "an import circle: " + " -> ".join(reversed(circle))


def test_the_circle_check_resolves_submodules_and_finds_circles(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from fileindex.spark import progress, register\ndef f():\n    import fileindex.scan.table\n")
    assert imported_modules(module) == {"fileindex.spark.progress", "fileindex.spark", "fileindex.scan.table"}
    assert import_circle({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    assert set(import_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})) == {"a", "b", "c"}


# The planner's stages (partition, bucket, statistics, the index's verdicts) are the planner's alone: the layers
# above reach them only through its entry points, so no one plans a read around it.
PLANNER_STAGES = ("fileindex.table.statistics", "fileindex.table.buckets", "fileindex.scan.verdicts")
PLANNER_ENTRY_POINTS = {"ScanPlanner", "plan_read", "plan_files", "evaluate_tasks", "Evaluate"}
ABOVE_THE_PLANNER = ("fileindex.pipeline", "fileindex.kit", "fileindex.spark", "fileindex.cli")


def planning_around_the_planner(path) -> list[str]:
    """What ``path`` imports of the planner's stages, or of the planner beyond its entry points."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if within(node.module, PLANNER_STAGES):
                found.append(node.module)
            elif node.module == "fileindex.scan.planner":
                found += [f"{node.module}.{a.name}" for a in node.names if a.name not in PLANNER_ENTRY_POINTS]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if within(a.name, (*PLANNER_STAGES, "fileindex.scan.planner"))]
    return found


def test_nothing_plans_a_read_around_the_planner():
    around = [f"{module_of(path)} imports {name}" for path in package_files()
              if within(module_of(path), ABOVE_THE_PLANNER) for name in planning_around_the_planner(path)]
    assert not around, "\n".join(around)


def test_the_planner_check_finds_imports_of_its_stages(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from fileindex.table.statistics import file_statistics\n"
                      "from fileindex.scan.planner import plan_read, _partition_test\nimport fileindex.table.buckets\n")
    assert planning_around_the_planner(module) == ["fileindex.table.statistics",
                                                   "fileindex.scan.planner._partition_test", "fileindex.table.buckets"]
