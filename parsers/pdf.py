"""parse_pdf: a PDF path to a Document. FIRST VERSION (walking skeleton): one paragraph per
text block, titles by font size. Issue 3 replaces the inside; the signature is the contract."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pdfplumber

from parsers.errors import ParseError
from parsers.models import Document, Element, ElementType, PageInfo, TextSource
from parsers.settings import ParseSettings


def file_sha256(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def parse_pdf(path: str | os.PathLike, settings: ParseSettings | dict | None = None) -> Document:
    settings = ParseSettings.resolve(settings)
    path = Path(path)
    try:
        pdf = pdfplumber.open(path)
    except Exception as error:
        raise ParseError(f"cannot open PDF: {error}", path=str(path)) from error
    pages: list[PageInfo] = []
    elements: list[Element] = []
    with pdf:
        for page in pdf.pages:
            lines = page.extract_text_lines()
            pages.append(PageInfo(page_no=page.page_number, width=float(page.width), height=float(page.height),
                                  text_source=TextSource.text_layer if lines else TextSource.empty))
            for line in lines:
                size = max((c["size"] for c in line["chars"]), default=0)
                kind = ElementType.title if size >= 14 else ElementType.paragraph
                elements.append(Element(type=kind, text=line["text"], page=page.page_number,
                                        bbox=(line["x0"], line["top"], line["x1"], line["bottom"]),
                                        heading_level=1 if kind is ElementType.title else None))
            page.close()
        info = {k: str(v) for k, v in (pdf.metadata or {}).items()}
    return Document(source_path=str(path), content_sha256=file_sha256(path), size_bytes=path.stat().st_size,
                    page_count=len(pages), pages=pages, elements=elements, metadata={"pdf": info})
