"""Settings of document structure: headings and their levels, running headers and footers,
captions, lists, continuations. Every tolerance this stage decides with is a field here, named,
with its unit and the reason for its default. Validated when built, unknown keys rejected; a
user overrides any of them in the config file (`[parse.structure]`), and they hash into the
pipeline version, so a changed value reprocesses the documents it affects."""

from __future__ import annotations

from pydantic import Field

from ingest.contracts.settings import StageSettings


class StructureSettings(StageSettings):
    """Tolerances of document structure: headings and their levels, running headers and footers,
    captions, lists, continuations. Each field: unit, default and why (the kind of document
    and the typography it is set for)."""

    heading_larger_min_points: float = Field(
        default=1.0,
        ge=0.0,
        description=(
            "points a heading set apart by size is larger than the body text, at least: one "
            "point separates a 10 pt body from an 11 pt heading, while rounding and superscripts "
            "move a line of body text by less."
        ),
    )
    heading_larger_min_ratio: float = Field(
        default=1.08,
        ge=1.0,
        description=(
            "ratio to the body size a heading set apart by size reaches, at least (with "
            "`heading_larger_min_points`): in display-sized body text (14 pt and up) a point is "
            "no step; 8 % is the smallest step of a typographic scale (10/11, 12/13)."
        ),
    )
    heading_bold_min_share: float = Field(
        default=0.8,
        ge=0.0,
        le=1.0,
        description=(
            "share (0-1) of a block's characters in bold for it to be a bold heading: a heading "
            "is bold throughout; a paragraph with a bold lead-in or a few bold words is not."
        ),
    )
    heading_bold_size_slack: float = Field(
        default=0.6,
        ge=0.0,
        description=(
            "points a bold heading may be set below the body size: reports set run-in bold "
            "heads half a point smaller than their text; a bold note in footnote type is smaller still."
        ),
    )
    heading_max_lines: int = Field(
        default=3,
        ge=1,
        description="lines a heading block has at most: a longer block is a paragraph, whatever its type.",
    )
    heading_large_max_words: int = Field(
        default=25,
        ge=1,
        description=(
            "words a heading set larger than the body has at most: a longer text in large type "
            "is a pull quote or an introduction set large, not a section name."
        ),
    )
    heading_emphasised_max_chars: int = Field(
        default=120,
        ge=1,
        description=(
            "characters a heading set apart by bold or numbering only (body size) has at most: "
            "a filing's longest Item titles run to about 110; a longer bold text is a statement."
        ),
    )
    heading_bold_max_lines: int = Field(
        default=2,
        ge=1,
        description=(
            "lines an unnumbered bold heading at body size has at most: a bold block of three "
            "lines at body size is an emphasised paragraph (a warning, a highlight)."
        ),
    )
    numbered_heading_min_bold_share: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description=(
            "share (0-1) of bold characters that, with section numbering ('2.1 Scope'), makes a "
            "heading: the number is often set regular beside a bold title, so half is enough."
        ),
    )
    numbered_heading_larger_points: float = Field(
        default=0.5,
        ge=0.0,
        description=(
            "points above the body size that, with section numbering, make a heading: numbering "
            "is evidence already, so a half-point step (10.5 over 10 pt) is enough."
        ),
    )
    outline_lead_min_share: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description=(
            "share (0-1) of the PDF outline's entries that must name a heading found on the pages "
            "before the outline leads the heading tree (its entries' depths are the levels, other "
            "headings go below its deepest level). Half: an outline made with the document names "
            "most of its headings word for word; one that names pages ('Page 3') or sections "
            "retitled for navigation matches few, and then type and numbering decide."
        ),
    )
    outline_page_slack: int = Field(
        default=1,
        ge=0,
        description=(
            "pages: how far a bookmark's page and the page of the heading it names may differ "
            "(a bookmark set on the page before, a heading at the foot of a page)."
        ),
    )
    outline_lead_min_matches: int = Field(
        default=3,
        ge=1,
        description=(
            "headings that must be named by outline entries before the outline leads the heading "
            "tree: a two-entry outline (a cover and a contents bookmark) says little about how "
            "the sections nest."
        ),
    )


DEFAULT_STRUCTURE_SETTINGS = StructureSettings()
