"""Settings of the parse and OCR stages: validated when built, unknown keys rejected."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from ingest.contracts.settings import StageSettings
from parsers.structure.settings import FurnitureSettings, StructureSettings
from parsers.tables.settings import TableSettings
from parsers.textlayer.settings import TextLayerSettings

#: Tesseract language codes joined by "+": letters, digits and "_", each with at most one
#: "script/" prefix ("eng", "chi_sim", "script/Devanagari"). Nothing else reaches Tesseract or
#: the apt-get hint built from a code (no "/", "." or spaces: "../../etc/passwd" is refused).
TESSERACT_LANGUAGES = re.compile(r"(?:script/)?[A-Za-z0-9_]+(?:\+(?:script/)?[A-Za-z0-9_]+)*")


def tesseract_languages_problem(value: str) -> str | None:
    """Why `value` is not Tesseract languages joined by "+", or None when it is."""
    if TESSERACT_LANGUAGES.fullmatch(value):
        return None
    return f"{value!r} is not Tesseract language codes joined by '+' (e.g. eng, eng+hin, chi_sim, script/Devanagari)"


class OcrSettings(StageSettings):
    mode: Literal["auto", "always", "never"] = "auto"
    languages: str = Field(default="eng", description="Tesseract languages joined by '+', e.g. 'eng+hin+mar'")
    detect_script: bool = Field(
        default=True,
        description="a page read with low confidence is read again with the installed languages of the script "
        "Tesseract's OSD detects (a Hindi scan under 'eng' is read as eng+hin+mar)",
    )
    dpi: int = Field(default=300, ge=72, le=600)
    workers: int = Field(default=1, ge=1, description="pages OCR'd at once within one document")
    tesseract_config: str = Field(default="", description="extra Tesseract flags, e.g. '--psm 3'")
    timeout_seconds: int = Field(
        default=300,
        ge=0,
        description="Tesseract time limit per page (0 = none); a page over it is recorded as an OCR error",
    )

    @field_validator("languages")
    @classmethod
    def _tesseract_codes(cls, value: str) -> str:
        problem = tesseract_languages_problem(value)
        if problem:
            raise ValueError(problem)
        return value


class ParseSettings(StageSettings):
    backend: Literal["native", "unstructured"] = "native"
    ocr: OcrSettings = OcrSettings()
    detect_tables: bool = True
    text_layer: TextLayerSettings = TextLayerSettings()
    tables: TableSettings = TableSettings()
    structure: StructureSettings = StructureSettings()
    furniture: FurnitureSettings = FurnitureSettings()
    furniture_min_pages: int = Field(
        default=3, ge=2, description="a line repeated at the page edge on at least this many pages is a header/footer"
    )
