"""A LangChain document loader over an ingest database (extra `langchain`: langchain-core).

    from ingest.integrations.langchain import IngestLoader
    docs = IngestLoader("ingest.db").load()            # child chunks, every document
    parents = IngestLoader("ingest.db", kind="parent").load()

Each `Document` is one stored chunk: `page_content` is `chunks.text` (heading path first, as
indexed), `metadata` the record of `storage.export` (document id, source path, title, heading
path list, pages, offsets, chunk and parent ids, kind, element types, language, token count,
bboxes per page), `id` the chunk id as a string. Chunk ids change when a document is
re-ingested; (`document_id`, `seq`) addresses a chunk within one stored version.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from ingest.contracts.errors import MissingExtraError
from ingest.contracts.files import DEFAULT_DB

try:
    from langchain_core.document_loaders import BaseLoader
    from langchain_core.documents import Document
except ImportError as error:  # the optional extra is not installed
    raise MissingExtraError("langchain", "langchain-core") from error


class IngestLoader(BaseLoader):
    """Stored chunks as LangChain Documents, streamed one ingest document at a time.

    `document`: an id, unique id prefix or source path (None = every ok document);
    `where`: an SQL condition on the `chunk_context` view (read-only), e.g. `"language = 'hi'"`;
    `kind`: "child" (the retrieval units, default), "parent" (whole sections) or "all".
    """

    def __init__(
        self,
        db: str | os.PathLike = DEFAULT_DB,
        *,
        document: str | None = None,
        where: str | None = None,
        kind: str = "child",
    ) -> None:
        self.db = os.fspath(db)
        self.document = document
        self.where = where
        self.kind = kind

    def lazy_load(self) -> Iterator[Document]:
        from ingest.integrations.export import records

        for record in records(self.db, document=self.document, where=self.where, kind=self.kind):  # type: ignore[arg-type]
            yield Document(
                page_content=record.page_content, metadata=record.metadata, id=str(record.metadata["chunk_id"])
            )
