"""fileindex kit run: this project's adapter passes everything, a wrong adapter fails with the right counts,
the one-call contract, producer × consumer, and the reports."""
import json
import shutil

import pytest
from kit_fixtures import ADAPTER, WRONG, relist, small_corpus

from fileindex.cli import main
from fileindex.errors import UsageError
from fileindex.kit import report
from fileindex.kit.corpus import NAME, cases, load_json
from fileindex.kit.runner import CORPUS, FAIL, NOT_WRITTEN, PASS, UNSUPPORTED, run

WHOLE_FILE = ("REMAIN", "SKIP")


def count(results, status=None, **where):
    return sum(1 for o in results.outcomes
               if (status is None or o.status == status) and all(getattr(o, k) == v for k, v in where.items()))


def tier1_cases(folder, version):
    return [item for case in cases(folder, version) for item in case.sidecar["cases"]]


def test_this_projects_adapter_passes_every_check_of_the_corpus(kit_folder, self_results):
    assert self_results.ok
    assert self_results.totals() == {PASS: len(self_results.outcomes), FAIL: 0, UNSUPPORTED: 0, NOT_WRITTEN: 0}
    every_case = tier1_cases(kit_folder, "v1") + tier1_cases(kit_folder, "v2") + tier1_cases(kit_folder, "multi")
    assert count(self_results, producer=CORPUS, check="read") == len(every_case)
    containers = len(cases(kit_folder, "v1")) + len(cases(kit_folder, "v2")) + len(cases(kit_folder, "multi"))
    assert count(self_results, producer=CORPUS, check="head") == containers
    assert count(self_results, check="write") == len(cases(kit_folder, "v1"))
    assert count(self_results, check="refuse") == len(load_json(kit_folder / "refusals.json")["refusals"])
    assert count(self_results, check="reject") + count(self_results, check="fail-open") == len(cases(kit_folder, "bad"))
    table_cases = [item for c in cases(kit_folder, "tables") for item in c.sidecar["cases"]]
    assert count(self_results, check="scan") == len([item for item in table_cases if "files" in item["expected"]])
    assert count(self_results, check="rows") == len(table_cases)
    # what it wrote, it read back: every v1 case once more
    assert count(self_results, producer="paimon-fileindex", check="read") == len(tier1_cases(kit_folder, "v1"))


def test_a_wrong_adapter_fails_exactly_the_checks_its_wrong_answers_and_bytes_touch(kit_folder, self_results,
                                                                                    tmp_path):
    wrong = run(kit_folder, [f"{WRONG} --flip-answers --flip-bytes"], tmp_path)
    assert len(wrong.outcomes) == len(self_results.outcomes)  # the same checks, whatever the answers
    whole = [item for version in ("v1", "v2") for item in tier1_cases(kit_folder, version)
             if item["expected"]["result"] in WHOLE_FILE]
    assert count(wrong, FAIL, producer=CORPUS, check="read") == len(whole)
    blooms = [c for c in cases(kit_folder, "v1") if c.layout == "bloom-filter"]
    assert count(wrong, FAIL, check="write") == len(blooms)
    assert count(wrong, NOT_WRITTEN, producer="wrong", check="head") == len(blooms)  # counted, not dropped
    assert count(wrong, NOT_WRITTEN, producer="wrong", check="read") == sum(len(c.sidecar["cases"]) for c in blooms)
    own = [item for c in cases(kit_folder, "v1") if c.layout != "bloom-filter" for item in c.sidecar["cases"]
           if item["expected"]["result"] in WHOLE_FILE]
    assert count(wrong, FAIL, producer="wrong", check="read") == len(own)
    failed_open = [o.case for o in wrong.outcomes if o.check == "fail-open" and o.status == FAIL]
    # the MAY cases this project answers REMAIN (flipped to SKIP); the others it answers with an error
    assert failed_open == ["null_literal_bsi", "null_literal_range_bitmap", "unknown_index_type_lumina"]
    assert count(wrong, FAIL, check="reject") == 0 and count(wrong, FAIL, check="refuse") == 0
    assert count(wrong, FAIL, producer=CORPUS, check="head") == 0


def tables_corpus(kit_folder, target, keep=None):
    """A kit folder with the Tier 2 tables alone (those named in ``keep``, if given)."""
    shutil.copytree(kit_folder / "tables", target / "tables",
                    ignore=None if keep is None else lambda folder, names: [
                        n for n in names if folder == str(kit_folder / "tables") and n not in keep])
    shutil.copy(kit_folder / "manifest.json", target / "manifest.json")
    (target / "refusals.json").write_text(json.dumps({"refusals": []}))
    return relist(target)


def test_a_dropped_row_fails_the_rows_check_of_exactly_the_cases_with_rows(kit_folder, tmp_path):
    folder = tables_corpus(kit_folder, tmp_path / "tables")
    table_cases = [item for c in cases(folder, "tables") for item in c.sidecar["cases"]]
    with_rows = [item for item in table_cases if item["expected"]["rows"]]
    assert 0 < len(with_rows) < len(table_cases)
    wrong = run(folder, [f"{WRONG} --drop-row"], tmp_path / "work")
    assert count(wrong, FAIL, check="rows") == len(with_rows)
    assert count(wrong, PASS, check="rows") == len(table_cases) - len(with_rows)
    assert all("missing" in o.detail for o in wrong.outcomes if o.status == FAIL)
    assert count(wrong, FAIL) == len(with_rows)  # the scans are untouched
    # one process per request: two tables (an append table's and a primary-key table's cases), not all ten
    few = tables_corpus(kit_folder, tmp_path / "few", keep=("append_with_bitmap", "pk_with_bitmap_dv"))
    few_cases = [item for c in cases(few, "tables") for item in c.sidecar["cases"]]
    assert 0 < len(few_cases) < len(table_cases)
    without = run(few, [f"{WRONG} --no-rows --one-call"], tmp_path / "work2")
    assert count(without, UNSUPPORTED, check="rows") == len(few_cases) and without.ok
    assert count(without, PASS, check="scan") == len([item for item in few_cases if "files" in item["expected"]]) > 0


def test_the_one_call_contract_and_producer_by_consumer(kit_folder, tmp_path):
    folder = small_corpus(kit_folder, tmp_path / "small", cases_each=1)
    results = run(folder, [f"{WRONG} --one-call", ADAPTER], tmp_path / "work")
    assert set(results.implementations) == {"wrong", "paimon-fileindex"}
    assert not results.implementations["wrong"]["batch"]
    assert results.ok, [o.detail for o in results.outcomes if o.status == FAIL]
    pairs = {(o.consumer, o.producer) for o in results.outcomes if o.check == "read"}
    assert pairs == {(c, p) for c in ("wrong", "paimon-fileindex") for p in (CORPUS, "wrong", "paimon-fileindex")}
    assert count(results, consumer="wrong", producer=CORPUS, layout="bitmap-v1@v2", check="read") == 1


def test_layouts_outside_an_adapters_capabilities_are_unsupported_not_failed(kit_folder, tmp_path):
    folder = small_corpus(kit_folder, tmp_path / "small")
    results = run(folder, [f"{WRONG} --only bloom-filter"], tmp_path / "work")
    assert results.ok
    others = [c for version in ("v1", "v2") for c in cases(folder, version)
              if (c.layout, c.sidecar["container_version"]) != ("bloom-filter", 1)]
    assert count(results, UNSUPPORTED, producer=CORPUS, check="read") == sum(len(c.sidecar["cases"]) for c in others)
    assert count(results, UNSUPPORTED, check="write") == len([c for c in cases(folder, "v1")
                                                              if c.layout != "bloom-filter"])
    assert count(results, PASS, producer=CORPUS, layout="bloom-filter", check="read") == 3


def test_reports_show_the_matrix_in_the_terminal_as_json_and_as_html(self_results):
    text = report.terminal(self_results)
    assert "paimon-fileindex ← corpus" in text and text.rstrip().endswith("PASS")
    document = report.to_json(self_results)
    assert document["totals"]["paimon-fileindex"][PASS] == len(self_results.outcomes)
    assert document["matrix"]["paimon-fileindex ← corpus"]["bloom-filter"][PASS] > 0
    assert sum(r[PASS] for r in document["rows"]) == len(self_results.outcomes)
    page = report.to_html(self_results)
    assert page.startswith("<!DOCTYPE html>") and '<td class="pass">' in page and 'class="fail"' not in page


def test_the_command_line(kit_folder, tmp_path, capsys):
    folder = small_corpus(kit_folder, tmp_path / "small")
    out_json, out_html = tmp_path / "r.json", tmp_path / "r.html"
    assert main(["kit", "run", str(folder), "--impl", ADAPTER, "--json", str(out_json), "--html", str(out_html)]) == 0
    assert "PASS" in capsys.readouterr().out
    assert json.loads(out_json.read_text())["totals"]["paimon-fileindex"][FAIL] == 0 and out_html.is_file()
    assert main(["kit", "run", str(folder), "--impl", f"{WRONG} --flip-answers"]) == 1
    assert "FAIL (unsound) wrong ← corpus" in capsys.readouterr().out
    assert main(["kit", "run", str(tmp_path), "--impl", ADAPTER]) == 2  # the folder export wrote the kit into
    assert f"holds a kit but is not one: give {folder}" in capsys.readouterr().err
    assert main(["kit", "run", str(tmp_path / "nope"), "--impl", ADAPTER]) == 2
    assert "nope does not exist" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["kit", "run", str(tmp_path / "empty"), "--impl", ADAPTER]) == 2
    assert "manifest.json is missing" in capsys.readouterr().err
    # reports that cannot be written, or would replace a file of the corpus, are refused before the run
    manifest = (folder / "manifest.json").read_bytes()
    for flag, output, message in (("--json", tmp_path / "no" / "r.json", "cannot write there"),
                                  ("--html", folder / "manifest.json", "lies inside input")):
        assert main(["kit", "run", str(folder), "--impl", f"{WRONG} --die", flag, str(output)]) == 2
        assert message in capsys.readouterr().err
    assert (folder / "manifest.json").read_bytes() == manifest
    case = folder / "containers/v1/bloom-filter/int_nulls__bloom.index"
    assert main(["kit", "adapter", "head", str(case)]) == 0
    assert json.loads(capsys.readouterr().out)["head"]["columns"][0]["column"] == "c"
    assert main(["kit", "adapter", "read", str(case), "--schema", '{"c": "INT"}', "--where", "{"]) == 2
    assert "--where is not JSON" in capsys.readouterr().err


def test_export_refuses_a_folder_that_holds_a_corpus_already(tmp_path, capsys):
    (tmp_path / NAME).mkdir()
    (tmp_path / NAME / "VERSION").write_text("0.9\n")
    assert main(["kit", "export", str(tmp_path)]) == 2
    assert "exists and is not empty" in capsys.readouterr().err
    assert (tmp_path / NAME / "VERSION").read_text() == "0.9\n"


def test_an_adapter_that_cannot_start_is_a_usage_error(kit_folder, tmp_path):
    with pytest.raises(UsageError, match="capabilities did not answer"):
        run(kit_folder, [str(tmp_path / "no-such-adapter")], tmp_path)


@pytest.mark.parametrize("flag", ["--garbage", "--die"])
def test_an_adapter_that_answers_garbage_or_dies_fails_those_checks_and_the_run_goes_on(kit_folder, tmp_path, flag):
    folder = small_corpus(kit_folder, tmp_path / "small", cases_each=2)
    results = run(folder, [f"{WRONG} {flag}"], tmp_path / "work")
    reads = [o for o in results.outcomes if o.check == "read"]
    why = {"--garbage": "protocol error: not a JSON object", "--die": "exited with status 3 without an answer"}[flag]
    assert reads and all(o.status == FAIL and why in o.detail for o in reads)
    assert all(o.status == PASS for o in results.outcomes if o.check in ("head", "write", "reject"))
    assert len(results.outcomes) == len(run(folder, [ADAPTER], tmp_path / "work2").outcomes)


def test_a_corpus_tarball_runs_as_its_folder(exported, tmp_path):
    folder, archive, _ = exported
    small = small_corpus(folder, tmp_path / NAME, cases_each=1)
    import tarfile

    packed = tmp_path / "small.tar.gz"
    with tarfile.open(packed, "w:gz") as tar:
        tar.add(small, arcname=small.name)
    assert run(packed, [ADAPTER], tmp_path / "w").ok
    assert main(["kit", "run", str(packed), "--impl", ADAPTER]) == 0


def test_a_relative_corpus_folder_names_its_tables_under_tables_at(kit_folder, tmp_path, monkeypatch):
    """trial18: with a relative folder every table case failed ("... is not in the subpath of ...") and most of its
    checks vanished from the count; the table paths are absolute, so the folder is resolved where the run starts."""
    case = "append_with_bitmap"
    monkeypatch.chdir(kit_folder.parent)
    results = run(kit_folder.name, [ADAPTER], tmp_path / "w", only=[case], tables_at=str(kit_folder / "tables"))
    assert results.ok, [o.detail for o in results.outcomes if o.status == FAIL][:3]
    assert len(results.outcomes) == len(run(kit_folder, [ADAPTER], tmp_path / "w2", only=[case]).outcomes)
