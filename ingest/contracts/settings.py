"""The base of every stage's settings model: validated when built, unknown keys rejected."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class StageSettings(BaseModel):
    """Base for every stage's settings: unknown keys are an error, not silently ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @classmethod
    def resolve(cls, value: "StageSettings | dict | None"):
        """Accept None (defaults), a dict (validated) or an instance, like pdfplumber's TableSettings.resolve."""
        if value is None:
            return cls()
        if isinstance(value, cls):
            return value
        return cls.model_validate(value)
