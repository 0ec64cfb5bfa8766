"""generated/ is what the pinned compilers make from specs/*.ksy and specs/*.thrift, and a spec edit without
regenerating is caught."""
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT, in_ci

REGENERATE = ROOT / "tools" / "regenerate.py"


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, *map(str, args)], cwd=cwd, capture_output=True, text=True)


def test_generated_hashes_match_specs_and_outputs():
    result = run(REGENERATE, "--verify")
    assert result.returncode == 0, result.stderr


@pytest.fixture
def repo_copy(tmp_path):
    for folder in ("specs", "generated", "tools", "docs", "fileindex/generated"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("node_modules", "__pycache__"))
    return tmp_path


@pytest.mark.parametrize("name, before, after", [
    ("file_index_format.ksy", "doc: column_number", "doc: column count"),
    ("parquet.thrift", "3: required i64 first_row_index", "3: required i32 first_row_index"),
])
def test_editing_a_spec_without_regenerating_is_detected(repo_copy, name, before, after):
    spec = repo_copy / "specs" / name
    assert before in spec.read_text()
    spec.write_text(spec.read_text().replace(before, after))
    result = run(repo_copy / "tools" / "regenerate.py", "--verify", cwd=repo_copy)
    assert result.returncode == 1
    assert f"specs/{name} changed" in result.stderr


def test_hand_edited_output_is_detected(repo_copy):
    generated = repo_copy / "fileindex" / "generated" / "file_index_format.py"
    generated.write_text(generated.read_text() + "\n# tweak\n")
    result = run(repo_copy / "tools" / "regenerate.py", "--verify", cwd=repo_copy)
    assert result.returncode == 1
    assert result.stderr.splitlines() == ["fileindex/generated/file_index_format.py differs from what the generator "
                                          "wrote: regenerate, never edit it"]


def toolchain_present() -> bool:
    return all(shutil.which(tool) is not None for tool in ("node", "dot", "thrift")) and (
        ROOT / "tools" / "node_modules" / "kaitai-struct-compiler").is_dir()


@pytest.mark.node
@pytest.mark.skipif(not toolchain_present() and not in_ci(),
                    reason="node/dot/thrift/npm packages absent; .ci/run installs them and this test then runs")
def test_regenerating_reproduces_generated_exactly():
    result = run(REGENERATE, "--check")
    assert result.returncode == 0, result.stderr + result.stdout
