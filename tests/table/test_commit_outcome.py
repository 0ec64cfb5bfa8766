"""The commit's outcome is its return value; a commit that other writers beat on every attempt (a rewrite's
snapshot, an ALTER's schema) is a CommitConflict that leaves nothing of its own behind and exits 5; the
test-only seam (fileindex.table.stages) that stops a write at its stages."""
import json
from pathlib import Path

import pytest
from conftest import ROOT

from fileindex.cli.app import main
from fileindex.cli.exits import EXIT_CONFLICT
from fileindex.table import commit
from fileindex.table.commit import commit_changes
from fileindex.table.errors import CommitConflict
from fileindex.table.metadata import latest_snapshot_id
from fileindex.table.options_alter import alter_table_options
from fileindex.table.rewrite import rewrite_file_index
from fileindex.table.rewrite_plan import plan_rewrite, rewrite_file
from fileindex.table.stages import Stage, reached, watching
from fileindex.table.store import TableStore

SOURCE = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"


@pytest.fixture
def table(tmp_path) -> Path:
    import shutil

    root = tmp_path / "t"
    shutil.copytree(SOURCE, root)
    alter_table_options(root, set={"file-index.in-manifest-threshold": "1 B"})  # every index becomes a sidecar
    return root


def files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def test_commit_changes_returns_what_it_committed(table):
    plan = plan_rewrite(table)
    changes = [rewrite_file(job) for job in plan.jobs]
    outcome = commit_changes(plan, changes)
    assert (outcome.snapshot_id, outcome.attempts, outcome.dropped) == (plan.snapshot_id + 1, 1, [])
    assert outcome.committed == changes and all(Path(c.written).is_file() for c in changes)
    assert (table / "snapshot" / "LATEST").read_text() == str(outcome.snapshot_id)


def test_a_commit_whose_files_all_changed_meanwhile_drops_them_and_links_nothing(table):
    plan = plan_rewrite(table)
    changes = [rewrite_file(job) for job in plan.jobs]
    assert rewrite_file_index(table).snapshot_id == plan.snapshot_id + 1  # another run indexes them first
    outcome = commit_changes(plan, changes)
    assert outcome.snapshot_id is None and outcome.committed == [] and outcome.dropped == changes
    assert not any(Path(c.written).exists() for c in changes)
    assert latest_snapshot_id(TableStore(table)) == plan.snapshot_id + 1


def another_writer_wins(root: Path):
    """A watcher: just before the link, another writer commits the snapshot id this commit is about to take (a
    copy of the latest snapshot under the next id: the live files stay the same, so the commit retries them)."""
    def commit_first(stage: Stage) -> None:
        if stage == Stage.SNAPSHOT:
            latest = latest_snapshot_id(TableStore(root))
            data = json.loads((root / "snapshot" / f"snapshot-{latest}").read_text())
            data["id"] = latest + 1
            (root / "snapshot" / f"snapshot-{latest + 1}").write_text(json.dumps(data, indent=2))
            (root / "snapshot" / "LATEST").write_text(str(latest + 1))

    return commit_first


@pytest.fixture
def raced(table, monkeypatch):
    monkeypatch.setattr(commit.time, "sleep", lambda seconds: None)  # the back-off between attempts
    return table


def test_a_commit_beaten_on_every_attempt_is_a_conflict_that_leaves_only_the_winners_files(raced):
    before = files(raced)
    first = latest_snapshot_id(TableStore(raced))
    with pytest.raises(CommitConflict, match="other writers committed 3 times while this commit tried; nothing "
                                             "was committed"), watching(another_writer_wins(raced)):
        rewrite_file_index(raced, max_attempts=3)
    winners = {f"snapshot/snapshot-{first + n}" for n in (1, 2, 3)}
    assert files(raced) == before | winners  # no sidecar, manifest or list of this commit's is left
    assert (raced / "snapshot" / "LATEST").read_text() == str(first + 3)


def test_the_command_line_exits_with_the_conflict_code(raced, capsys):
    with watching(another_writer_wins(raced)):
        assert main(["rewrite", str(raced)]) == EXIT_CONFLICT == 5
    assert "other writers committed 10 times" in capsys.readouterr().err


def test_an_alter_beaten_on_every_attempt_is_a_conflict(table, monkeypatch, capsys):
    before = files(table)
    monkeypatch.setattr(TableStore, "link", staticmethod(lambda path, data: False))  # the id is always taken
    with pytest.raises(CommitConflict, match="other writers changed the schema 20 times"):
        alter_table_options(table, set={"file-index.bitmap.columns": "f0"})
    assert main(["table", str(table), "--set", "file-index.bitmap.columns=f0"]) == EXIT_CONFLICT
    assert "nothing was committed" in capsys.readouterr().err
    assert files(table) == before


def test_the_stages_do_nothing_unless_watched_and_a_watchers_own_writes_pass_unwatched():
    seen: list[tuple[str, Stage]] = []
    reached(Stage.SIDECARS)  # nobody watches: nothing happens

    def outer(stage: Stage) -> None:
        seen.append(("outer", stage))
        reached(Stage.LATEST)  # a write the watcher starts itself

    with watching(outer):
        reached(Stage.MANIFESTS)
        with watching(lambda stage: seen.append(("inner", stage))):
            reached(Stage.SNAPSHOT)
        reached(Stage.LATEST)
    reached(Stage.SIDECARS)
    assert seen == [("outer", Stage.MANIFESTS), ("inner", Stage.SNAPSHOT), ("outer", Stage.LATEST)]
