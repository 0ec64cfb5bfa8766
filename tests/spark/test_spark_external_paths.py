"""spark build and spark verify read a table's data files under external paths only from the folders
--allow-external-paths allows, as read, table and spark scan do (one shared option)."""
import json

from table_edits import copy_table, externalize

from fileindex.cli import main

TABLE = "append_with_bitmap_no_embedding"  # one data file with its Java-written sidecar
LOCAL = ["--master", "local[2,2]"]


def test_build_and_verify_read_an_external_path_only_where_allowed(spark, tmp_path, capsys):
    root = copy_table("parquet", TABLE, tmp_path)
    target = externalize(root, tmp_path / "ext" / "bucket-0")
    java_sidecar = target.with_name(target.name + ".index").read_bytes()
    allowed = ["--allow-external-paths", str(tmp_path / "ext")]

    assert main(["spark", "build", str(root), "--output-dir", str(tmp_path / "refused"), "--json", *LOCAL]) == 1
    out = capsys.readouterr().out
    (refused,) = [json.loads(line) for line in out.splitlines() if '"status"' in line]
    assert refused["status"] == "failed" and "--allow-external-paths" in refused["error"], refused
    assert main(["spark", "build", str(root), "--output-dir", str(tmp_path / "built"), "--json", *allowed,
                 *LOCAL]) == 0
    (built,) = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"status"' in line]
    assert built["status"] == "written" and (tmp_path / "built" / f"{target.name}.index").read_bytes() == java_sidecar

    assert main(["spark", "verify", str(root), "--json", *LOCAL]) == 3  # (exit 3: unreadable)
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["by_status"] == {"unreadable": 1}
    assert main(["spark", "verify", str(root), "--json", *allowed, *LOCAL]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["by_status"] == {"ok": 1} and summary["checks"] > 0
