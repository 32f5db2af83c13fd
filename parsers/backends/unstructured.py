"""Optional backend: `unstructured.partition.pdf` mapped onto our element types.

Installed with `pip install 'pdf-ingest[unstructured]'`; without it, selecting
`backend: unstructured` raises `ConfigError` saying so. Pages come out with their
size when unstructured reports coordinates, and every element as text-layer text.
"""

from __future__ import annotations

from pathlib import Path

from ingest.contracts.elements import Document, Element, ElementType, PageInfo, TextSource
from ingest.contracts.errors import ConfigError, ParseError
from parsers.settings import ParseSettings

CATEGORY_TO_TYPE = {
    "Title": ElementType.title,
    "NarrativeText": ElementType.paragraph,
    "Text": ElementType.paragraph,
    "UncategorizedText": ElementType.paragraph,
    "Address": ElementType.paragraph,
    "EmailAddress": ElementType.paragraph,
    "Formula": ElementType.paragraph,
    "CodeSnippet": ElementType.paragraph,
    "ListItem": ElementType.list_item,
    "Table": ElementType.table,
    "FigureCaption": ElementType.caption,
    "Image": ElementType.figure,
    "Figure": ElementType.figure,
    "Header": ElementType.header,
    "Footer": ElementType.footer,
    "PageNumber": ElementType.page_number,
}


def parse_with_unstructured(path: Path, settings: ParseSettings) -> Document:
    try:
        from unstructured.partition.pdf import partition_pdf
    except ImportError as error:
        raise ConfigError(
            "backend 'unstructured' is not installed; run `pip install 'pdf-ingest[unstructured]'` "
            "or use backend 'native'",
            path=str(path),
        ) from error
    from ingest.contracts.files import file_sha256

    strategy = "hi_res" if settings.ocr.mode == "always" else "auto"
    try:
        parts = partition_pdf(filename=str(path), strategy=strategy, languages=settings.ocr.languages.split("+"))
    except Exception as error:  # noqa: BLE001 - the backend's own errors are many; we name the file
        raise ParseError(
            f"unstructured could not parse the file ({type(error).__name__}: {error})", path=str(path)
        ) from error
    elements, pages = [], {}
    for part in parts:
        meta = part.metadata
        page = getattr(meta, "page_number", None) or 1
        kind = CATEGORY_TO_TYPE.get(getattr(part, "category", ""), ElementType.paragraph)
        bbox = (0.0, 0.0, 0.0, 0.0)
        coords = getattr(meta, "coordinates", None)
        if coords is not None and coords.points:
            xs = [p[0] for p in coords.points]
            ys = [p[1] for p in coords.points]
            bbox = (min(xs), min(ys), max(xs), max(ys))
            system = coords.system
            pages.setdefault(page, (float(system.width), float(system.height)))
        pages.setdefault(page, (0.0, 0.0))
        text = str(part.text or "").strip()
        if not text and kind is not ElementType.figure:
            continue
        extra = {}
        if kind is ElementType.title:
            extra["heading_level"] = (getattr(meta, "category_depth", None) or 0) + 1
        if kind is ElementType.table:
            extra["rows"] = [[cell.strip() for cell in row.split("\t")] for row in text.splitlines()]
        elements.append(Element(type=kind, text=text, page=page, bbox=bbox, **extra))
    infos = [
        PageInfo(page_no=n, width=w, height=h, text_source=TextSource.text_layer) for n, (w, h) in sorted(pages.items())
    ]
    return Document(
        source_path=str(path),
        content_sha256=file_sha256(path),
        size_bytes=path.stat().st_size,
        page_count=len(infos),
        pages=infos,
        elements=elements,
        metadata={"backend": "unstructured"},
    )
