"""OCR on the fixtures' image-only pages: what a user would check by reading the output.

Word recall = share of the truth text's words (a multiset, case-folded, NFC) that the OCR
text contains; truth comes from fixtures/*.truth.json, never typed here.
"""

from __future__ import annotations

import json
import re
import unicodedata

import pytest
from conftest import FIXTURES

from ingest.contracts.elements import ElementType, TextSource
from ingest.contracts.errors import OcrError, OcrUnavailableError
from ingest.evaluation.scoring import word_recall
from parsers.ocr.tesseract import check_ocr_available, debian_package_for, ocr_pages
from parsers.settings import OcrSettings

pytestmark = pytest.mark.slow


def truth(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.truth.json").read_text(encoding="utf-8"))


def body_text(result) -> str:
    return "\n".join(e.text for e in result.elements if not e.is_furniture)


def squash(text: str) -> str:
    """For comparing a cell despite OCR spacing ('1ml' vs '1 ml') and case."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFC", text)).casefold()


@pytest.fixture(scope="module")
def notice():
    return ocr_pages(FIXTURES / "scanned_notice.pdf", [1], OcrSettings(languages="eng", dpi=200))[1]


@pytest.fixture(scope="module")
def hindi():
    return ocr_pages(FIXTURES / "scanned_hi.pdf", [1], OcrSettings(languages="hin", dpi=200))[1]


def test_english_scan_word_recall_at_least_95_percent(notice):
    assert notice.error is None
    recall = word_recall(truth("scanned_notice")["text"], body_text(notice))
    assert recall >= 0.95, f"word recall {recall:.3f}"


def test_devanagari_scan_word_recall_at_least_85_percent(hindi):
    assert hindi.error is None
    recall = word_recall(truth("scanned_hi")["text"], body_text(hindi))
    assert recall >= 0.85, f"word recall {recall:.3f}"


def test_devanagari_words_are_not_broken_and_dandas_are_kept(hindi):
    text = body_text(hindi)
    # a token that starts with a vowel sign or virama means a space was put inside a word
    broken = [w for w in text.split() if unicodedata.category(w[0]) in ("Mn", "Mc")]
    assert broken == []
    expected_dandas = truth("scanned_hi")["text"].count("।")
    assert text.count("।") >= 0.9 * expected_dandas


@pytest.mark.parametrize("name, fixture", [("scanned_notice", "notice"), ("scanned_hi", "hindi")])
def test_headings_are_found_as_titles(name, fixture, request):
    result = request.getfixturevalue(fixture)
    titles = {squash(e.text) for e in result.elements if e.type is ElementType.title}
    expected = [truth(name)["title"]] + [h["text"] for h in truth(name)["headings"]]
    missing = [h for h in expected if squash(h) not in titles]
    assert missing == []
    levels = {squash(e.text): e.heading_level for e in result.elements if e.type is ElementType.title}
    # the document title is set largest: it is never below a section heading
    assert levels[squash(truth(name)["title"])] == min(levels.values())


def test_dose_label_and_value_stay_in_one_element(notice):
    dose_lines = [b["text"] for b in truth("scanned_notice")["blocks"] if b["text"].startswith("Dose:")]
    assert dose_lines
    texts = [squash(e.text) for e in notice.elements]
    for line in dose_lines:
        assert any(squash(line) in text for text in texts), line


def test_ruled_table_rows_keep_their_cells_together(notice):
    (expected,) = truth("scanned_notice")["tables"]
    tables = [e for e in notice.elements if e.type is ElementType.table]
    assert len(tables) == 1
    rows = [[squash(cell) for cell in row] for row in tables[0].rows]
    for row in expected["header"] + expected["rows"]:
        assert [squash(cell) for cell in row] in rows, row
    assert tables[0].header_rows == 1


def test_mixed_scanned_page_label_lines_and_table_rows():
    result = ocr_pages(FIXTURES / "mixed.pdf", [2], OcrSettings(languages="eng", dpi=200))[2]
    texts = [squash(e.text) for e in result.elements]
    for block in truth("mixed")["blocks"]:
        if block["page"] == 2 and block["type"] == "paragraph" and ":" in block["text"][:25]:
            assert squash(block["text"]) in texts, block["text"]
    (table,) = [e for e in result.elements if e.type is ElementType.table]
    expected_rows = truth("mixed")["tables"][0]["rows"]
    rows = [[squash(c) for c in row] for row in table.rows]
    found = sum(1 for row in expected_rows if [squash(c) for c in row] in rows)
    assert found >= len(expected_rows) - 1  # one OCR slip in a value is tolerated, not a lost row
    # the running header and page number inside the scan are furniture, not body text
    furniture = {e.text for e in result.elements if e.is_furniture}
    assert furniture & set(truth("mixed")["furniture"])


def test_elements_are_ocr_sourced_with_confidence_and_bboxes_in_points(notice):
    assert 50 <= notice.confidence <= 100
    for element in notice.elements:
        assert element.source is TextSource.ocr and element.page == 1
        assert element.confidence is not None
        x0, top, x1, bottom = element.bbox
        assert 0 <= x0 < x1 <= 595.3 and 0 <= top < bottom <= 841.9  # A4 in points
    title = next(e for e in notice.elements if e.type is ElementType.title)
    assert title.bbox[1] < 120  # near the top of the page, not in pixels


def test_bbox_does_not_depend_on_dpi(notice):
    at_300 = ocr_pages(FIXTURES / "scanned_notice.pdf", [1], OcrSettings(dpi=300))[1]
    first_200, first_300 = notice.elements[0].bbox, at_300.elements[0].bbox
    assert all(abs(a - b) < 3 for a, b in zip(first_200, first_300))


def test_two_workers_read_the_same_as_one():
    path = FIXTURES / "mixed.pdf"
    one = ocr_pages(path, [2, 1], OcrSettings(workers=1, dpi=150))
    two = ocr_pages(path, [2, 1], OcrSettings(workers=2, dpi=150))
    assert list(two) == [2, 1]
    assert {n: [e.text for e in r.elements] for n, r in one.items()} == {
        n: [e.text for e in r.elements] for n, r in two.items()
    }


def test_missing_page_is_a_page_error_not_an_exception():
    results = ocr_pages(FIXTURES / "scanned_notice.pdf", [7], OcrSettings())
    assert results[7].error and "no page 7" in results[7].error
    assert results[7].elements == []


def test_unreadable_file_raises_ocr_error_naming_it(tmp_path):
    bad = tmp_path / "not-a-pdf.pdf"
    bad.write_text("hello")
    with pytest.raises(OcrError) as caught:
        ocr_pages(bad, [1], OcrSettings())
    assert "not-a-pdf.pdf" in str(caught.value)


def test_missing_language_pack_is_reported_with_the_debian_package():
    with pytest.raises(OcrUnavailableError) as caught:
        check_ocr_available(OcrSettings(languages="eng+xyz"))
    assert "tesseract-ocr-xyz" in str(caught.value)
    assert "apt-get install" in str(caught.value)


def test_ocr_languages_must_be_tesseract_codes():
    """--ocr-lang reached the apt-get hint unchecked ("tesseract-ocr-../../etc/passwd")."""
    from pydantic import ValidationError

    from ingest import api
    from ingest.contracts.errors import ConfigError

    for good in ("eng", "eng+hin+mar", "chi_sim", "script/Devanagari", "eng+script/Latin"):
        assert OcrSettings(languages=good).languages == good
    for bad in ("../../etc/passwd", "eng+", "eng hin", "script/script/Latin", "eng;rm", ""):
        with pytest.raises(ValidationError, match="Tesseract language codes"):
            OcrSettings(languages=bad)
    with pytest.raises(ConfigError) as caught:
        api.run([str(FIXTURES)], db=":memory:", ocr_lang="../../etc/passwd", workers=0)
    assert "languages" in str(caught.value) and "apt-get" not in str(caught.value)


def test_installed_languages_pass_the_check():
    check_ocr_available(OcrSettings(languages="eng+hin+mar"))


def test_missing_tesseract_binary_is_reported(monkeypatch):
    import pytesseract

    monkeypatch.setattr(pytesseract.pytesseract, "tesseract_cmd", "/nonexistent/tesseract")
    with pytest.raises(OcrUnavailableError) as caught:
        check_ocr_available(OcrSettings())
    assert "tesseract-ocr" in str(caught.value)


def test_debian_package_names():
    assert debian_package_for("hin") == "tesseract-ocr-hin"
    assert debian_package_for("chi_sim") == "tesseract-ocr-chi-sim"
    assert debian_package_for("script/Devanagari") == "tesseract-ocr-script-deva"


def test_a_page_that_cannot_be_rendered_fails_alone(monkeypatch):
    import parsers.ocr.tesseract as ocr

    real = ocr.render_page

    def flaky(pdf, page_no, dpi):
        if page_no == 2:
            raise RuntimeError("damaged content stream")
        return real(pdf, page_no, dpi)

    monkeypatch.setattr(ocr, "render_page", flaky)
    results = ocr_pages(FIXTURES / "mixed.pdf", [1, 2], OcrSettings(dpi=100, workers=2))
    assert results[2].error and "cannot render page" in results[2].error and "damaged" in results[2].error
    assert results[1].error is None and results[1].elements


def test_a_tesseract_failure_is_a_page_error(monkeypatch):
    import pytesseract

    import parsers.ocr.tesseract as ocr

    def broken(image, settings):
        raise pytesseract.TesseractError(1, "Error in pixReadStream")

    monkeypatch.setattr(ocr, "image_to_tesseract_data", broken)
    result = ocr_pages(FIXTURES / "scanned_notice.pdf", [1], OcrSettings(dpi=72))[1]
    assert result.elements == [] and "Tesseract failed" in result.error and "pixReadStream" in result.error


def test_huge_pages_render_below_the_pixel_limit():
    from parsers.ocr.tesseract import MAX_PIXELS, render_dpi

    assert render_dpi(595, 842, 300) == 300  # A4 keeps its resolution
    a0 = render_dpi(2384, 3370, 300)  # A0 poster
    assert a0 < 300
    assert (2384 * a0 / 72) * (3370 * a0 / 72) <= MAX_PIXELS


def test_ocr_of_a_rendered_page_finds_every_heading_including_bold_body_size_ones():
    # crop_manual p1 rendered and OCR'd: the 11 pt bold heading is as big as body text
    # and is found by its heavier ink
    result = ocr_pages(FIXTURES / "crop_manual.pdf", [1], OcrSettings(dpi=200))[1]
    titles = {squash(e.text): e.heading_level for e in result.elements if e.type is ElementType.title}
    expected = [h for h in truth("crop_manual")["headings"] if h["page"] == 1]
    assert any(h["level"] == 3 for h in expected)  # the fixture has a bold body-size heading here
    assert [h["text"] for h in expected if squash(h["text"]) not in titles] == []
    # deeper in the truth means deeper (or equal) in OCR's levels
    levels = [(h["level"], titles[squash(h["text"])]) for h in expected]
    assert all(a <= b for (t1, a), (t2, b) in zip(levels, levels[1:]) if t1 < t2)
