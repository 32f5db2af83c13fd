"""The per-page stage of `parse_pdf`: pages read with pypdfium2 into `PageLayout`s, any range of them.

Reading a page (characters -> segments, drawing facts, ruled tables, the pdfminer fallback
for pages whose text pdfium lost) looks at that page alone, so a long document can be read
as page ranges in several processes and the ranges put back in page order
(`read_page_range_of_file`, `pages_read_in_order`): the result is what one pass over every
page gives, warnings in the same order. Everything that needs the whole document (body font
size, running headers and footers, headings, cross-page tables) runs afterwards, once, in
`parsers.pdf.parse_pdf`. About two thirds of a text document's parse is spent here (a
600-page rulebook: 26 of 35 s of CPU under load), the rest in those document-wide passes and the layout of blocks.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from parsers.ocr.routing import assess_text_layer
from parsers.pdf_info import open_pdfium
from parsers.settings import ParseSettings
from parsers.textlayer.layout import PageLayout, pdfium_page_to_layout
from parsers.textlayer.pdfminer_fallback import (
    PdfminerFallback,
    count_text_objects,
    is_sparse,
    lost_text,
)


@dataclass(slots=True)
class PagesRead:
    """Pages `first` .. `first + len(layouts) - 1` (0-based indexes) read, in page order, with the
    warnings reading them gave, in the order a single pass over those pages gives them."""

    first: int
    layouts: list[PageLayout] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def stop(self) -> int:
        """One past the last page index read."""
        return self.first + len(self.layouts)


def read_page_range(
    document,
    fallback: PdfminerFallback,
    first: int,
    stop: int,
    settings: ParseSettings,
    on_read: Callable[[PageLayout, int], None] | None = None,
) -> PagesRead:
    """Pages `first` <= index < `stop` (0-based) of an open pdfium `document`; pages are closed
    as soon as they are read. A page that fails is recorded in `PageLayout.error` (and a warning).
    `on_read(layout, the document's page count)` after each page (its `text` still there for
    routing; `parsers.pdf.PageCounter.text_page_read`)."""
    read = PagesRead(first=first)
    for index in range(first, stop):
        try:
            layout = pdfium_page_to_layout(
                document, index, settings.detect_tables, settings.text_layer, table_settings=settings.tables
            )
        except Exception as error:  # noqa: BLE001 - recorded per page, fatal only when all fail
            layout = PageLayout(
                page_no=index + 1, width=0.0, height=0.0, error=f"page unreadable: {type(error).__name__}: {error}"
            )
            read.warnings.append(f"page {index + 1}: {layout.error}")
        if is_sparse(layout, settings.text_layer):
            layout = pdfminer_if_text_lost(document, index, layout, fallback, settings, read.warnings)
        read.warnings.extend(layout.warnings)
        read.layouts.append(layout)
        if on_read is not None:
            on_read(layout, len(document))
    return read


def read_page_range_of_file(path: str | os.PathLike, settings: ParseSettings, first: int, stop: int) -> PagesRead:
    """`read_page_range` on the file at `path`, opened and closed here: one part of a long
    document read in a worker process. Raises `ParseError` when the file cannot be opened."""
    path = Path(path)
    document = open_pdfium(path)
    fallback = PdfminerFallback(path)  # opens pdfplumber only if a page needs it
    try:
        return read_page_range(document, fallback, first, min(stop, len(document)), settings)
    finally:
        fallback.close()
        document.close()


def page_ranges(page_count: int, parts: int) -> list[tuple[int, int]]:
    """`page_count` pages cut into `parts` consecutive (first, stop) ranges of 0-based indexes, as
    even as whole pages allow (sizes differ by at most one page), none empty."""
    parts = max(1, min(parts, page_count))
    size, extra = divmod(page_count, parts)
    ranges, first = [], 0
    for part in range(parts):
        stop = first + size + (1 if part < extra else 0)
        ranges.append((first, stop))
        first = stop
    return ranges


def pages_read_in_order(parts: list[PagesRead]) -> PagesRead:
    """The parts put back together, in page order. Raises ValueError unless they cover
    consecutive pages from the first part's start without gap or overlap."""
    ordered = sorted(parts, key=lambda part: part.first)
    whole = PagesRead(first=ordered[0].first if ordered else 0)
    for part in ordered:
        if part.first != whole.stop:
            raise ValueError(f"page ranges do not join: pages from index {whole.stop} expected, got {part.first}")
        whole.layouts.extend(part.layouts)
        whole.warnings.extend(part.warnings)
    return whole


def pdfminer_if_text_lost(
    document, index: int, layout: PageLayout, fallback: PdfminerFallback, settings: ParseSettings, warnings: list[str]
) -> PageLayout:
    """The page re-read with pdfminer when pdfium clearly lost its text (see `textlayer.pdfminer_fallback`);
    the pdfminer layout is kept only when its text is usable and clearly richer
    (`pdfminer_richer_ratio`, `pdfminer_richer_slack`)."""
    text_layer = settings.text_layer
    page = document[index]
    try:
        objects = count_text_objects(page)
    finally:
        page.close()
    if not lost_text(objects, layout.text, text_layer):
        return layout
    try:
        candidate = fallback.relayout(
            document, index, layout, settings.detect_tables, text_layer, table_settings=settings.tables
        )
    except Exception as error:  # noqa: BLE001 - the pdfium text stays; the page may still go to OCR
        warnings.append(
            f"page {layout.page_no}: pdfminer fallback failed, pdfium text kept ({type(error).__name__}: {error})"
        )
        return layout
    before = sum(1 for c in layout.text if not c.isspace())
    after = sum(1 for c in candidate.text if not c.isspace())
    verdict = assess_text_layer(
        candidate.text, candidate.width, candidate.height, candidate.image_area_ratio, candidate.invisible_text_share
    )
    if not verdict.usable or after < text_layer.pdfminer_richer_ratio * before + text_layer.pdfminer_richer_slack:
        return layout
    warnings.append(
        f"page {layout.page_no}: text layer read with pdfminer (pdfium read {before} glyphs "
        f"from {objects} text objects, pdfminer {after})"
    )
    return candidate
