"""`fileindex conformance DIR` on an untrusted folder: what vectors.json names is read only inside the
folder, only from regular files within the size limits (the helper the kit uses). Each refusal is one
line and exit 3, under a memory limit, without hanging on a pipe or reading /dev/zero."""
import json
import os
import shutil

import pytest
from conftest import JAVA_VECTORS
from hostile import fileindex, refused

RECORD = "int_nulls__bloom"


@pytest.fixture
def folder(tmp_path):
    """tmp_path/vectors: one record of the Java vectors, its dataset and file; tmp_path/outside: a copy
    of them outside it."""
    document = json.loads((JAVA_VECTORS / "vectors.json").read_text())
    record = next(v for v in document["vectors"] if v["name"] == RECORD)
    vectors = tmp_path / "vectors"
    (vectors / "datasets").mkdir(parents=True)
    shutil.copy(JAVA_VECTORS / record["file"], vectors / record["file"])
    shutil.copy(JAVA_VECTORS / "datasets" / f"{record['dataset']}.json", vectors / "datasets")
    (vectors / "vectors.json").write_text(json.dumps({"vectors": [record]}))
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(JAVA_VECTORS / record["file"], outside / "victim.index")
    shutil.copy(JAVA_VECTORS / "datasets" / f"{record['dataset']}.json", outside / "victim.json")
    return vectors


def with_record(folder, **changes):
    document = json.loads((folder / "vectors.json").read_text())
    document["vectors"][0].update({key: value.replace("{outside}", str(folder.parent / "outside"))
                                   for key, value in changes.items()})
    (folder / "vectors.json").write_text(json.dumps(document))


def test_the_small_folder_itself_passes(folder):
    done = fileindex("conformance", folder, "--no-manifest")
    assert done.returncode == 0 and done.stdout.rstrip().endswith("PASS"), done.stdout[-2000:] + done.stderr


HOSTILE = {
    "file absolute": ({"file": "{outside}/victim.index"}, "absolute path"),
    "file dotdot": ({"file": "../outside/victim.index"}, "'..'"),
    "file /dev/zero": ({"file": "/dev/zero"}, "absolute path"),
    "dataset dotdot": ({"dataset": "../../outside/victim"}, "'..'"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_paths_out_of_the_folder_are_refused(folder, case):
    changes, fragment = HOSTILE[case]
    with_record(folder, **changes)
    refused(fileindex("conformance", folder, "--no-manifest"), fragment)


def test_a_device_behind_a_symlink_is_refused(folder):
    (folder / "zero.index").symlink_to("/dev/zero")
    with_record(folder, file="zero.index")
    refused(fileindex("conformance", folder, "--no-manifest"), "zero.index", "outside")


def test_a_dataset_linked_out_of_the_folder_is_refused(folder):
    (folder / "datasets" / "linked.json").symlink_to(folder.parent / "outside" / "victim.json")
    with_record(folder, dataset="linked")
    refused(fileindex("conformance", folder, "--no-manifest"), "datasets/linked.json", "outside")


def test_a_named_pipe_is_refused_without_hanging(folder):
    os.mkfifo(folder / "pipe.index")
    with_record(folder, file="pipe.index")
    refused(fileindex("conformance", folder, "--no-manifest", timeout=60), "pipe.index", "named pipe")


def test_vectors_json_as_a_pipe_or_huge_is_refused(folder):
    (folder / "vectors.json").unlink()
    os.mkfifo(folder / "vectors.json")
    refused(fileindex("conformance", folder, timeout=60), "vectors.json", "named pipe")
    (folder / "vectors.json").unlink()
    with open(folder / "vectors.json", "wb") as huge:
        huge.truncate(1 << 30)  # sparse
    refused(fileindex("conformance", folder), "vectors.json", "more than the limit")
