"""Settings of the text layer: characters to words, lines, blocks and regions. Every tolerance this
stage decides with is a field here, named, with its unit and the reason for its default.
Validated when built, unknown keys rejected; a user overrides any of them in the config file
(`[parse.textlayer]`), and they hash into the pipeline version, so a changed value reprocesses
the documents it affects."""

from __future__ import annotations

from ingest.contracts.settings import StageSettings


class TextLayerSettings(StageSettings):
    """Tolerances of the text layer: characters to words, lines, blocks and regions. Each field:
    unit, default and why (the kind of document and the typography it is set for)."""


DEFAULT_TEXT_LAYER_SETTINGS = TextLayerSettings()
