"""Document titles: never junk PDF info titles (the info Title kept as `pdf_title`), never a line
that every document of a kind shares (a filing cover's agency line, "Annual Report", a bare
agency name) or a running head; a filing's issuer, form and period instead."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import BENCH, CORPUS

from ingest.contracts.elements import Element, ElementType
from parsers.pdf_info import sensible_info_title, sensible_title
from parsers.structure.settings import TitleSettings
from parsers.structure.titles import (
    document_to_title_choice,
    elements_to_filing_cover,
    elements_without_shared_title,
    is_running_line,
    is_shared_line,
    outline_to_title,
)

PDFS = Path(__file__).resolve().parent / "pdfs"
SETTINGS = TitleSettings()


@pytest.mark.parametrize(
    "junk",
    ["Microsoft Word - SPECIAL BOARD AGENDA 040616.doc", "10811.exe", "905_Precinct_NoOU", "PowerPoint Presentation"],
)
def test_junk_info_titles_are_not_sensible(junk):
    assert sensible_info_title({"Title": junk}) is None


def test_a_cjk_title_without_spaces_is_sensible():
    assert sensible_info_title({"Title": "菲达环保：关于公司2015年年度报告"}) == "菲达环保：关于公司2015年年度报告"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "junk"),
    [
        (CORPUS / "cupertino_usd_4-6-16.pdf", "Microsoft Word - SPECIAL BOARD AGENDA 040616.doc"),
        (CORPUS / "scotus-transcript-p1.pdf", "10811.exe"),
        (CORPUS / "la-precinct-bulletin-2014-p1.pdf", "905_Precinct_NoOU"),
        (BENCH / "docling-gt" / "right_to_left_02.pdf", "PowerPoint Presentation"),
    ],
    ids=lambda v: getattr(v, "name", "junk"),
)
def test_the_display_title_never_comes_from_junk_metadata(path, junk):
    from ingest.pipeline.enrich import document_metadata, document_title
    from ingest.pipeline.settings import EnrichSettings
    from parsers import parse_pdf

    document = parse_pdf(path, {"ocr": {"mode": "never"}})
    metadata = document_metadata(document, EnrichSettings())
    assert document_title(document, metadata) != junk
    assert metadata["pdf_title"] == junk and "title" not in metadata


@pytest.mark.slow
def test_cupertino_title_is_the_agenda_heading():
    from ingest.pipeline.enrich import document_metadata, document_title
    from ingest.pipeline.settings import EnrichSettings
    from parsers import parse_pdf

    document = parse_pdf(CORPUS / "cupertino_usd_4-6-16.pdf", {"ocr": {"mode": "never"}})
    assert document_title(document, document_metadata(document, EnrichSettings())) == (
        "Board of Education Special Meeting AGENDA"
    )


# --- pure functions, hand-built inputs -------------------------------------------------------


def _paragraphs(*texts: str, page: int = 1) -> list[Element]:
    return [Element(type=ElementType.paragraph, text=text, page=page) for text in texts]


@pytest.mark.parametrize(
    "line",
    [
        "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
        "SECURITIES AND EXCHANGE COMMISSION Washington, D.C. 20549",
        "FORM 10-K",
        "Form 10-Q",
        "Annual Report 2023",
        "2022-23 Annual Report",
        "Table of Contents",
        "FOR IMMEDIATE RELEASE",
        "Ministry of Agriculture & Farmers Welfare",
        "DEPARTMENT OF AGRICULTURE",
        "Cover Page",
        "PART I",
    ],
)
def test_lines_every_document_of_a_kind_shares_are_never_a_title(line):
    assert is_shared_line(line, SETTINGS)


@pytest.mark.parametrize(
    "title",
    [
        "Cotton Crop Manual",
        "Report of the Finance Commission",
        "Acme Corporation Annual Report 2023",
        "Board of Education Special Meeting AGENDA",
        "Notice on Seed Subsidy for Rabi 2024",
        "Minimum Support Prices for Kharif Crops",
    ],
)
def test_titles_that_name_their_document_are_kept(title):
    assert not is_shared_line(title, SETTINGS)


def test_a_user_adds_the_running_lines_of_an_organisation():
    settings = TitleSettings(shared_lines=(*SETTINGS.shared_lines, r"riverside water authority"))
    assert is_shared_line("RIVERSIDE WATER AUTHORITY", settings)
    assert not is_shared_line("RIVERSIDE WATER AUTHORITY", SETTINGS)


def test_a_quarterly_report_cover_gives_issuer_form_and_quarter():
    elements = _paragraphs(
        "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
        "Washington, D.C. 20549",
        "FORM 10-Q",
        "QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
        "For the quarterly period ended March 31, 2024",
        "Commission File Number: 001-00001",
        "Globex Holdings, Inc.",
        "(Exact name of registrant as specified in its charter)",
    )
    cover = elements_to_filing_cover(elements, SETTINGS)
    assert cover.title == "Globex Holdings, Inc. - Form 10-Q, quarterly period ended March 31, 2024"
    assert cover.period_end == "2024-03-31"


def test_a_cover_without_the_caption_names_the_registrant_below_the_file_number():
    elements = _paragraphs(
        "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
        "FORM 10-K",
        "For the fiscal year ended June 30, 2022",
        "Commission file number 1-0002",
        "INITECH CORP",
        "State of Incorporation: Delaware",
    )
    assert elements_to_filing_cover(elements, SETTINGS).title == (
        "INITECH CORP - Form 10-K, fiscal year ended June 30, 2022"
    )


def test_a_current_report_is_dated_by_its_event():
    elements = _paragraphs(
        "SECURITIES AND EXCHANGE COMMISSION",
        "FORM 8-K CURRENT REPORT",
        "Date of report (Date of earliest event reported): May 5, 2023",
        "Umbrella Labs Inc. (Exact name of registrant as specified in its charter)",
    )
    cover = elements_to_filing_cover(elements, SETTINGS)
    assert (cover.issuer, cover.document_kind, cover.period_end) == ("Umbrella Labs Inc.", "Form 8-K", "2023-05-05")


def test_a_news_release_is_named_by_its_dateline():
    elements = _paragraphs(
        "FOR IMMEDIATE RELEASE",
        "Springfield, Ill. (April 25, 2024) – Globex Holdings, Inc. (NYSE: GBX) today announced results for "
        "first-quarter 2024. Sales rose in every region.",
    )
    choice = document_to_title_choice("FOR IMMEDIATE RELEASE", None, [], elements, 4, [], SETTINGS)
    assert choice.title == "Globex Holdings, Inc. - News release, April 25, 2024: results for first-quarter 2024"
    assert choice.metadata["period_end"] == "2024-04-25" and choice.refused_heading == "FOR IMMEDIATE RELEASE"


def test_no_cover_without_a_registrant():
    assert (
        elements_to_filing_cover(_paragraphs("See our Form 10-K for the year.", "Cotton Crop Manual"), SETTINGS) is None
    )


def test_the_outline_names_the_document_only_from_a_single_root():
    assert outline_to_title([(0, "Field Guide to Weeds", 1), (1, "Grasses", 2), (1, "Sedges", 5)]) == (
        "Field Guide to Weeds"
    )
    assert outline_to_title([(0, "Cover Page", 1), (0, "Part I", 3), (1, "Item 1. Business", 3)]) is None
    assert outline_to_title([(0, "Field Guide to Weeds", 1)]) is None  # one bookmark names no whole


def test_bookmarks_written_as_file_names_are_not_titles():
    assert sensible_title("Q3 Press Release_Final__v2") is None
    assert sensible_title("Field Guide to Weeds") == "Field Guide to Weeds"


def test_a_report_cover_that_says_only_annual_report_takes_the_info_title():
    headings = [Element(type=ElementType.title, text="ANNUAL REPORT 2023", page=1, heading_level=1)]
    choice = document_to_title_choice(
        "ANNUAL REPORT 2023", "Riverside Water Authority Annual Report 2023", [], headings, 40, [], SETTINGS
    )
    assert (choice.title, choice.source) == ("Riverside Water Authority Annual Report 2023", "pdf_info")
    kept = elements_without_shared_title(headings, choice)
    assert kept[0].type is ElementType.paragraph and kept[0].heading_level is None


def test_a_notice_under_a_bare_agency_name_takes_its_own_heading():
    elements = [
        Element(type=ElementType.title, text="DEPARTMENT OF AGRICULTURE", page=1, heading_level=1),
        Element(type=ElementType.title, text="Notice on Seed Subsidy for Rabi 2024", page=1, heading_level=2),
    ]
    headings = [e.text for e in elements]
    choice = document_to_title_choice("DEPARTMENT OF AGRICULTURE", None, [], elements, 2, headings, SETTINGS)
    assert (choice.title, choice.source) == ("Notice on Seed Subsidy for Rabi 2024", "first_heading")


def _running(text: str, top: float, pages: int, kind=ElementType.header) -> list[Element]:
    return [Element(type=kind, text=text, page=page, bbox=(50, top, 300, top + 10)) for page in range(2, pages + 1)]


def test_a_running_head_set_large_on_page_one_is_not_the_title():
    first = Element(type=ElementType.title, text="District Extension Bulletin", page=1, bbox=(50, 30, 400, 50))
    elements = [first, *_running("District Extension Bulletin", 32, 10)]
    assert is_running_line(first.text, elements, 10, SETTINGS)
    choice = document_to_title_choice(
        first.text, "Kharif Sowing Advice for Upland Farms", [], elements, 10, [], SETTINGS
    )
    assert choice.title == "Kharif Sowing Advice for Upland Farms"


def test_a_title_repeated_small_in_the_running_head_stays_the_title():
    first = Element(type=ElementType.title, text="Cotton Crop Manual", page=1, bbox=(50, 64, 300, 88), heading_level=1)
    elements = [Element(type=ElementType.header, text="Cotton Crop Manual 2024", page=1, bbox=(400, 30, 540, 40))]
    elements += [first, *_running("Cotton Crop Manual 2024", 30, 10)]
    assert not is_running_line(first.text, elements, 10, SETTINGS)
    assert document_to_title_choice(first.text, None, [], elements, 10, [], SETTINGS).title == "Cotton Crop Manual"


def test_the_display_title_skips_a_shared_first_heading():
    from ingest.contracts.elements import Document
    from ingest.pipeline.enrich import document_title

    document = Document(
        source_path="/data/filing.pdf",
        content_sha256="0" * 64,
        size_bytes=1,
        page_count=1,
        elements=[
            Element(type=ElementType.title, text="FORM 10-K", page=1, heading_level=1),
            Element(type=ElementType.title, text="Globex Holdings Annual Review", page=1, heading_level=2),
        ],
    )
    assert document_title(document, {}) == "Globex Holdings Annual Review"


# --- case PDFs (tests/pdfs) ------------------------------------------------------------------


def _truth(case: str) -> dict:
    return json.loads((PDFS / f"{case}.truth.json").read_text())


def test_an_sec_cover_gives_issuer_form_and_period_as_the_title():
    from parsers import parse_pdf

    truth = _truth("sec_annual_report")
    document = parse_pdf(PDFS / "sec_annual_report.pdf", {"ocr": {"mode": "never"}})
    assert document.title == truth["title"]
    assert {key: document.metadata.get(key) for key in truth["metadata"]} == truth["metadata"]


def test_no_chunk_of_a_filing_sits_under_its_cover_lines():
    from ingest.chunker import chunk_document
    from ingest.tokens import WhitespaceCounter
    from parsers import parse_pdf

    truth = _truth("sec_annual_report")
    document = parse_pdf(PDFS / "sec_annual_report.pdf", {"ocr": {"mode": "never"}})
    chunks = chunk_document(document, {"strategy": "structure"}, WhitespaceCounter())
    assert chunks and all(chunk.heading_path[0] == truth["title"] for chunk in chunks)
    shared = {" ".join(line.split()) for line in truth["shared_lines"]}
    under_items = [c for c in chunks if any(item in c.heading_path for item in truth["items"])]
    assert under_items and not any(shared & set(c.heading_path) for c in under_items)


def test_the_filing_facts_reach_every_chunk_as_metadata():
    from ingest.pipeline.enrich import document_metadata
    from ingest.pipeline.settings import EnrichSettings
    from parsers import parse_pdf

    document = parse_pdf(PDFS / "sec_annual_report.pdf", {"ocr": {"mode": "never"}})
    metadata = document_metadata(document, EnrichSettings())
    assert metadata["issuer"] == "ACME CORPORATION" and metadata["period_end"] == "2023-12-31"


def test_a_manual_keeps_its_printed_title_beside_its_running_head_and_a_stale_info_title():
    from parsers import parse_pdf

    truth = _truth("manual_running_head")
    document = parse_pdf(PDFS / "manual_running_head.pdf", {"ocr": {"mode": "never"}})
    assert document.title == truth["title"]
    assert document.metadata["title_source"] == truth["metadata"]["title_source"]


def test_an_issuer_set_large_does_not_head_the_chunks_under_the_filing_title_again():
    elements = [
        Element(type=ElementType.paragraph, text="SECURITIES AND EXCHANGE COMMISSION", page=1),
        Element(type=ElementType.paragraph, text="FORM 10-K For the fiscal year ended June 30, 2022", page=1),
        Element(type=ElementType.title, text="INITECH CORP", page=1, heading_level=1),
        Element(type=ElementType.paragraph, text="(Exact name of registrant as specified in its charter)", page=1),
        Element(type=ElementType.title, text="Item 1. Business", page=2, heading_level=2),
    ]
    choice = document_to_title_choice("INITECH CORP", None, [], elements, 2, [], SETTINGS)
    assert choice.title == "INITECH CORP - Form 10-K, fiscal year ended June 30, 2022"
    kept = elements_without_shared_title(elements, choice)
    assert [e.text for e in kept if e.type is ElementType.title] == ["Item 1. Business"]
