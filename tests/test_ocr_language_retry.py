"""OCR script detection: a scan in a script the configured languages do not read (a Hindi
notice under the default `eng`) is read again with the installed packs of that script."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES

from ingest.contracts.elements import ElementType
from parsers.ocr.language_retry import languages_with_script, page_needs_script_check
from parsers.pdf import parse_pdf

INSTALLED = frozenset({"eng", "hin", "mar", "osd"})


def test_script_packs_are_added_after_the_configured_languages():
    assert languages_with_script("eng", "Devanagari", INSTALLED) == "eng+hin+mar"


def test_nothing_is_added_when_the_script_is_covered_unknown_or_not_installed():
    assert languages_with_script("eng+hin", "Devanagari", INSTALLED) is None
    assert languages_with_script("eng", "Latin", INSTALLED) is None
    assert languages_with_script("eng", None, INSTALLED) is None
    assert languages_with_script("eng", "Arabic", INSTALLED) is None


def test_a_whole_script_pack_counts():
    assert languages_with_script("eng", "Han", frozenset({"eng", "script/Han"})) == "eng+script/Han"


def test_only_a_page_read_with_low_confidence_is_checked():
    assert page_needs_script_check(43.0)
    assert not page_needs_script_check(93.4)
    assert not page_needs_script_check(None)


@pytest.mark.slow
def test_hindi_scan_under_default_languages_gives_its_devanagari_headings():
    pytest.importorskip("pytesseract")
    truth = json.loads((FIXTURES / "scanned_hi.truth.json").read_text(encoding="utf-8"))
    document = parse_pdf(FIXTURES / "scanned_hi.pdf", {})
    titles = [e.text for e in document.elements if e.type is ElementType.title]
    assert titles == [truth["title"]] + [heading["text"] for heading in truth["headings"]]
    assert any("eng+hin+mar" in warning for warning in document.warnings)
