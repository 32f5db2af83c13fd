"""parse_pdf: a PDF path to a `Document` of typed elements in reading order.

The stage reads as its passes:

1. open the PDF with pypdfium2 (errors named: encrypted, empty, not a PDF, damaged);
2. per page (`parsers.pages`, `textlayer.layout.pdfium_page_to_layout`; a long document's
   pages may come read as ranges in parallel): characters -> segments, drawing
   facts, ruled tables (pdfplumber's algorithm on pypdfium2 edges, `tables.ruled`) only on
   pages that draw rulings; a page that fails is recorded in `PageInfo.error` and skipped.
   A page whose pdfium text is sparse while it draws many more text objects than pdfium
   read glyphs (fonts pdfium cannot map, e.g. non-embedded CJK fonts) is re-read with
   pdfminer (`textlayer.pdfminer_fallback`); normal pages never take that path;
3. per page, which pages go to OCR and why (`ocr.routing.pages_needing_ocr`);
4. document-wide: body font size, running headers/footers (`structure.furniture`);
5. per page: body lines -> reading-order blocks, unruled tables found there
   (`textlayer.layout.layout_to_blocks`);
6. document-wide: run-in heading leads split off and multi-line headings joined
   (`structure.heading_blocks`), headings and levels (`structure.headings`), then lists, captions and
   typed elements (`structure.elements`); per page, the conservation count: text layer =
   elements + text dropped on purpose, the rest warned as lost (`textlayer.conservation`);
7. pages without a usable text layer OCR'd in one call (`ocr.tesseract.ocr_pages`) and
   spliced in, their edge lines typed as furniture by the text layer's rules;
8. tables and paragraphs continued across a page break merged, OCR'd pages included
   (`structure.table_continuation`, `structure.paragraph_continuation`); a table header
   repeated on the continuation page is recorded as that page's dropped text;
9. words joined at a line break spelled as the document prints them inside its lines, with
   or without the hyphen (`structure.compounds`; the words are read in step 5).

Progress: `on_page(pages done, pages total)` is called once per page, `done` 1..total in order
(`PageCounter`): a page is done when the pass that reads its text has read it, the text pass
(step 2) for most pages, OCR (step 7) for a page routed there. The later document-wide passes
are not counted. Default None: no call and no extra work.

Memory: only light per-page facts (segments, a few hundred per page) are kept; pdfium
pages and text pages are closed after reading. pdfplumber parses a page only in that
fallback (opened once per document, each page closed after use).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Callable

from ingest.contracts.elements import Document, Element, PageInfo, TextSource
from ingest.contracts.errors import OcrError, ParseError
from ingest.contracts.files import file_sha256
from parsers.ocr.routing import SPARSE_BESIDE_IMAGES, TextLayerVerdict, pages_needing_ocr, routing_verdict
from parsers.pages import PagesRead, read_page_range
from parsers.pdf_info import document_to_info, document_to_outline, open_pdfium, sensible_info_title
from parsers.settings import ParseSettings
from parsers.structure.compounds import elements_with_spellings, printed_words, words_to_spellings
from parsers.structure.elements import blocks_to_elements
from parsers.structure.furniture import (
    layout_to_furniture_candidates,
    ocr_furniture_to_types,
    pages_to_furniture_keys,
    split_furniture,
)
from parsers.structure.heading_blocks import blocks_to_joined_headings, blocks_to_run_in_split
from parsers.structure.headings import (
    TITLE_MAX_TOP,
    blocks_to_headings,
    emphasised,
    prose_body_type,
    set_apart_by_type,
)
from parsers.structure.paragraph_continuation import merge_continued_paragraphs
from parsers.structure.table_continuation import merge_continued_tables
from parsers.structure.titles import document_to_title_choice, elements_without_shared_title, page_one_headings
from parsers.textlayer.blocks import Block
from parsers.textlayer.conservation import pages_to_conserved, pages_to_loss_warnings, pages_with_drops
from parsers.textlayer.frames import QUARTER_TURNS
from parsers.textlayer.layout import PageLayout, layout_to_blocks
from parsers.textlayer.pdfminer_fallback import PdfminerFallback

#: `on_page(pages done, pages total)`: see `PageCounter`. It runs inside the parse and must not
#: raise (an exception from it fails the document like any other parse error).
PageHook = Callable[[int, int], None]


class PageCounter:
    """Counts a document's pages for an `on_page` hook: each page once, `done` 1..total in
    order, `total` the PDF's page count. A page with a usable text layer (or an unreadable
    one) counts when the text pass has read it; a page that goes to OCR counts when OCR has
    read it, so a scanned document's bar moves with OCR, its slow part."""

    def __init__(self, on_page: PageHook, ocr_mode: str):
        self.on_page, self.ocr_mode = on_page, ocr_mode
        self.done = self.total = 0
        #: `routing_verdict` per page number, asked here as each page is read and handed to
        #: `pages_needing_ocr`, which then does not ask it again.
        self.verdicts: dict[int, TextLayerVerdict] = {}

    def text_page_read(self, layout: PageLayout, total: int) -> None:
        self.total = total
        verdict = self.verdicts[layout.page_no] = routing_verdict(layout, self.ocr_mode)
        if self.ocr_mode == "never" or verdict.usable:  # else counted when OCR has read it
            self.count_one()

    def ocr_page_read(self, _page_no: int) -> None:
        self.count_one()

    def count_one(self) -> None:
        self.done += 1
        self.on_page(self.done, self.total)


def parse_pdf(
    path: str | os.PathLike,
    settings: ParseSettings | dict | None = None,
    *,
    sha256: str | None = None,
    on_page: PageHook | None = None,
    pages_read: PagesRead | None = None,
) -> Document:
    """Parse one PDF. Raises `ParseError` (file named, cause and remedy stated) when the
    file cannot be opened or every page fails; `OcrUnavailableError` when pages need OCR
    (or `ocr.mode == "always"`) and Tesseract is missing; `OcrError` (page named) when a
    page sent to OCR cannot be rendered or read.

    `sha256`: the file's hex SHA-256 when the caller already computed it (the pipeline hashes
    every file in discover), so the file is not read a second time for it; None = hash it here.
    It becomes `Document.content_sha256` as given (not checked against the file).

    `on_page(pages done, pages total)`: progress, once per page (see `PageCounter`); not
    called by the "unstructured" backend. With `pages_read`, the text pages are reported when
    this runs (all at once, before OCR), not while the parts were read.

    `pages_read`: every page already read (`parsers.pages`, e.g. as ranges in parallel worker
    processes and put back in order), so only the document-wide passes run here; the result is
    the same as without it. Ignored unless it covers exactly the document's pages."""
    settings = ParseSettings.resolve(settings)
    path = Path(path)
    if settings.backend == "unstructured":
        from parsers.backends.unstructured import parse_with_unstructured

        return parse_with_unstructured(path, settings)
    if settings.ocr.mode == "always":
        from parsers.ocr.tesseract import check_ocr_available

        check_ocr_available(settings.ocr)  # before any work: a missing Tesseract is a setup error
    counter = PageCounter(on_page, settings.ocr.mode) if on_page is not None else None
    layouts, info, outline, warnings = read_pages(
        path, settings, counter.text_page_read if counter else None, pages_read
    )
    pages = [layout_to_page_info(layout) for layout in layouts]
    ocr_wanted = pages_needing_ocr(layouts, pages, settings.ocr.mode, counter.verdicts if counter else None)
    for layout in layouts:
        if layout.page_no in ocr_wanted and layout.turned in QUARTER_TURNS:
            page = pages[layout.page_no - 1]  # OCR renders the displayed frame, not the turned one
            page.width, page.height = page.height, page.width
    readable = [layout for layout in layouts if layout.error is None]
    if not readable:
        raise ParseError(
            f"every page failed ({layouts[0].error if layouts else 'no pages'}); "
            "the file is damaged: re-export or re-download it",
            path=str(path),
        )
    em = body_font_size(readable)
    keys = pages_to_furniture_keys(
        [layout_to_furniture_candidates(l, em, settings.furniture) for l in readable], settings.furniture_min_pages
    )
    page_blocks, furniture, cover, printed = [], {}, [], set()
    for layout in readable:
        printed |= printed_words(segment.text for segment in layout.segments)
        found, body = split_furniture(layout, keys, em, settings.furniture)
        furniture[layout.page_no] = found
        if layout.page_no in ocr_wanted:
            if layout.page_no == 1 and pages[0].ocr_reason == SPARSE_BESIDE_IMAGES:
                cover = cover_blocks(layout, body, em, settings, pages[0], warnings)
            continue
        try:
            page_blocks.extend(
                (layout.page_no, b)
                for b in layout_to_blocks(
                    layout, body, em, settings.detect_tables, settings.tables, text_settings=settings.text_layer
                )
            )
        except Exception as error:  # noqa: BLE001 - one page's layout bug must not lose the document
            record_page_error(pages[layout.page_no - 1], warnings, f"layout failed: {type(error).__name__}: {error}")
        layout.segments, layout.lines = [], []
    prose = prose_body_type(page_blocks or cover, em)  # headings stand apart from the prose, not the tables
    page_blocks = heading_shaped_blocks(page_blocks, prose.size, prose.bold_font)
    cover = heading_shaped_blocks(cover, prose.size, prose.bold_font)
    title = blocks_to_headings(cover + page_blocks, prose.size, outline, prose.bold_font, settings.structure)
    elements = blocks_to_elements(page_blocks, furniture, layouts)
    pages = pages_to_conserved(
        pages,
        {l.page_no: l.text_chars for l in layouts},
        {l.page_no: l.dropped for l in layouts},
        elements,
        ocr_wanted,
    )
    warnings.extend(pages_to_loss_warnings(pages))
    if ocr_wanted:
        elements = splice_ocr(
            path, elements, pages, sorted(ocr_wanted), settings, warnings, counter.ocr_page_read if counter else None
        )
        elements = ocr_furniture_to_types(elements, keys, set(ocr_wanted), pages, settings.furniture)
    elements, repeated_headers = merge_continued_tables(elements)
    pages = pages_with_drops(pages, repeated_headers)
    elements = merge_continued_paragraphs(elements)
    elements = elements_with_spellings(elements, words_to_spellings(printed), set(ocr_wanted))
    choice = document_to_title_choice(
        title,
        sensible_info_title(info, settings.structure.title),
        outline,
        elements,
        len(pages),
        page_one_headings(elements, TITLE_MAX_TOP),
        settings.structure.title,
    )
    return Document(
        source_path=str(path),
        content_sha256=sha256 or file_sha256(path),
        size_bytes=path.stat().st_size,
        page_count=len(pages),
        title=choice.title,
        pages=pages,
        elements=elements_without_shared_title(elements, choice),
        metadata={"pdf": info, "outline_entries": len(outline), **choice.metadata},
        warnings=warnings,
    )


def heading_shaped_blocks(
    blocks: list[tuple[int, Block]], em: float, bold_body_font: str | None = None
) -> list[tuple[int, Block]]:
    """New blocks with run-in heading leads split off and multi-line headings joined
    (`structure.heading_blocks`); `em` is the body font size (points) and `bold_body_font`
    the body's font when it reads as bold (`structure.headings.BodyType`)."""
    split = blocks_to_run_in_split(blocks)
    return blocks_to_joined_headings(
        split, lambda block: set_apart_by_type(block.size, emphasised(block, bold_body_font), em)
    )


def read_pages(
    path: Path,
    settings: ParseSettings,
    on_read: Callable[[PageLayout, int], None] | None = None,
    pages_read: PagesRead | None = None,
) -> tuple[list[PageLayout], dict, list, list[str]]:
    """The document's info and outline, and every page read (`parsers.pages`): `pages_read` when
    given (read elsewhere, e.g. as ranges in worker processes) and it covers every page, else
    one pass over the pages here. Warnings: info and outline first, then the pages'.
    `on_read(layout, page count)` once per page, in page order (its `text` still there for
    routing): as each page is read in the pass here, or, for `pages_read`, here for all of them
    at once (the parts of a split document report their pages when the document is assembled)."""
    document = open_pdfium(path)
    fallback = PdfminerFallback(path)  # opens pdfplumber only if a page needs it
    warnings: list[str] = []
    try:
        try:
            info = document_to_info(document)
        except Exception as error:  # noqa: BLE001 - a broken info dictionary must not fail the document
            info = {}
            warnings.append(f"PDF info dictionary unreadable, ignored ({type(error).__name__}: {error})")
        try:
            outline = document_to_outline(document)
        except Exception as error:  # noqa: BLE001 - levels then come from type styles alone
            outline = []
            warnings.append(f"outline unreadable, ignored ({type(error).__name__}: {error})")
        if pages_read is None or pages_read.first != 0 or pages_read.stop != len(document):
            pages_read = read_page_range(document, fallback, 0, len(document), settings, on_read)
        elif on_read is not None:
            for layout in pages_read.layouts:
                on_read(layout, len(document))
    finally:
        fallback.close()
        document.close()
    return pages_read.layouts, info, outline, warnings + pages_read.warnings


def layout_to_page_info(layout: PageLayout) -> PageInfo:
    return PageInfo(
        page_no=layout.page_no,
        width=round(layout.width, 2),
        height=round(layout.height, 2),
        text_source=TextSource.text_layer if layout.segments else TextSource.empty,
        error=layout.error,
    )


def cover_blocks(
    layout: PageLayout, body, em: float, settings: ParseSettings, page: PageInfo, warnings: list[str]
) -> list[tuple[int, Block]]:
    """Page 1 goes to OCR only because its clean text is sparse beside images (a cover):
    its text-layer blocks still take part in choosing the title and the heading levels, as
    they would without OCR; the page's elements then come from OCR. Without this the title
    fell back to the PDF info dictionary, often a stale template name."""
    try:
        return [
            (layout.page_no, block)
            for block in layout_to_blocks(
                layout, body, em, settings.detect_tables, settings.tables, text_settings=settings.text_layer
            )
        ]
    except Exception as error:  # noqa: BLE001 - the title then comes from elsewhere; say why
        warnings.append(f"page {page.page_no}: cover text not used for the title: {type(error).__name__}: {error}")
        return []


def body_font_size(layouts: list[PageLayout]) -> float:
    """The font size (0.5 pt steps) carrying the most characters; 10 pt for a textless PDF."""
    sizes: Counter = Counter()
    for layout in layouts:
        for segment in layout.segments:
            sizes[round(segment.size * 2) / 2] += segment.chars
    return max(sizes.most_common(1)[0][0], 1.0) if sizes else 10.0


def record_page_error(page: PageInfo, warnings: list[str], message: str) -> None:
    page.error = message
    warnings.append(f"page {page.page_no}: {message}")


def splice_ocr(
    path: Path,
    elements: list[Element],
    pages: list[PageInfo],
    wanted: list[int],
    settings: ParseSettings,
    warnings: list[str],
    on_page_read: Callable[[int], None] | None = None,
) -> list[Element]:
    """OCR `wanted` pages in one call and put their elements in page order
    (`on_page_read(page_no)`: after each page, see `ocr_pages`); a page read at low
    confidence adds a warning naming it, the confidence and the language that would likely
    read it (`ocr.script.low_confidence_warning`).

    Raises `OcrError` (path and page named) when any page comes back unreadable: a page
    that needed OCR and got none would leave a silent hole in the document, so the whole
    document fails at stage "ocr" (the batch goes on)."""
    from parsers.ocr.script import low_confidence_warning
    from parsers.ocr.tesseract import check_ocr_available, ocr_pages

    check_ocr_available(settings.ocr)
    results = ocr_pages(path, wanted, settings.ocr, on_page_read)
    failed = [
        (page_no, results[page_no].error if page_no in results else "no OCR result returned")
        for page_no in wanted
        if page_no not in results or results[page_no].error
    ]
    if failed:
        page_no, reason = failed[0]
        others = (
            f" ({len(failed) - 1} more page(s) failed too: {', '.join(str(n) for n, _ in failed[1:])})"
            if len(failed) > 1
            else ""
        )
        raise OcrError(
            f"page {page_no} could not be OCR'd: {reason}{others}; check that the file renders in a "
            "PDF viewer and that Tesseract runs (`tesseract --version`), then re-run the document, "
            "or parse with ocr mode 'never' to keep only the text layer",
            path=str(path),
            page=page_no,
        )
    by_page: dict[int, list[Element]] = {}
    for page_no in wanted:
        page = pages[page_no - 1]
        result = results[page_no]
        page.text_source = TextSource.ocr if result.elements else TextSource.empty
        page.ocr_confidence = result.confidence
        if result.languages:
            warnings.append(
                f"page {page_no}: OCR'd as {result.languages}: its script is not read by the configured "
                f"languages ({settings.ocr.languages}); set them with --ocr-lang to skip the detection pass"
            )
        by_page[page_no] = list(result.elements)
        warning = low_confidence_warning(page_no, result.confidence, result.script, settings.ocr.languages)
        if warning:
            warnings.append(warning)
    kept = [e for e in elements if e.page not in by_page]
    merged: list[Element] = []
    inserted: set[int] = set()
    for element in kept:
        for page_no in sorted(by_page):
            if page_no < element.page and page_no not in inserted:
                merged.extend(by_page[page_no])
                inserted.add(page_no)
        merged.append(element)
    for page_no in sorted(by_page):
        if page_no not in inserted:
            merged.extend(by_page[page_no])
    return merged
