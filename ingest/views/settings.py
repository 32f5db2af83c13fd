"""Settings of `ingest render` and `ingest report`: validated when built, unknown keys rejected."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ingest.contracts.settings import StageSettings


class RenderSettings(StageSettings):
    """What `render` draws and how large. `dpi` is pixels per inch of the page (72 = one pixel per PDF
    point); 100 keeps an A4 page near 830 x 1170 px, legible and small."""

    dpi: int = Field(default=100, ge=36, le=600)
    what: Literal["elements", "chunks", "both"] = "both"
    pages: str | None = Field(default=None, description="page numbers such as '1,3-5'; None = every page")


class ReportSettings(StageSettings):
    """The HTML report's page pictures: `dpi` as above; JPEG `quality` 1-95 keeps a 20-page report
    near 2 MB with text still readable."""

    dpi: int = Field(default=100, ge=36, le=300)
    quality: int = Field(default=80, ge=1, le=95)
    low_ocr_confidence: float = Field(default=60.0, ge=0, le=100, description="OCR pages below this are warned about")
