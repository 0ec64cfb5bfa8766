"""verify's designed fpp: the configured one when the options are known, else an estimate that says so."""
from conftest import ROOT
from generated_data import write_dataset

from fileindex.pipeline.inputs import resolve_inputs
from fileindex.pipeline.report import render_text, summarize
from fileindex.pipeline.verify import verify_file

BLOOM_TABLE = ROOT / "tests" / "tables" / "parquet" / "append_with_bloomfilter.db" / "append_with_bloomfilter"


def verified(inputs):
    return [verify_file(task) for task in resolve_inputs([str(p) for p in inputs]).tasks]


def test_a_tables_filters_report_the_configured_fpp():
    reports = verified([BLOOM_TABLE])
    assert {fpp for r in reports for fpp in r.designed_fpp.values()} == {0.1}  # Java's default; m and k say 0.125
    assert not any(r.fpp_estimated for r in reports)
    text = render_text(summarize([r.as_row() for r in reports]))
    assert "designed fpp 0.1)" in text and "estimated" not in text


def test_sidecars_without_options_report_an_estimate_and_say_so(tmp_path):
    reports = verified(write_dataset(tmp_path, files=1))
    assert reports[0].fpp_estimated and reports[0].designed_fpp
    summary = summarize([r.as_row() for r in reports])
    assert summary["bloom"]["designed_fpp_estimated"] is True
    assert "estimated from the filters' bits and hash functions" in render_text(summary)
