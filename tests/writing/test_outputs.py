"""The shared output rules: an output never is, contains or lies inside an input; an existing
non-empty one is replaced only when asked, and whole."""
import os

import pytest

from fileindex.errors import UsageError
from fileindex.writing.outputs import (
    OUTPUT_MARK,
    check_apart,
    check_output,
    collision,
    input_paths,
    mark_written,
    replacing_folder,
)


@pytest.fixture
def data(tmp_path):
    folder = tmp_path / "data"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "a.parquet").write_bytes(b"rows")
    return folder


def test_collisions_are_found_after_resolving_relative_paths_symlinks_and_trailing_slashes(data, tmp_path,
                                                                                            monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "link").symlink_to(data)
    assert collision("data/", [str(data)]) == ("is", str(data))
    assert collision("link", [str(data)]) == ("is", str(data))
    assert collision("./link/sub/../sub/out", [str(data)]) == ("lies inside", str(data))
    assert collision(str(tmp_path), ["link/sub/a.parquet"]) == ("contains", "link/sub/a.parquet")
    assert collision("data2", [str(data)]) is None  # a sibling sharing the name's prefix
    assert collision(tmp_path / "out", [str(data), "data/sub"]) is None


@pytest.mark.parametrize("output, how, given", [("data", "is the input", "data/"),
                                                ("data/sub/new", "lies inside input", "data/sub"),
                                                (".", "contains input", "data/sub/a.parquet")])
def test_every_collision_is_refused_naming_the_option_output_and_input(data, tmp_path, monkeypatch, output, how,
                                                                       given):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match=rf"^--output {output} {how} {given}: .*outside every input"):
        check_output(output, [str(tmp_path.parent / "elsewhere"), given], overwrite=True, what="--output",
                     command="spark scan")
    with pytest.raises(UsageError, match=f"^--output-dir {output} "):
        check_apart(output, input_paths(["data/*/*.parquet", "data/sub"]), what="--output-dir")


def test_an_existing_non_empty_output_needs_overwrite_and_never_the_current_folder(data, tmp_path, monkeypatch):
    out = tmp_path / "out"
    check_output(out, [data], overwrite=False, what="--report", command="spark verify")  # absent
    out.mkdir()
    check_output(out, [data], overwrite=False, what="--report", command="spark verify")  # empty
    (out / "old").write_text("x")
    with pytest.raises(UsageError, match="--report .*out exists and is not empty; pass --overwrite"):
        check_output(out, [data], overwrite=False, what="--report", command="spark verify")
    with pytest.raises(UsageError, match=r"--report .*out holds files an earlier run did not write \(such as old\): "
                                         "--overwrite replaces only what fileindex wrote"):
        check_output(out, [data], overwrite=True, what="--report", command="spark verify")  # the user's, mistyped
    mark_written(out, "spark verify --report")
    check_output(out, [data], overwrite=True, what="--report", command="spark verify")  # an earlier run's
    (out / "my-analysis.txt").write_text("added since")  # a file no run wrote, in an earlier run's folder
    with pytest.raises(UsageError, match=r"holds files an earlier run did not write \(such as my-analysis.txt\)"):
        check_output(out, [data], overwrite=True, what="--report", command="spark verify")
    (out / "my-analysis.txt").unlink()
    forged = tmp_path / "forged"
    forged.mkdir()
    (forged / "keep.txt").write_text("mine")
    (forged / OUTPUT_MARK).write_bytes((out / OUTPUT_MARK).read_bytes())  # another folder's mark, copied
    with pytest.raises(UsageError, match=r"such as keep.txt"):
        check_output(forged, [data], overwrite=True, what="--report", command="spark verify")
    (tmp_path / "file").write_text("x")
    for overwrite in (False, True):  # a file is never replaced by an output folder, --overwrite or not
        with pytest.raises(UsageError, match="--report .*file is a file, not a folder"):
            check_output(tmp_path / "file", [data], overwrite=overwrite, what="--report", command="spark verify")
    assert (tmp_path / "file").read_text() == "x"
    monkeypatch.chdir(out)
    with pytest.raises(UsageError, match="holds the current folder"):
        check_output(out, [data], overwrite=True, what="--report", command="spark verify")


def test_a_folder_appears_whole_and_replaces_the_old_one_only_when_complete(tmp_path):
    out = tmp_path / "out"
    with replacing_folder(out, overwrite=False, what="--output", command="spark scan") as folder:
        (folder / "one").write_text("1")
        assert not out.exists() and folder.parent == tmp_path and folder.name.startswith(".out.")
    assert sorted(os.listdir(out)) == [OUTPUT_MARK, "one"]

    with pytest.raises(RuntimeError):
        with replacing_folder(out, overwrite=True, what="--output", command="spark scan") as folder:
            (folder / "two").write_text("2")
            raise RuntimeError("the job failed")
    assert sorted(os.listdir(out)) == [OUTPUT_MARK, "one"] and sorted(os.listdir(tmp_path)) == ["out"]

    with replacing_folder(out, overwrite=True, what="--output", command="spark scan") as folder:
        (folder / "two").write_text("2")
    assert sorted(os.listdir(out)) == [OUTPUT_MARK, "two"] and sorted(os.listdir(tmp_path)) == ["out"]

    (out / OUTPUT_MARK).unlink()  # a folder put there meanwhile by someone else is not replaced either
    with pytest.raises(UsageError, match="holds files an earlier run did not write"):
        with replacing_folder(out, overwrite=True, what="--output", command="spark scan") as folder:
            (folder / "three").write_text("3")
    assert sorted(os.listdir(out)) == ["two"] and sorted(os.listdir(tmp_path)) == ["out"]


def test_a_symlinked_output_is_written_where_it_points_and_a_racing_writer_is_not_replaced(tmp_path):
    real_out = tmp_path / "real"
    (tmp_path / "link").symlink_to(real_out, target_is_directory=True)
    with replacing_folder(tmp_path / "link", overwrite=False, what="--output", command="spark scan") as folder:
        (folder / "x").write_text("x")
    assert (tmp_path / "link").is_symlink() and sorted(os.listdir(real_out)) == [OUTPUT_MARK, "x"]

    out = tmp_path / "raced"
    with pytest.raises(UsageError, match="appeared while the job ran"):
        with replacing_folder(out, overwrite=False, what="--output", command="spark scan") as folder:
            (folder / "mine").write_text("x")
            out.mkdir()
            (out / "theirs").write_text("y")
    assert os.listdir(out) == ["theirs"]


def test_overwrite_replaces_only_an_output_of_the_same_command_naming_the_one_that_wrote_it(tmp_path):
    out = tmp_path / "out"
    with replacing_folder(out, overwrite=False, what="--output", command="spark scan") as folder:
        (folder / "part-0.parquet").write_text("rows")
    assert (out / OUTPUT_MARK).read_text().startswith("written by fileindex spark scan --output; ")
    with pytest.raises(UsageError, match=rf"^--report {out} is the output of fileindex spark scan --output: "
                                         "--overwrite replaces only an earlier output of fileindex spark verify "
                                         "--report; choose another folder$"):
        check_output(out, [], overwrite=True, what="--report", command="spark verify")
    with pytest.raises(UsageError, match="is the output of fileindex spark scan --output"):  # also where it lands
        with replacing_folder(out, overwrite=True, what="--workdir", command="demo") as folder:
            (folder / "part-0.parquet").write_text("a demo's")
    assert (out / "part-0.parquet").read_text() == "rows"
    check_output(out, [], overwrite=True, what="--output", command="spark scan")  # its own command's: replaced


def test_a_mark_of_before_commands_were_named_is_any_command_s(tmp_path):
    (tmp_path / "one").write_text("1")
    (tmp_path / OUTPUT_MARK).write_text("written by fileindex; --overwrite replaces this folder, which held these "
                                        "names when written:\none\n")
    check_output(tmp_path, [], overwrite=True, what="--report", command="spark verify")
