"""PDF -> typed elements. Knows PDFs; knows nothing of chunks or databases."""

from parsers.models import Document, Element, ElementType, PageInfo, TextSource
from parsers.pdf import parse_pdf
from parsers.settings import OcrSettings, ParseSettings

__all__ = ["Document", "Element", "ElementType", "OcrSettings", "PageInfo", "ParseSettings", "TextSource", "parse_pdf"]
