"""Settings of the parse and OCR stages: validated when built, unknown keys rejected."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ingest.contracts.settings import StageSettings


class OcrSettings(StageSettings):
    mode: Literal["auto", "always", "never"] = "auto"
    languages: str = Field(default="eng", description="Tesseract languages joined by '+', e.g. 'eng+hin+mar'")
    dpi: int = Field(default=300, ge=72, le=600)
    workers: int = Field(default=1, ge=1, description="pages OCR'd at once within one document")
    tesseract_config: str = Field(default="", description="extra Tesseract flags, e.g. '--psm 3'")
    timeout_seconds: int = Field(
        default=300,
        ge=0,
        description="Tesseract time limit per page (0 = none); a page over it is recorded as an OCR error",
    )


class ParseSettings(StageSettings):
    backend: Literal["native", "unstructured"] = "native"
    ocr: OcrSettings = OcrSettings()
    detect_tables: bool = True
    furniture_min_pages: int = Field(
        default=3, ge=2, description="a line repeated at the page edge on at least this many pages is a header/footer"
    )
