"""Settings of document structure: headings and their levels, running headers and footers,
captions, lists, continuations. Every tolerance this stage decides with is a field here, named,
with its unit and the reason for its default. Validated when built, unknown keys rejected; a
user overrides any of them in the config file (`[parse.structure]`), and they hash into the
pipeline version, so a changed value reprocesses the documents it affects."""

from __future__ import annotations

from pydantic import Field

from ingest.contracts.settings import StageSettings


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


DEFAULT_STRUCTURE_SETTINGS = StructureSettings()
