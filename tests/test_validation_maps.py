"""Each spec's `valid`/`contents` checks map to the error they mean.

A failed check reaches decoding/kaitai.py as the ``src_path`` of the field; the decoder's map (``_VALIDATIONS``)
turns it into a project error, and a path missing from the map falls back to the generic DecodeError. So a
check added to a .ksy without its map entry, or a map entry whose field moved, fails here rather than
silently weakening an error.
"""
import importlib
import re

import pytest
from conftest import ROOT
from specs_yaml import generated_source, spec_names, validated_fields

from fileindex import errors

IMPORTED_ONLY = {"roaring_bitmap"}  # framed by indexes/roaring.py; read by Kaitai only inside the other specs


def decoder_maps() -> dict[str, dict]:
    """Each decoder's map, by the spec it reads: every module that defines ``_VALIDATIONS`` passes it to
    decoding/kaitai.py with ``root=ROOT``, ROOT being its spec's id. Found in the source, so the maps are
    covered wherever their modules move."""
    maps: dict[str, dict] = {}
    for path in sorted((ROOT / "fileindex").rglob("*.py")):
        if re.search(r"^_VALIDATIONS\b", path.read_text(), re.MULTILINE):
            module = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))
            assert module.ROOT not in maps, f"two maps for specs/{module.ROOT}.ksy"
            maps[module.ROOT] = module._VALIDATIONS
    return maps


MAPS = decoder_maps()


def expected_error(field: dict) -> type[errors.DecodeError]:
    """The error a check means, from its form: a magic number is a BadMagicError, a fixed value (a version,
    or a header length that only another version would change) an UnsupportedVersionError, a range on a
    length or count an InvalidLengthError."""
    if "contents" in field or field["id"].endswith("magic"):
        return errors.BadMagicError
    valid = field["valid"]
    if not isinstance(valid, dict) or set(valid) <= {"eq", "any-of"}:
        return errors.UnsupportedVersionError
    if set(valid) <= {"min", "max"}:
        return errors.InvalidLengthError
    raise AssertionError(f"no rule for the check {valid!r} on {field['id']}: extend expected_error")


def test_every_spec_is_read_with_a_map():
    assert set(spec_names()) == set(MAPS) | IMPORTED_ONLY


@pytest.mark.parametrize("spec", sorted(MAPS))
def test_the_spec_walk_finds_the_checks_the_generated_reader_reports(spec):
    reported = set(re.findall(r'Validation\w+Error\(.*?u"(/[^"]*)"\)', generated_source(spec)))
    assert set(validated_fields(spec)) == reported


@pytest.mark.parametrize("spec", sorted(MAPS))
def test_every_check_maps_to_the_error_it_means(spec):
    mapped = MAPS[spec]
    wrong = {
        path: (field["id"], mapped.get(path, errors.DecodeError).__name__, expected_error(field).__name__)
        for path, field in validated_fields(spec).items()
        if mapped.get(path) is not expected_error(field)
    }
    assert not wrong, f"specs/{spec}.ksy: src_path: (field, mapped to, expected) {wrong}"


@pytest.mark.parametrize("spec", sorted(MAPS))
def test_no_map_entry_names_a_field_without_a_check(spec):
    assert set(MAPS[spec]) <= set(validated_fields(spec))


def test_the_rule_tells_the_kinds_of_check_apart():
    assert expected_error({"id": "magic", "contents": [0]}) is errors.BadMagicError
    assert expected_error({"id": "version", "valid": {"any-of": [1, 2]}}) is errors.UnsupportedVersionError
    assert expected_error({"id": "len_header", "valid": 13}) is errors.UnsupportedVersionError
    assert expected_error({"id": "num_slices", "valid": {"min": 0, "max": 64}}) is errors.InvalidLengthError
    with pytest.raises(AssertionError, match="no rule"):
        expected_error({"id": "cookie", "valid": {"expr": "_ == 1"}})
