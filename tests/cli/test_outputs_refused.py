"""Every option that writes refuses, before Spark starts, an output that would destroy what the job
reads: one that is, contains or lies inside an input, an existing non-empty one without --overwrite,
and an index file that a snapshot of a table names. Nothing is touched when it refuses."""
import shutil

import pytest
from conftest import ROOT
from generated_data import write_dataset

from fileindex.cli import main
from fileindex.writing.outputs import mark_written

PK_TABLE = ROOT / "tests" / "tables" / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"
OLDER_FILE = "bucket-0/data-bfa36b28-40e7-4026-893b-d23116973174-1.parquet"  # named only by an older snapshot


@pytest.fixture(autouse=True)
def no_spark(monkeypatch):
    """A refused command never starts Spark (and these tests never wait for it)."""
    import fileindex.spark

    def refuse(*args, **kwargs):
        raise AssertionError("Spark was started before the output was checked")

    monkeypatch.setattr(fileindex.spark, "spark_session", refuse)


def tree(folder):
    """Every file under ``folder`` with its bytes."""
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def refused(capsys, argv, watched, *phrases):
    """Run the command; it must exit 2 with one stderr line holding ``phrases``, and ``watched``
    (a folder) must hold the same files with the same bytes."""
    before = tree(watched)
    code = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and all(p in err for p in phrases), err
    assert tree(watched) == before
    return err


@pytest.fixture
def data(tmp_path):
    write_dataset(tmp_path / "data" / "d", files=2)
    (tmp_path / "data" / "unrelated.txt").write_text("not a data file, but mine")
    (tmp_path / "link").symlink_to(tmp_path / "data" / "d", target_is_directory=True)
    return tmp_path / "data" / "d"


def collisions(data):
    """(output, how it collides, the input named) for outputs that would destroy ``data``."""
    return [(data, "is the input", data), (data.parent.parent / "link", "is the input", data),
            (data / "out", "lies inside input", data), (data.parent, "contains input", data),
            (str(data) + "/", "is the input", data)]


@pytest.mark.parametrize("command", [["spark", "scan", "--where", "category = 'a'", "--output"],
                                     ["spark", "verify", "--report"],
                                     ["spark", "build", "--option", "file-index.bitmap.columns=category",
                                      "--output-dir"]],
                         ids=["scan --output", "verify --report", "build --output-dir"])
def test_an_output_that_is_contains_or_lies_inside_an_input_is_refused(data, capsys, command):
    *head, option = command
    for output, how, given in collisions(data):
        for overwrite in ([], ["--overwrite"]):
            refused(capsys, [*head, data, option, output, *overwrite], data.parent.parent,
                    f"{option} {output} {how}", str(given), "outside every input")
    glob = data / "*.parquet"
    refused(capsys, [*head, glob, option, data], data.parent.parent, f"{option} {data} contains input",
            str(data / "part-0.parquet"))


@pytest.mark.parametrize("command", [["spark", "scan", "--where", "category = 'a'"], ["spark", "verify"]])
def test_the_index_folder_is_an_input_too(data, tmp_path, capsys, command):
    index_dir = tmp_path / "indexes"
    index_dir.mkdir()
    (index_dir / "part-0.parquet.index").write_bytes((data / "part-0.parquet.index").read_bytes())
    option = "--output" if command[1] == "scan" else "--report"
    refused(capsys, [*command, data, "--index-dir", index_dir, option, index_dir, "--overwrite"], tmp_path,
            f"{option} {index_dir} is the input {index_dir}")


@pytest.mark.parametrize("command, option", [(["spark", "scan", "--where", "category = 'a'"], "--output"),
                                             (["spark", "verify"], "--report")])
def test_an_existing_non_empty_output_needs_overwrite(data, tmp_path, capsys, command, option):
    out = tmp_path / "earlier"
    out.mkdir()
    (out / "results.parquet").write_bytes(b"an earlier result someone keeps")
    refused(capsys, [*command, data, option, out], tmp_path, f"{option} {out} exists and is not empty",
            "pass --overwrite")


@pytest.mark.parametrize("argv, writer", [
    (["spark", "verify", "DATA", "--report"], "spark verify --report"),
    (["spark", "scan", "DATA", "--where", "category = 'a'", "--output"], "spark scan --output"),
    (["demo", "--files", "3", "--rows", "1000", "--workdir"], "demo --workdir"),
], ids=["verify --report", "scan --output", "demo --workdir"])
def test_overwrite_refuses_another_command_s_output_naming_it(data, tmp_path, capsys, argv, writer):
    """A verify --report --overwrite over a demo's workdir removed the demo's dataset (its mark listed them all)."""
    args = [data if a == "DATA" else a for a in argv]
    for other in ("spark verify --report", "spark scan --output", "demo --workdir"):
        if other == writer:
            continue  # (its own command's output is replaced: tests/spark/test_spark_outputs.py)
        out = tmp_path / other.replace(" ", "_")
        out.mkdir()
        (out / "written").write_text("an earlier output")
        mark_written(out, other)
        refused(capsys, [*args, out, "--overwrite"], out, f"is the output of fileindex {other}: --overwrite replaces "
                f"only an earlier output of fileindex {writer}; choose another folder")


def test_the_demo_workdir_must_be_new_or_empty_and_never_hold_the_current_folder(tmp_path, capsys, monkeypatch):
    work = tmp_path / "work"
    (work / "mine").mkdir(parents=True)
    (work / "mine" / "thesis.parquet").write_bytes(b"PAR1 precious PAR1")
    refused(capsys, ["demo", "--files", "3", "--rows", "1000", "--workdir", work], tmp_path,
            f"--workdir {work} exists and is not empty", "--overwrite")
    refused(capsys, ["demo", "--files", "3", "--rows", "1000", "--workdir", work, "--overwrite"], tmp_path,
            f"--workdir {work} holds files an earlier run did not write (such as mine)", "fileindex wrote")
    mark_written(work, "demo --workdir")  # as an earlier demo would have left it
    monkeypatch.chdir(work / "mine")
    refused(capsys, ["demo", "--files", "3", "--rows", "1000", "--workdir", work, "--overwrite"], tmp_path,
            "holds the current folder")


@pytest.fixture
def table(tmp_path):
    copy = tmp_path / "pk_with_bitmap_dv"
    shutil.copytree(PK_TABLE, copy)
    return copy


def test_spark_build_overwrite_never_replaces_an_index_file_a_snapshot_names(table, tmp_path, capsys):
    latest = "data-bfa36b28-40e7-4026-893b-d23116973174-0.parquet.index"
    refused(capsys, ["spark", "build", table, "--overwrite"], table, latest, "snapshot/snapshot-1",
            "never replaces a table's own index")
    # a data file given directly, whose index only an older snapshot names
    refused(capsys, ["spark", "build", table / OLDER_FILE, "--overwrite"], table, OLDER_FILE + ".index",
            "snapshot/snapshot-3")
    refused(capsys, ["spark", "build", table / "bucket-0", "--overwrite"], table, "of its table names")
    refused(capsys, ["spark", "build", table, "--output-dir", table / "bucket-0"], table,
            "--output-dir", "lies inside input")


def test_build_never_writes_over_another_data_file_or_an_index_a_snapshot_names(data, table, capsys):
    other = data / "part-1.parquet"
    for target in (data / "part-1.parquet.index", data.parent.parent / "link" / "part-1.parquet.index"):
        refused(capsys, ["build", data / "part-0.parquet", "-o", target, "--option",
                         "file-index.bitmap.columns=category", "--force"], data.parent.parent,
                "is the index of data file", str(other.name))
    (data / "part-1.parquet.index").unlink()  # absent: writing it would still answer for part-1's rows
    refused(capsys, ["build", data / "part-0.parquet", "-o", data / "part-1.parquet.index", "--option",
                     "file-index.bitmap.columns=category"], data.parent.parent, "is the index of data file")
    refused(capsys, ["build", data / "part-0.parquet", "-o", data.parent.parent / "link" / "part-0.parquet",
                     "--option", "file-index.bitmap.columns=category"], data.parent.parent, "is the data file itself")
    refused(capsys, ["build", table / OLDER_FILE, "--option", "file-index.bitmap.columns=f0", "--force"], table,
            "snapshot/snapshot-3 of its table names", "never replaced")


@pytest.mark.parametrize("target", ["snapshot/snapshot-1", "snapshot/snapshot-99", "schema/schema-0",
                                    "bucket-0/data-bfa36b28-40e7-4026-893b-d23116973174-0.parquet.bak"])
def test_build_never_writes_a_table_file_that_is_no_index_even_with_force(table, capsys, target):
    """A table's snapshots, schemas and data are Paimon's (a new snapshot-99 would be read as one): a new-user
    trial replaced snapshot-1 with an index by --force, and every later command on the table failed."""
    refused(capsys, ["build", table / OLDER_FILE, "-o", table / target, "--option", "file-index.bitmap.columns=f0",
                     "--force"], table, "lies in table", "not an .index file")


def test_a_read_output_on_an_object_store_is_refused_naming_the_uri(table, capsys):
    err = refused(capsys, ["read", table, "--output", "s3://lake/out.parquet"], table, "s3://lake/out.parquet",
                  "local file")
    assert "s3:/lake" not in err.replace("s3://lake", "")
