"""Settings of table detection: ruled grids, unruled runs of aligned cells, statements, header
rows. Every tolerance this stage decides with is a field here, named, with its unit and the
reason for its default. Validated when built, unknown keys rejected; a user overrides any of
them in the config file (`[parse.tables]`), and they hash into the pipeline version, so a
changed value reprocesses the documents it affects."""

from __future__ import annotations

from ingest.contracts.settings import StageSettings


class TableSettings(StageSettings):
    """Tolerances of table detection: ruled grids, unruled runs of aligned cells, statements,
    header rows. Each field: unit, default and why (the kind of document and the typography
    it is set for)."""


DEFAULT_TABLE_SETTINGS = TableSettings()
