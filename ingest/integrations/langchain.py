"""A LangChain document loader over an ingest database (extra `langchain`: langchain-core).

    from ingest.integrations.langchain import IngestLoader
    docs = IngestLoader("ingest.db").load()            # child chunks, every document
    parents = IngestLoader("ingest.db", kind="parent").load()

Each `Document` is one stored chunk: `page_content` is `chunks.text` (heading path first, as
indexed), `metadata` the record of `storage.export` (document id, source path, title, heading
path list, pages, offsets, chunk and parent ids, kind, element types, language, token count,
bboxes per page), `id` the chunk id as a string. Chunk ids change when a document is
re-ingested; (`document_id`, `seq`) addresses a chunk within one stored version.

With the `embed` extra too: `IngestEmbeddings` is the packaged offline model as LangChain
`Embeddings` (for any LangChain vector store), and `IngestRetriever` searches the vectors that
`ingest embed` stored in the database itself (nothing re-embedded but the question).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from ingest.contracts.errors import MissingExtraError
from ingest.contracts.files import DEFAULT_DB

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.document_loaders import BaseLoader
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings
    from langchain_core.retrievers import BaseRetriever
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
            yield _record_to_document(record)


def _record_to_document(record) -> Document:
    return Document(page_content=record.page_content, metadata=record.metadata, id=str(record.metadata["chunk_id"]))


class IngestEmbeddings(Embeddings):
    """The offline model of `ingest embed` (default all-MiniLM-L6-v2-int8, 384 floats, unit
    length; texts over 256 model tokens are embedded from their first 256)."""

    def __init__(self, model: str | None = None, batch: int = 32) -> None:
        from ingest.integrations.embed import DEFAULT_MODEL, Embedder, model_spec

        self.model = model or DEFAULT_MODEL
        self.batch = batch
        self._embedder = Embedder(model_spec(self.model))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [
            vector
            for at in range(0, len(texts), self.batch)
            for vector in self._embedder.encode(texts[at : at + self.batch]).vectors
        ]

    def embed_query(self, text: str) -> list[float]:
        return self._embedder.encode([text]).vectors[0]


class IngestRetriever(BaseRetriever):
    """The `k` child chunks nearest to the question among the vectors stored by `ingest embed`
    (`metadata["distance"]`: cosine distance, smaller is nearer)."""

    db: str = DEFAULT_DB
    k: int = 4
    model: str | None = None

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        from ingest.integrations.embed import DEFAULT_MODEL, similar_chunks

        hits = similar_chunks(self.db, query, k=self.k, model=self.model or DEFAULT_MODEL)
        return [
            Document(
                page_content=hit.page_content,
                metadata=hit.metadata | {"distance": hit.distance},
                id=str(hit.metadata["chunk_id"]),
            )
            for hit in hits
        ]
