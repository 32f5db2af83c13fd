"""The per-document work: parse (OCR inside) -> enrich -> chunk, no database; it runs in a worker process."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ingest.chunker import chunk_document
from ingest.contracts.elements import Document
from ingest.contracts.errors import IngestError, SoftTimeout
from ingest.pipeline.enrich import chunks_with_language, document_metadata, document_title
from ingest.pipeline.processed import PageCount, ProcessedDocument
from ingest.pipeline.settings import PipelineSettings
from ingest.pipeline.spill import Spilled
from ingest.pipeline.surrogates import replace_surrogates
from ingest.tokens import tiktoken_counter
from parsers.pages import PagesRead, pages_read_in_order, read_page_range_of_file
from parsers.pdf import PageHook, parse_pdf


def process_document(
    path: str,
    settings: PipelineSettings,
    sha256: str | None = None,
    on_page: PageHook | None = None,
    pages_read: PagesRead | None = None,
) -> ProcessedDocument:
    """parse -> chunk -> enrich for one PDF. Raises IngestError naming the stage that failed.
    `sha256`: the file's hash from discover (the parser then does not read the file for it).
    `on_page(pages done, pages total)`: the parser's page progress (`parsers.pdf.PageCounter`).
    `pages_read`: every page already read (`parsers.pages`), for a document read as ranges.
    Python's cyclic collector is paused meanwhile (`collector_paused`)."""
    with collector_paused():
        with stage("parse", path):
            document = parse_pdf(path, settings.parse, sha256=sha256, on_page=on_page, pages_read=pages_read)
        return process_parsed(path, settings, document)


def process_parsed(path: str, settings: PipelineSettings, document: Document) -> ProcessedDocument:
    """enrich -> chunk -> enrich for a parsed document (`process_document` after its parse), with
    the cyclic collector paused (`collector_paused`)."""
    with collector_paused():
        with stage("enrich", path):
            metadata = document_metadata(document, settings.enrich)
        with stage("chunk", path):
            chunks = chunk_document(
                document, settings.chunk, tiktoken_counter(settings.chunk.encoding), _sentence_embedder(settings)
            )
        with stage("enrich", path):
            chunks = chunks_with_language(chunks, settings.enrich)
    processed = ProcessedDocument(
        document=document,
        chunks=chunks,
        metadata=metadata,
        title=document_title(document, metadata, settings.parse.structure.title),
    )
    return replace_surrogates(processed)


def process_part(
    path: str,
    settings: PipelineSettings,
    sha256: str | None,
    split_above: int,
    pages: tuple[int, int] | None,
    pages_read: PagesRead | list | None,
    on_page: PageHook | None = None,
    parsed: Spilled | Document | None = None,
) -> PageCount | PagesRead | Document | ProcessedDocument:
    """One task of a document that may be split (`ingest.pipeline.split`), by what the job asks:
    pages [first, stop) read (`pages`); the document processed from its pages read (`pages_read`);
    or, with `split_above`, `PageCount` when it has more pages than that, else the whole document
    processed here. Raises IngestError naming the stage that failed, as `process_document` does.
    `on_page`: page progress, as for `process_document`; a range read reports nothing, the
    assembly (`pages_read`) reports every page once (the text pages as it starts, OCR'd pages
    as OCR reads them), so a split document's bar waits for its parts, then moves.
    `pages_read` may also be the ranges in page order, each a `PagesRead` or the file a worker
    wrote it to (`ingest.pipeline.spill.Spilled`): the document is then only parsed, and
    returned; `parsed` (that document, or its file) is chunked and enriched by a later task, in
    a fresh worker. Two tasks, because in one the page layouts (about 45 MB for DA-619p), the
    heap they leave fragmented, the chunks and the language model's pages add up to 170 MB.
    """
    if parsed is not None:
        with stage("parse", path):
            document = parsed.load() if isinstance(parsed, Spilled) else parsed
        return process_parsed(path, settings, document)
    if isinstance(pages_read, list):
        with collector_paused(), stage("parse", path):
            return parse_pdf(path, settings.parse, sha256=sha256, on_page=on_page, pages_read=_joined(pages_read))
    if pages is not None:
        with collector_paused(), stage("parse", path):
            return read_page_range_of_file(path, settings.parse, *pages)
    if split_above and pages_read is None:
        count = page_count(path)
        if count is not None and count > split_above:
            return PageCount(count)
    return process_document(path, settings, sha256, on_page=on_page, pages_read=pages_read)


def _joined(parts: list) -> PagesRead:
    """The page ranges, read from their files where they are `Spilled`, put back in page order."""
    return pages_read_in_order([part.load() if isinstance(part, Spilled) else part for part in parts])


def page_count(path: str) -> int | None:
    """How many pages the PDF has; None when pdfium cannot open it (processing it says why)."""
    from parsers.pdf_info import open_pdfium

    try:
        document = open_pdfium(Path(path))
    except IngestError:
        return None
    try:
        return len(document)
    finally:
        document.close()


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for one document's work, back as it was after.

    Why: reading a document allocates millions of small objects (characters, segments, lines,
    blocks) that mostly live until the document is done and form next to no cycles, so the
    collector's automatic passes, triggered by allocation counts, walk an ever larger set of
    live objects and free almost nothing: on DA-619p (619 pages) 2,871 passes cost 3.1 of
    28.4 s of CPU (11%) and freed ~21,000 objects (~1.7 MB) in all. Reference counting still
    frees every object as soon as it is unused; the few cyclic leftovers of one document go at
    the collector's next pass once it runs again. Nested use keeps it off until the outermost
    block ends."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class stage:
    """Turn any unexpected exception inside the block into an IngestError of this stage."""

    def __init__(self, name: str, path: str):
        self.name, self.path = name, path

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, error, _traceback) -> bool:
        if isinstance(error, SoftTimeout):
            if error.stage is None:  # the innermost stage names it
                error.stage = "ocr" if self.name == "parse" and _raised_in(error, OCR_MODULES) else self.name
            return False
        if error is None or isinstance(error, IngestError) or not isinstance(error, Exception):
            return False
        raise IngestError(f"{type(error).__name__}: {error}", path=self.path, stage=self.name) from error


#: The modules that run OCR inside `parse_pdf` (routing only decides which pages go there).
OCR_MODULES = (
    "parsers.ocr.tesseract",
    "parsers.ocr.image",
    "parsers.ocr.words",
    "parsers.ocr.layout",
    "parsers.ocr.tables",
)


def _raised_in(error: BaseException, modules: tuple[str, ...]) -> bool:
    """Whether a frame of one of `modules` was running when `error` was raised (OCR runs
    inside parse_pdf: a time limit that expires there is an "ocr" failure, like OcrError)."""
    trace = error.__traceback__
    while trace is not None:
        if trace.tb_frame.f_globals.get("__name__") in modules:
            return True
        trace = trace.tb_next
    return False


def _sentence_embedder(settings: PipelineSettings):
    """The packaged model for the `semantic` strategy (loaded once per worker process), else None."""
    if settings.chunk.strategy != "semantic":
        return None
    from ingest.integrations.embed import sentence_embedder

    return sentence_embedder()  # the model itself is loaded once per process (`shared_embedder`)
