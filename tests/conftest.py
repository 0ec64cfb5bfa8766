import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
pytest_plugins = ["kit_fixtures", "store_fixtures"]  # the conformance kit's (tests/kit/), the object-store servers
VECTORS = ROOT / "tests" / "vectors"
JAVA_VECTORS = VECTORS / "java"

# Hypothesis loads its built-in "ci" profile when CI is set; extend it rather than replace it.
settings.register_profile(
    "fileindex-ci",
    parent=settings.get_profile("ci"),
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "fileindex-dev",
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("fileindex-ci" if os.environ.get("CI") else "fileindex-dev")


def in_ci() -> bool:
    return bool(os.environ.get("CI"))


def unavailable(what: str, how: str):
    """A test needs ``what``: fail in CI, whose setup installs everything; skip elsewhere, saying ``how``."""
    if in_ci():
        pytest.fail(f"{what} is missing: {how}")
    pytest.skip(f"{what} is not available here: {how} (CI does)")


@pytest.fixture(scope="session")
def vectors_json() -> dict:
    return json.loads((JAVA_VECTORS / "vectors.json").read_text())


def index_files() -> list[Path]:
    return sorted(JAVA_VECTORS.glob("*.index"))


def golden() -> dict[str, str]:
    lines = {}
    for line in (VECTORS / "golden.txt").read_text(encoding="utf-8").splitlines():
        if " = " in line:
            name, value = line.split(" = ", 1)
            lines[name] = value
    return lines


@pytest.fixture(scope="session")
def spark():
    """One local Spark session for the whole run: two cores, and one retry per task (``local[2,2]``)."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        unavailable("pyspark", "tools/setup.sh --test installs it")
    from fileindex.spark import SparkSetupError, spark_session

    try:
        session = spark_session("local[2,2]")
    except SparkSetupError as err:
        unavailable("Spark (a Java 17+ runtime)", str(err))
    yield session
    session.stop()


# The tiers a bare ``pytest`` leaves out (the fast tier is the rest), as pyiceberg and delta-rs do:
# ``pytest --all-tiers`` (the README's test command, .ci/run) runs every one; ``-m`` picks any.
TIERS = ("spark", "java", "browser", "node", "peer", "slow")


def pytest_addoption(parser):
    parser.addoption("--all-tiers", action="store_true",
                     help=f"run every tier: the {', '.join(TIERS)} tests too (a bare pytest runs the fast tier)")


def fast_tier_only(config) -> bool:
    """A bare ``pytest``: no test paths named, no -m, no --all-tiers."""
    return not (config.getoption("--all-tiers") or config.option.markexpr
                or config.args_source != pytest.Config.ArgsSource.TESTPATHS)


def pytest_report_header(config):
    if fast_tier_only(config):
        return f"the fast tier: {', '.join(TIERS)} tests left out (--all-tiers runs every tier)"
    return None


def pytest_collection_modifyitems(config, items):
    """Every test under tests/spark/ carries the ``spark`` marker, so ``-m "not spark"`` leaves Spark out; a bare
    ``pytest`` deselects every test of a tier (TIERS)."""
    for item in items:
        if "spark" in Path(str(item.fspath)).parent.parts[-1:]:
            item.add_marker(pytest.mark.spark)
    if not fast_tier_only(config):
        return
    tiered = [item for item in items if any(item.get_closest_marker(tier) for tier in TIERS)]
    if tiered:
        config.hook.pytest_deselected(items=tiered)
        left_out = set(tiered)
        items[:] = [item for item in items if item not in left_out]


def manifest_rows(path: Path) -> list[dict]:
    """The rows of a table's manifest or manifest list (``ROOT/manifest/NAME``), read through its table's store."""
    from fileindex.table.metadata import read_rows
    from fileindex.table.store import TableStore

    return read_rows(TableStore(Path(path).parent.parent), Path(path))


@pytest.fixture
def opened_files(monkeypatch) -> list[str]:
    """The data files opened (a DataFileReader made) while the test runs."""
    opened: list[str] = []
    from fileindex.arrow import data_files

    original = data_files.DataFileReader.__init__

    def counting(self, source, *args, **kwargs):
        opened.append(getattr(source, "name", None) or str(source))  # (a file the store opened, or a path)
        original(self, source, *args, **kwargs)

    monkeypatch.setattr(data_files.DataFileReader, "__init__", counting)
    return opened


@pytest.fixture
def columns_read(monkeypatch) -> list[list[str]]:
    """The columns of each row read of a data file (``DataFileReader.read_rows``) while the test runs."""
    read: list[list[str]] = []
    from fileindex.arrow import data_files

    original = data_files.DataFileReader.read_rows

    def recording(self, rows, columns):
        read.append(list(columns))
        return original(self, rows, columns)

    monkeypatch.setattr(data_files.DataFileReader, "read_rows", recording)
    return read
