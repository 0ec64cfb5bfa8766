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
from fileindex.decoding import kaitai


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


DECODER_MAPS = decoder_maps()
# with the maps of the specs read only inside others (roaring_bitmap: framed by indexes/roaring.py otherwise)
MAPS = DECODER_MAPS | dict(kaitai.IMPORTED_VALIDATIONS)


def expected_error(field: dict) -> type[errors.DecodeError]:
    """The error a check means, from its form: a magic number is a BadMagicError, a fixed value (a version,
    or a header length that only another version would change) an UnsupportedVersionError, a range on a
    length or count an InvalidLengthError, an expression (a value outside the encoding's forms, such as the
    Roaring cookie) an InvalidEncodingError."""
    if "contents" in field or field["id"].endswith("magic"):
        return errors.BadMagicError
    valid = field["valid"]
    if not isinstance(valid, dict) or set(valid) <= {"eq", "any-of"}:
        return errors.UnsupportedVersionError
    if set(valid) <= {"min", "max"}:
        return errors.InvalidLengthError
    if set(valid) == {"expr"}:
        return errors.InvalidEncodingError
    raise AssertionError(f"no rule for the check {valid!r} on {field['id']}: extend expected_error")


def test_every_spec_is_read_with_a_map():
    assert set(spec_names()) == set(MAPS)
    assert not set(DECODER_MAPS) & set(kaitai.IMPORTED_VALIDATIONS), "a spec read on its own has its decoder's map"


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
    assert expected_error({"id": "cookie", "valid": {"expr": "_ == 1"}}) is errors.InvalidEncodingError
    with pytest.raises(AssertionError, match="no rule"):
        expected_error({"id": "kind", "valid": {"in-enum": True}})


def test_a_failed_check_in_an_imported_spec_is_looked_up_in_that_specs_map():
    """The Roaring cookie's check reports /seq/0 of roaring_bitmap.ksy; range_bitmap.ksy's /seq/0 (its
    len_header, an InvalidLengthError) must not be what it means."""
    from fileindex.generated.roaring_bitmap import RoaringBitmap
    from fileindex.indexes.range_bitmap import reader

    assert reader._VALIDATIONS["/seq/0"] is errors.InvalidLengthError  # the clash this test is about
    bad_cookie = (12345).to_bytes(4, "little") + bytes(12)
    with pytest.raises(errors.InvalidEncodingError) as raised:
        kaitai.parse(RoaringBitmap, bad_cookie, root=reader.ROOT, validations=reader._VALIDATIONS, base=100)
    assert raised.value.offset == 100


def test_a_failed_check_in_the_spec_being_read_is_looked_up_in_its_own_map():
    import functools

    from fileindex.generated.range_bitmap import RangeBitmap
    from fileindex.indexes.range_bitmap import reader

    negative_len_header = (-1).to_bytes(4, "big", signed=True) + bytes(64)
    with pytest.raises(errors.InvalidLengthError):
        kaitai.parse(functools.partial(RangeBitmap, 0), negative_len_header, root=reader.ROOT,
                     validations=reader._VALIDATIONS)
