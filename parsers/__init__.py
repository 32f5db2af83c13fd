"""PDF -> typed elements (`ingest.contracts.Document`). Knows PDFs; knows nothing of chunks or databases.

    from parsers import parse_pdf
    document = parse_pdf("manual.pdf", {"ocr": {"mode": "auto", "languages": "eng+hin"}})

Subpackages, one concern each (the stage's passes are listed in `pdf.py`):
`textlayer` (characters, frames, the pdfminer fallback, lines and blocks), `tables` (ruled
and unruled cell grids, header rows), `structure` (headings and levels, lists, captions,
table of contents, running headers/footers, cross-page tables, blocks -> elements), `ocr`
(which pages need OCR and why, rendering, Tesseract words, OCR layout and tables),
`backends` (unstructured, optional).

`parse_pdf` is imported on first use, so importing `parsers.settings` (or any module that
only needs the settings) does not load pypdfium2 and pdfplumber.
"""

from parsers.settings import OcrSettings, ParseSettings

__all__ = ["OcrSettings", "ParseSettings", "parse_pdf"]


def __getattr__(name: str):
    if name == "parse_pdf":
        from parsers.pdf import parse_pdf

        return parse_pdf
    raise AttributeError(f"module 'parsers' has no attribute {name!r}")
