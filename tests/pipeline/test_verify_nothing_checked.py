"""A verify that checked nothing (no data file has an index) does not pass: exit 2, as a verify of one data file
without its index; an index folder that is not there is refused before anything runs."""
import pytest
from generated_data import write_dataset

from fileindex.errors import UsageError
from fileindex.pipeline.inputs import check_index_dir, resolve_inputs
from fileindex.pipeline.report import EXIT_CLEAN, EXIT_NO_INDEX, exit_code, render_text, summarize
from fileindex.pipeline.verify import verify_file


def summary_of(paths, index_dir):
    tasks = resolve_inputs([str(p) for p in paths], index_dir=str(index_dir)).tasks
    return summarize([verify_file(task).as_row() for task in tasks])


def test_no_file_with_an_index_is_not_a_pass(tmp_path):
    paths = write_dataset(tmp_path / "data", files=2, with_indexes=False)
    (tmp_path / "empty").mkdir()
    summary = summary_of(paths, tmp_path / "empty")
    assert exit_code(summary) == EXIT_NO_INDEX == 2
    assert "NOTHING CHECKED: no data file has an index" in render_text(summary)


def test_some_files_with_an_index_pass(tmp_path):
    paths = write_dataset(tmp_path / "data", files=2)  # (sidecars beside the files)
    (paths[1].parent / (paths[1].name + ".index")).unlink()
    summary = summarize([verify_file(task).as_row() for task in resolve_inputs([str(p) for p in paths]).tasks])
    assert summary["by_status"] == {"no index": 1, "ok": 1} and exit_code(summary) == EXIT_CLEAN


def test_an_index_folder_that_is_not_there_is_refused(tmp_path):
    with pytest.raises(UsageError, match=f"--index-dir {tmp_path / 'nonexistent'}: no such folder"):
        check_index_dir(str(tmp_path / "nonexistent"))
    check_index_dir(str(tmp_path))
    check_index_dir(None)
