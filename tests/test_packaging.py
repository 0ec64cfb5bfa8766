"""A plain (non-editable) install works: the wheel holds every subpackage and runs in a fresh venv; the
declared dependency ranges, CI's exact versions and the lowest-versions job's cannot drift apart."""
import json
import os
import subprocess
import sys
import tomllib
import venv
import zipfile

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version
from conftest import JAVA_VECTORS, ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("wheel")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", str(out), str(ROOT)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    # setuptools warns about any folder of fileindex that is not packaged ("Package would be ignored")
    assert "Package would be ignored" not in build.stdout + build.stderr
    (path,) = out.glob("*.whl")
    return str(path)


@pytest.mark.slow  # builds a wheel
def test_wheel_holds_every_module_and_data_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    sources = {str(p.relative_to(ROOT)) for p in (ROOT / "fileindex").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    assert sources <= names, sorted(sources - names)
    assert {"fileindex/generated/fast/bitmap.py", "fileindex/generated/parquet_thrift/ttypes.py",
            "fileindex/specs/bitmap.py"} <= names  # (the readers tools/regenerate.py compiles, Construct's specs)
    assert "fileindex/py.typed" in names


@pytest.mark.slow  # builds a wheel and installs it with pyspark (minutes)
def test_fresh_venv_runs_help_query_and_the_demo(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / "bin"
    install = subprocess.run([str(bin_dir / "pip"), "install", "-q", f"{wheel}[spark]"], capture_output=True, text=True)
    assert install.returncode == 0, install.stderr[-3000:]
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    run = lambda *argv: subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path)  # noqa: E731

    assert run("fileindex", "--help").returncode == 0
    version = run(str(bin_dir / "python"), "-m", "fileindex", "--version")
    assert version.returncode == 0 and version.stdout.split() == ["fileindex", "0.1.0"]
    # the module comes from the wheel, not from this checkout
    where = run(str(bin_dir / "python"), "-c", "import fileindex; print(fileindex.__file__)")
    assert where.stdout.startswith(str(env_dir)), where.stdout
    kernels = run(str(bin_dir / "python"), "-c", "from fileindex import kernels; print(kernels.describe())")
    assert kernels.stdout.startswith("compiled kernels"), kernels.stdout + kernels.stderr

    query = run("fileindex", "query", str(JAVA_VECTORS / "multi__engine_layout.index"), "--schema", "id INT",
                "--where", "id = 5", "--json")
    assert query.returncode == 0, query.stderr
    assert json.loads(query.stdout) == {"result": "ROWS", "cardinality": 1, "ranges": [[5, 5]]}

    demo = run("fileindex", "demo", "--files", "3", "--rows", "1000", "--json")
    assert demo.returncode == 0, demo.stderr[-3000:]
    lines = [json.loads(line) for line in demo.stdout.splitlines()]  # JSON lines and nothing else
    assert lines[-1]["verify"]["violations"] == 0 and all(s["identical"] for s in lines[-1]["scans"])


@pytest.mark.slow  # builds a wheel
def test_without_a_c_compiler_the_wheel_builds_and_falls_back(tmp_path):
    import shutil

    # a source tree without the extension an editable install built in place (setuptools would reuse it)
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        "*.so", ".git", ".venv", "build", "dist", ".cache", "node_modules", "bench-data", "*.egg-info",
        "__pycache__", ".hypothesis", ".pytest_cache", "site", "tests"))
    out = tmp_path / "wheel"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(out), str(source)],
                           capture_output=True, text=True, env={**os.environ, "CC": "false", "LDSHARED": "false"})
    assert build.returncode == 0, build.stderr[-3000:]
    (path,) = out.glob("*.whl")
    assert not [n for n in zipfile.ZipFile(path).namelist() if n.endswith(".so")]
    zipfile.ZipFile(path).extractall(tmp_path / "site")
    # A venv that sees this one's dependencies (a .pth line) but not its editable install of fileindex
    # (that install's own .pth is only run in a site directory).
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    import sysconfig

    (site_packages,) = (env_dir / "lib").glob("python3*/site-packages")
    (site_packages / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    code = "import fileindex, fileindex.kernels as k; print(fileindex.__file__); print(k.describe())"
    run = subprocess.run([str(env_dir / "bin" / "python"), "-c", code], capture_output=True, text=True, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(tmp_path / "site")})
    where, path_line = run.stdout.splitlines()
    assert where.startswith(str(tmp_path / "site")) and path_line.startswith("numpy reference path"), run.stderr


@pytest.mark.slow  # installs the package into a fresh venv
def test_an_editable_install_is_a_path_entry_and_warns_nothing(tmp_path):
    """``pip install -e .`` (tools/setup.sh, .ci/run) printed setuptools' "Editable installation" warning box every
    time: pyproject.toml mapped fileindex.generated and fileindex.specs from folders outside fileindex/, which an
    editable install can only map with an import hook. Every package now lies in its own folder under the root, the
    install is a .pth line of the root, and both subpackages import from the checkout."""
    import shutil
    import sysconfig

    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        "*.so", ".git", ".venv*", "build", "dist", ".cache", "node_modules", "bench-data", "*.egg-info",
        "__pycache__", ".hypothesis", ".pytest_cache", "site", "tests", "docs"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    (site_packages,) = (env_dir / "lib").glob("python3*/site-packages")
    (site_packages / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")  # (this venv's)
    python = str(env_dir / "bin" / "python")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps",
                              "--disable-pip-version-check", "-e", str(source)], capture_output=True, text=True,
                             env={**os.environ, "CC": "false", "LDSHARED": "false"})  # (no kernels: faster)
    assert install.returncode == 0, install.stderr[-3000:]
    assert "Editable installation" not in install.stdout + install.stderr, install.stderr
    code = "import fileindex.generated.fast.bitmap as g, fileindex.specs.bitmap as s; print(g.__file__, s.__file__)"
    run = subprocess.run([python, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert run.stdout.split() == [str(source / "fileindex" / "generated" / "fast" / "bitmap.py"),
                                  str(source / "fileindex" / "specs" / "bitmap.py")], run.stderr


# -- declared ranges, CI's exact versions and the lowest-versions job -------------------------------------

def _declared() -> tuple[dict, list]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    return project, [Requirement(r) for r in project["dependencies"] + extras["spark"] + extras["duckdb"]
                     + extras["polars"] + extras["object-stores"]]


def _pins(name: str) -> dict[str, Version]:
    pins = {}
    for line in (ROOT / "constraints" / name).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            requirement = Requirement(line)
            (spec,) = requirement.specifier
            assert spec.operator == "==", line
            pins[canonicalize_name(requirement.name)] = Version(spec.version)
    return pins


def test_runtime_dependencies_are_ranges_and_python_has_no_upper_bound():
    project, requirements = _declared()
    assert SpecifierSet(project["requires-python"]) == SpecifierSet(">=3.11")
    for requirement in requirements:
        operators = {spec.operator for spec in requirement.specifier}
        assert operators == {">=", "<"}, f"{requirement}: declare a range from the lowest tested version"


def test_the_lowest_constraints_are_the_declared_lower_bounds():
    project, _ = _declared()
    runtime = [Requirement(r) for r in project["dependencies"]]
    lower = {canonicalize_name(r.name): Version(next(s.version for s in r.specifier if s.operator == ">="))
             for r in runtime}
    assert _pins("lowest.txt") == lower


def test_ci_versions_lie_in_the_declared_ranges():
    _, requirements = _declared()
    ci = _pins("ci.txt")
    assert set(ci) == {canonicalize_name(r.name) for r in requirements}
    for requirement in requirements:
        assert requirement.specifier.contains(ci[canonicalize_name(requirement.name)]), requirement
