"""`ingest export`: chunks as JSONL (one `{"page_content", "metadata"}` object a line, the shape
LangChain's `Document` and most loaders read) or documents as Markdown (one file each).

Files are written to a temporary name beside the target and renamed when complete, so an
interrupted export never leaves a half-written file under the final name.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Literal

from pydantic import BaseModel, ConfigDict

from ingest.contracts.errors import ConfigError
from storage import open_database
from storage.export import ChunkKind, ChunkRecord, iter_chunk_records

ExportFormat = Literal["jsonl", "markdown"]


class ExportResult(BaseModel):
    """What an export wrote: `paths` are the files (empty when written to a stream)."""

    model_config = ConfigDict(extra="forbid")

    format: str
    documents: int
    chunks: int
    paths: list[str]


def record_to_json(record: ChunkRecord) -> str:
    """One JSONL line (no newline): non-ASCII kept as is, keys in the record's order."""
    return json.dumps(record.model_dump(mode="json"), ensure_ascii=False)


def records(
    db: str, *, document: str | None = None, where: str | None = None, kind: ChunkKind = "child"
) -> Iterator[ChunkRecord]:
    """The records of `storage.export.iter_chunk_records` over a database path/URL, streamed."""
    with open_database(db, create=False) as database:
        yield from iter_chunk_records(database, document=document, where=where, kind=kind)


def _write_atomically(path: Path, write) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    try:
        with partial.open("w", encoding="utf-8") as handle:
            write(handle)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def export_jsonl(
    db: str, *, out: str | os.PathLike | None = None, stream: IO[str] | None = None, **selection
) -> ExportResult:
    """Write the selected chunks as JSONL to the file `out`, or to `stream` when `out` is None."""
    counts = {"chunks": 0, "documents": set()}

    def write(handle: IO[str]) -> None:
        for record in records(db, **selection):
            handle.write(record_to_json(record) + "\n")
            counts["chunks"] += 1
            counts["documents"].add(record.metadata["document_id"])

    if out is None:
        if stream is None:
            raise ConfigError("export_jsonl needs `out` (a file) or `stream`")
        write(stream)
        paths: list[str] = []
    else:
        _write_atomically(Path(out), write)
        paths = [str(out)]
    return ExportResult(format="jsonl", documents=len(counts["documents"]), chunks=counts["chunks"], paths=paths)


def export_markdown(
    db: str,
    *,
    out: str | os.PathLike | None = None,
    stream: IO[str] | None = None,
    document: str | None = None,
    where: str | None = None,
) -> ExportResult:
    """One `<document id>.md` per selected document in the folder `out`; with `where`, the
    documents having at least one matching chunk. Without `out`, one document goes to `stream`."""
    from ingest.integrations.markdown import document_to_markdown
    from storage import load_document
    from storage.export import select_document_ids

    with open_database(db, create=False) as database:
        ids = select_document_ids(database, document=document, where=where)
        if out is None and len(ids) != 1:
            raise ConfigError(f"--format markdown selected {len(ids)} documents: give --out FOLDER (one file each)")
        paths = []
        for document_id in ids:
            markdown = document_to_markdown(load_document(database, document_id))
            if out is None:
                if stream is not None:
                    stream.write(markdown)
                continue
            target = Path(out) / f"{document_id}.md"
            _write_atomically(target, lambda handle, text=markdown: handle.write(text))
            paths.append(str(target))
    return ExportResult(format="markdown", documents=len(ids), chunks=0, paths=paths)
