"""What the views draw from: a stored document's elements and chunks, and its PDF's pages.

Only documents with status `ok` have elements to draw: a removed document's content is deleted
and a failed one never had any, so both are refused with the reason and the way out.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ingest.contracts.chunks import Chunk
from ingest.contracts.elements import Document
from ingest.contracts.errors import DocumentNotFoundError
from ingest.contracts.files import file_sha256

if TYPE_CHECKING:
    from PIL import Image


@dataclass
class StoredDocument:
    """A stored document as the views need it. `pdf_warning` says why page pictures are blank or may
    not match the boxes (the PDF moved, or changed since it was ingested); None when all is well."""

    id: str
    source_path: str
    title: str | None
    document: Document
    chunks: list[Chunk]
    pdf_warning: str | None = None
    warnings: list[str] = field(default_factory=list)


def load_stored(db: str, id_or_path: str) -> StoredDocument:
    """Read one document (id, unique id prefix or source path) from the database `db`."""
    from storage import find_document, load_chunks, load_document, open_database

    with open_database(db, create=False, read_only=True) as database:
        row = find_document(database, id_or_path)
        if row.status != "ok":
            what = "was removed (its file is gone)" if row.status == "removed" else f"is {row.status}: {row.error}"
            raise DocumentNotFoundError(
                f"document {row.id} ({row.source_path}) {what}; it has no elements or chunks to draw. "
                f"Ingest the file again with `ingest run` or `ingest reprocess {row.id}`"
            )
        document = load_document(database, row.id)
        chunks = load_chunks(database, row.id)
    stored = StoredDocument(row.id, row.source_path, row.title, document, chunks)
    stored.pdf_warning = pdf_problem(document)
    return stored


def pdf_problem(document: Document) -> str | None:
    """Why the source PDF cannot back the pictures, or None: missing file, or other bytes than ingested."""
    path = document.source_path
    if not os.path.isfile(path):
        return f"{path} is not there any more: pages are drawn blank, boxes from the database"
    if document.content_sha256 and file_sha256(path) != document.content_sha256:
        return f"{path} changed since it was ingested: boxes may not match the page (run `ingest run` again)"
    return None


def page_to_image(pdf, page_no: int, width: float, height: float, dpi: int) -> Image.Image:
    """Page `page_no` (1-based) as an RGB image at `dpi`, or a white page of the stored size when
    `pdf` is None. The size is round(points * dpi / 72) on each side."""
    from PIL import Image

    size = (max(1, round(width * dpi / 72)), max(1, round(height * dpi / 72)))
    if pdf is None:
        return Image.new("RGB", size, "white")
    page = pdf[page_no - 1]
    try:
        image = page.render(scale=dpi / 72).to_pil().convert("RGB")
    finally:
        page.close()
    return image if image.size == size else image.resize(size)


def open_pdf(stored: StoredDocument):
    """The pypdfium2 document, or None when the PDF is missing (see `pdf_warning`)."""
    if stored.pdf_warning and not os.path.isfile(stored.source_path):
        return None
    import pypdfium2

    return pypdfium2.PdfDocument(stored.source_path)
