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


def drawn(spec: str, field: str, what: str = "pos") -> list[str]:
    """What a diagram draws as a field's position (or size), in every table that has such a field."""
    import re

    dot = (ROOT / "generated" / "graphviz" / f"{spec}.dot").read_text(encoding="utf-8")
    return re.findall(rf'<TD PORT="{field}_{what}">([^<]*)</TD>', dot)


def test_the_diagrams_draw_offsets_only_where_they_are_fixed():
    """trial20: bitmap.svg drew the header as 22 bytes, num_blocks at 18 and v1_entries at 22, while the fields
    before them are there only with nulls (boolean__bitmap_v1.index: entries at 14; int_single__bitmap_v2.index:
    num_blocks at 10)."""
    assert drawn("bitmap", "ofs_null") == ["10"] and drawn("bitmap", "len_null_bitmap") == ["..."]
    assert drawn("bitmap", "num_blocks") == ["..."] and drawn("bitmap", "v1_entries") == ["..."]
    assert drawn("bitmap", "header", "size") == ["...", "4"]  # (the bitmap's header; an index block's, fixed)
    assert drawn("roaring_bitmap", "run_flags") == ["..."] and drawn("roaring_bitmap", "data") == ["..."]
    assert drawn("bsi", "min") == ["2"] and drawn("bsi", "max") == ["10"]  # (each there exactly with the one before)
    assert drawn("bsi", "index") == ["..."] and drawn("file_index_format", "head") == ["16"]


def test_a_field_after_one_that_may_be_absent_has_no_fixed_position():
    sys.path.insert(0, str(ROOT / "tools"))
    from diagram_offsets import unfixed

    spec = {"meta": {"id": "t"}, "seq": [{"id": "a", "type": "u1"}, {"id": "b", "type": "u4", "if": "a == 1"},
                                         {"id": "c", "type": "u4", "if": "a == 1"}, {"id": "d", "type": "u2"}]}
    positions = zip("abcd", (0, 1, 5, 9), strict=True)
    dot = "\tsubgraph cluster__t {\n" + "".join(f'<TD PORT="{f}_pos">{p}</TD>' for f, p in positions)
    assert unfixed(dot, spec).count('_pos">...<') == 1 and '<TD PORT="d_pos">...</TD>' in unfixed(dot, spec)
