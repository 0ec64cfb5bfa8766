"""pyproject.toml lists every subpackage of fileindex (a plain, non-editable install needs them all)."""
import tomllib

from conftest import ROOT


def test_every_subpackage_is_listed_for_installation():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    present = {".".join(p.relative_to(ROOT).parts) for p in (ROOT / "fileindex").rglob("*")
               if p.is_dir() and p.name != "__pycache__"} | {"fileindex"}
    assert present <= listed, f"add to [tool.setuptools] packages: {sorted(present - listed)}"
    for package, folder in config["package-dir"].items():
        assert (ROOT / folder / "__init__.py").is_file(), package
