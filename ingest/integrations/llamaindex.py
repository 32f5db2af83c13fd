"""A LlamaIndex reader over an ingest database (extra `llamaindex`: llama-index-core).

    from ingest.integrations.llamaindex import IngestReader
    nodes = IngestReader("ingest.db").load_data()      # parents and children, linked

Each `TextNode` is one stored chunk with the metadata of `storage.export` (the keys the JSONL
export and the LangChain loader use) and `id_` = the chunk id as a string. A child has a
PARENT relationship to its parent's node, a parent CHILD relationships to its children, and
every node a SOURCE relationship to its document id, so LlamaIndex's auto-merging retrieval
can climb from a retrieved child to its section. The metadata is kept out of the text that is
embedded or shown to the LLM (`excluded_*_metadata_keys`): the chunk text already starts with
its heading path, and bboxes are not prose.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from ingest.contracts.errors import MissingExtraError
from ingest.contracts.files import DEFAULT_DB
from storage.export import ChunkRecord

try:
    from llama_index.core.readers.base import BaseReader
    from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode
except ImportError as error:  # the optional extra is not installed
    raise MissingExtraError("llamaindex", "llama-index-core") from error


def records_to_nodes(records: Iterable[ChunkRecord]) -> list[TextNode]:
    """Nodes for one document's records, with PARENT/CHILD links between the nodes present
    (a child whose parent is not selected still names it: PARENT points at its id)."""
    nodes: list[TextNode] = []
    children: dict[str, list[str]] = {}
    for record in records:
        metadata = record.metadata
        node = TextNode(id_=str(metadata["chunk_id"]), text=record.page_content, metadata=metadata)
        node.excluded_embed_metadata_keys = list(metadata)
        node.excluded_llm_metadata_keys = list(metadata)
        node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=str(metadata["document_id"]))
        if metadata["parent_id"] is not None:
            parent_id = str(metadata["parent_id"])
            node.relationships[NodeRelationship.PARENT] = RelatedNodeInfo(node_id=parent_id)
            children.setdefault(parent_id, []).append(node.node_id)
        nodes.append(node)
    for node in nodes:
        if node.node_id in children:
            node.relationships[NodeRelationship.CHILD] = [RelatedNodeInfo(node_id=i) for i in children[node.node_id]]
    return nodes


class IngestReader(BaseReader):
    """Stored chunks as TextNodes. `kind`: "all" (default: parents and children, linked),
    "child" or "parent"; `document` and `where` select as in `IngestLoader`."""

    def __init__(self, db: str | os.PathLike = DEFAULT_DB, *, kind: str = "all") -> None:
        self.db = os.fspath(db)
        self.kind = kind

    def lazy_load_data(self, document: str | None = None, where: str | None = None) -> Iterator[TextNode]:
        from ingest.integrations.export import records

        batch: list[ChunkRecord] = []
        for record in records(self.db, document=document, where=where, kind=self.kind):  # type: ignore[arg-type]
            if batch and batch[-1].metadata["document_id"] != record.metadata["document_id"]:
                yield from records_to_nodes(batch)
                batch = []
            batch.append(record)
        yield from records_to_nodes(batch)

    def load_data(self, document: str | None = None, where: str | None = None) -> list[TextNode]:
        return list(self.lazy_load_data(document=document, where=where))
