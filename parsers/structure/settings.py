"""Settings of document structure: headings and their levels, running headers and footers,
captions, lists, continuations. Every tolerance this stage decides with is a field here, named,
with its unit and the reason for its default. Validated when built, unknown keys rejected; a
user overrides any of them in the config file (`[parse.structure]`), and they hash into the
pipeline version, so a changed value reprocesses the documents it affects."""

from __future__ import annotations

from ingest.contracts.settings import StageSettings


class StructureSettings(StageSettings):
    """Tolerances of document structure: headings and their levels, running headers and footers,
    captions, lists, continuations. Each field: unit, default and why (the kind of document
    and the typography it is set for)."""


DEFAULT_STRUCTURE_SETTINGS = StructureSettings()
