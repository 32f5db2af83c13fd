"""`ingest export` and `ingest embed`; the library side is ingest/integrations/."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from ingest.cli.common import (
    DbOption,
    app,
    call,
    say,
)

# ---------------------------------------------------------------------------------------------
# EXPORT AND EMBED (the library side is ingest/integrations/).
# ---------------------------------------------------------------------------------------------


class ExportFormat(str, Enum):
    jsonl = "jsonl"
    markdown = "markdown"


class ChunkKind(str, Enum):
    child = "child"
    parent = "parent"
    all = "all"


@app.command()
def export(
    document: Optional[str] = typer.Argument(None, help="Document id (or unique prefix) or source path (default all)."),
    db: Optional[str] = DbOption,
    where: Optional[str] = typer.Option(
        None, "--where", help="SQL condition on the chunk_context view, e.g. \"title like '%Cotton%'\" (read-only)."
    ),
    format: ExportFormat = typer.Option(ExportFormat.jsonl, "--format", "-f", help="jsonl (chunks) or markdown."),
    kind: ChunkKind = typer.Option(ChunkKind.child, "--kind", help="JSONL: child chunks, parents, or all."),
    out: Optional[Path] = typer.Option(
        None, "--out", "-o", help="JSONL: file (default stdout). Markdown: folder, one <id>.md per document."
    ),
) -> None:
    """Export chunks as JSONL ({"page_content", "metadata"} a line) or documents as Markdown."""
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = api.resolve_db(db)

    result = call(
        api.export, db, document, where=where, format=format.value, kind=kind.value, out=out, stream=sys.stdout
    )
    if out is not None:
        what = f"{result.chunks} chunk(s) from " if format == ExportFormat.jsonl else ""
        say(f"{what}{result.documents} document(s) -> {out}", stderr=True)


@app.command()
def embed(
    db: Optional[str] = DbOption,
    model: Optional[str] = typer.Option(
        None,
        "--model",
        "-m",
        help="Packaged model name (default all-MiniLM-L6-v2-int8; extra 'embed') or a local model folder "
        "(tokenizer.json + model.onnx, sentence-transformers layout; vectors stored under the folder's name).",
    ),
    batch: Optional[int] = typer.Option(None, "--batch", "-b", min=1, help="Texts per model call at most (64)."),
    threads: Optional[int] = typer.Option(
        None, "--threads", min=1, help="Model threads (default: one per CPU this process may use)."
    ),
    truncate: bool = typer.Option(
        False,
        "--truncate",
        help="Embed a chunk longer than the model's window (256 tokens) from its first window and flag it, "
        "instead of averaging the vectors of equal windows over the whole chunk (the default).",
    ),
) -> None:
    """Compute vectors for child chunks that have none for the model (incremental; one commit per document).

    A chunk longer than the model's window is embedded whole: cut into equal windows, each embedded,
    their vectors averaged by token count; the summary counts these chunks. With --truncate it is
    embedded from its first window and counted as truncated (chunk_embeddings.truncated = 1).
    """
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = api.resolve_db(db)
    settings = api.EmbedSettings(threads=threads, long_text="truncate" if truncate else "pool")
    result = call(api.embed, db, model=model, batch=batch, settings=settings)
    say(
        f"{result.model}: {result.chunks} chunk(s) embedded in {result.documents} document(s), "
        f"{result.seconds:.1f} s ({result.chunks_per_second:.1f} chunks/s); {result.stored_total} stored in total"
    )
    if result.windowed:
        say(
            f"{result.windowed} chunk(s) longer than {result.max_tokens} model tokens were embedded whole, "
            "in windows whose vectors were averaged",
            stderr=True,
        )
    if result.truncated:
        say(
            f"warning: {result.truncated} chunk(s) longer than the model reads were embedded from "
            "their first tokens (chunk_embeddings.truncated = 1)",
            stderr=True,
        )
    if result.purged:
        say(f"{result.purged} vector(s) of chunks deleted since the last run were purged", stderr=True)
