"""Settings of document structure: headings and their levels, running headers and footers,
captions, lists, continuations. Every tolerance this stage decides with is a field here, named,
with its unit and the reason for its default. Validated when built, unknown keys rejected; a
user overrides any of them in the config file (`[parse.structure]`), and they hash into the
pipeline version, so a changed value reprocesses the documents it affects."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ingest.contracts.settings import StageSettings

#: Where a document title can come from (`parsers.structure.titles`): an SEC-style filing cover's
#: issuer and form, the single root of the PDF outline, the largest type on page 1, the PDF info
#: Title, the first level-1 heading on page 1 (e.g. from OCR).
TitleSource = Literal["filing_cover", "outline", "typographic", "pdf_info", "first_heading"]

#: A line naming a kind of document is no bare agency name.
_NO_DOCUMENT_NOUN = (
    r"(?!.*\b(report|notice|circular|order|minutes|agenda|guide|manual|plan|policy|review|study|bulletin|"
    r"advisory|summary|statement|act|rules?|regulations?|proceedings|transcript|letter|memorandum|handbook|"
    r"guidelines?|scheme|programme|program)s?\b)"
)

#: Lines that many documents share, so never a document's title alone (matched whole, case
#: folded, after years and dates are taken out: "Annual Report 2023" is "annual report").
SHARED_TITLE_LINES = (
    r"(united states )?securities and exchange commission( washington,? d\.? ?c\.?( \d{5})?)?",
    r"washington,? d\.? ?c\.?( \d{5})?",
    r"form [\w./-]+( (annual|quarterly|current) report)?",
    r"(annual|quarterly|transition|current) report pursuant to .*",
    r"(the )?(annual|quarterly|interim|half[- ]?year(ly)?|integrated|current) report( and accounts)?",
    r"(consolidated )?financial statements",
    r"(table of )?contents|index",
    r"cover( page)?|title page",
    r"(press|news|earnings) release|for immediate release",
    r"exhibit [\w.]+",
    r"(part|item|section|chapter|appendix|annex|schedule) [\w.]{1,6}",
    r"page [\divxlc]+( of [\divxlc]+)?",
    r"confidential|draft|(for )?internal use only|private and confidential",
    # A bare agency name heads every notice the agency issues; a name with a document noun
    # ("Report of the Finance Commission") is a title.
    _NO_DOCUMENT_NOUN + r"([\w&'.-]+ ){0,4}"
    r"(department|ministry|office|bureau|government|agency|directorate|commission) of( the)? [\w ,&'-]{1,80}",
    _NO_DOCUMENT_NOUN + r"(the )?((united states|u\.? ?s\.?|state|federal|national|central) )?"
    r"[\w&'-]+( [\w&'-]+){0,5} (commission|department|ministry|agency|bureau|directorate)",
)


class TitleSettings(StageSettings):
    """How the document title is chosen (`parsers.structure.titles`). The title heads every
    chunk's heading path, so it must tell this document apart from others of its kind."""

    sources: tuple[TitleSource, ...] = Field(
        default=("filing_cover", "outline", "typographic", "pdf_info", "first_heading"),
        description="order of preference of the title's sources; the first that gives a title that is not "
        "shared boilerplate wins. A filing cover first: SEC forms state the registrant's exact name and "
        "the form by rule, while their large type is the same agency line on every filing and their "
        "info Title is whatever the filing agent wrote (accession numbers, tickers). The outline's "
        "single root before the printed title: the author named the whole document there. The printed "
        "title before the info Title: info Titles are often a template's or an earlier version's",
    )
    shared_lines: tuple[str, ...] = Field(
        default=SHARED_TITLE_LINES,
        description="regular expressions (matched whole, case folded, years and dates removed) of lines "
        "that many documents share: agency and form lines of filing covers, 'Annual Report', 'Table of "
        "Contents', a bare agency name. Such a line is never the title alone; add an organisation's "
        "own running lines here",
    )
    min_chars: int = Field(
        default=4,
        ge=1,
        description="characters; an info Title or a bookmark shorter than this is a code or a placeholder "
        "('Doc', 'A1'), not a name",
    )
    max_chars: int = Field(
        default=200,
        ge=20,
        description="characters; a candidate longer than this is a sentence or a paragraph, not a title "
        "(the longest report titles run to about 150 characters)",
    )
    cover_pages: int = Field(
        default=2,
        ge=1,
        description="pages from the first searched for a filing cover: the cover is page 1, or page 2 "
        "behind a blank or a picture page",
    )
    issuer_max_chars: int = Field(
        default=120,
        ge=10,
        description="characters; the registrant's name read from a filing cover is at most this long "
        "(legal names with 'and Subsidiaries' or a trust's full style run to about 80)",
    )
    running_min_pages: int = Field(
        default=3,
        ge=2,
        description="pages; a line of page 1 whose words recur (digits aside) at its height on at least this "
        "many pages, and on `running_min_share` of them, is a running header, not a title",
    )
    running_min_share: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="share of the document's pages (0-1) carrying a line for it to be a running header: a "
        "running head sits on most pages, while a company name set alone on the few pages that open "
        "its statements is no running head",
    )

    running_top_tolerance: float = Field(
        default=6.0,
        ge=0,
        description="points; a running head is placed by the page template at the same height on every "
        "page, give or take the difference between fonts (half a line of 12 pt type)",
    )


class FurnitureSettings(StageSettings):
    """Where running headers, footers and page numbers may stand. Reports, manuals, filings and
    notices set them in a band at the page's top or bottom edge, apart from the body by more
    than a line gap, often in smaller type; body text never stands there alone."""

    edge_share: float = Field(
        default=0.1,
        gt=0,
        lt=0.5,
        description="share of the page height at the top and at the bottom where a header or footer line ends: "
        "a 10% band holds a running header with a rule below it on A4 and Letter pages, and never a body paragraph "
        "set with ordinary top and bottom margins",
    )
    edge_lines: int = Field(
        default=2,
        ge=0,
        description="the first and last lines of a page that may be furniture even a little outside the band "
        "(a two-line running header: title and chapter)",
    )
    edge_lines_share: float = Field(
        default=0.15,
        gt=0,
        lt=0.5,
        description="share of the page height that the first or last `edge_lines` lines may reach: the band "
        "widened by half for a header of two lines set in a deep top margin",
    )
    gap_em: float = Field(
        default=0.6,
        ge=0,
        description="least gap in em between a furniture line and the body line next to it, unless that line is "
        "furniture too: a paragraph's first line at the top of a page follows its neighbour at line spacing (under "
        "0.5 em), a running header stands apart",
    )
    small_header_size: float = Field(
        default=0.85,
        gt=0,
        description="a page's first line at most this many times the body size, in the header band, is a running "
        "header even on a one-page document: headers are set a size or two below the body",
    )
    max_chars: int = Field(
        default=80,
        ge=1,
        description="a line longer than this (characters) is never furniture found on one page alone: running "
        "headers and footers are short titles, dates and page references, not sentences",
    )
    alone_share: float = Field(
        default=0.07,
        gt=0,
        lt=0.5,
        description="share of the page height at each edge inside which a short first or last line, set well "
        "apart from the body, is furniture even on a one-page file (letterhead lines, a footer's file reference)",
    )
    alone_gap_em: float = Field(
        default=1.5,
        ge=0,
        description="gap in em that sets such a lone edge line apart from the body: more than a paragraph break",
    )
    page_number_max_words: int = Field(
        default=10,
        ge=2,
        description="most words of an edge line that starts or ends with the page's own number and is then a "
        "running header or footer ('2 Z. Shen et al.', 'Annual Report 2023 14'); longer lines are body text",
    )
    ocr_edge_share: float = Field(
        default=0.15,
        gt=0,
        lt=0.5,
        description="share of the page height at each edge where an OCR'd line may repeat the text layer's "
        "furniture: pixel boxes of a scan include the scanner's margin, so the band is wider than `edge_share`",
    )


DEFAULT_FURNITURE_SETTINGS = FurnitureSettings()


class StructureSettings(StageSettings):
    """Tolerances of document structure: headings and their levels, running headers and footers,
    captions, lists, continuations. Each field: unit, default and why (the kind of document
    and the typography it is set for)."""

    title: TitleSettings = Field(default=TitleSettings(), description="how the document title is chosen")


DEFAULT_STRUCTURE_SETTINGS = StructureSettings()
