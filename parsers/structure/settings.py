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
