"""Commands that read: `query` (read-only SQL), `show` (a document and its cuts), `search`."""

from __future__ import annotations

import json
import sys
from typing import Optional

import typer

from ingest.cli.common import (
    EXIT_USAGE,
    DbOption,
    Format,
    add_literal_row,
    app,
    call,
    clip,
    console,
    literal_table,
    say,
    span_list,
)


@app.command()
def query(
    sql: str = typer.Argument(..., help='One SQL statement, e.g. "select id, title from documents".'),
    db: Optional[str] = DbOption,
    output: Format = typer.Option(Format.table, "--format", "-f", help="Output format."),
    timeout: float = typer.Option(
        60.0, "--timeout", help="Seconds the statement may run before it is stopped (a finite number > 0)."
    ),
) -> None:
    """Run read-only SQL: the connection cannot write (INSERT, UPDATE, DELETE, DROP, ATTACH fail).

    Rows are streamed as they come; the statement stops after --timeout seconds or on Ctrl-C.
    Blobs print as `blob(N bytes) base64:...`. The table format shows the first 1000 rows.
    Tables: documents, pages, elements, chunks, chunks_fts (FTS5), runs, run_items, eval_runs.
    Example: ingest query "select c.id, bm25(chunks_fts) from chunks_fts join chunks c on c.id =
    chunks_fts.rowid where chunks_fts match 'whitefly' order by 2 limit 5"
    """
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = api.resolve_db(db)

    if not 0 < timeout < float("inf"):
        say(f"error: [config] --timeout must be a finite number of seconds > 0, not {timeout}", stderr=True)
        raise typer.Exit(EXIT_USAGE)
    call(_print_query, api, db, sql, output, timeout)


#: Rows the table format prints (it must lay out all its rows at once); csv and json print every row.
TABLE_ROWS = 1000


def _print_query(api, db: str, sql: str, output: Format, timeout: float) -> None:
    from storage.query import value_to_text, write_csv, write_json

    with api.stream_query(db, sql, timeout=timeout) as stream:
        if output is Format.json:
            write_json(stream.columns, stream.rows, sys.stdout)
            return
        if output is Format.csv:
            write_csv(stream.columns, stream.rows, sys.stdout)
            return
        table = literal_table(*stream.columns, show_lines=False)
        shown, more = 0, False
        for row in stream.rows:
            if shown == TABLE_ROWS:
                more = True
                break
            add_literal_row(table, ("NULL" if value is None else str(value_to_text(value)) for value in row))
            shown += 1
    console().print(table)
    if more:
        say(f"first {TABLE_ROWS} row(s) shown; use --format csv or json for all", stderr=True)
    else:
        say(f"{shown} row(s)", stderr=True)


@app.command()
def show(
    document: str = typer.Argument(..., help="Document id (or unique prefix) or source path."),
    db: Optional[str] = DbOption,
    as_json: bool = typer.Option(False, "--json", help="Print the whole view as JSON."),
    width: int = typer.Option(70, "--width", min=10, help="Characters of each text shown in tables."),
) -> None:
    """Show a document's elements and chunks, and where each chunk's cuts fell between elements."""
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = api.resolve_db(db)

    view = call(api.show, db, document)
    if as_json:
        sys.stdout.write(view.model_dump_json(indent=2) + "\n")
        return
    say(
        f"{view.id}  {view.source_path}\nstatus {view.status}, {view.page_count} page(s), "
        f"title: {view.title!r}, pipeline {view.pipeline_version}, ingested {view.ingested_at}"
    )
    if view.error:
        say(f"error: {view.error}")
    say(f"metadata: {json.dumps(view.metadata, ensure_ascii=False)}")
    if view.pinned_settings:
        say(
            f"pinned settings (from `ingest reprocess`; clear with --unpin): "
            f"{json.dumps(view.pinned_settings, ensure_ascii=False)}"
        )
    for warning in view.warnings:
        say(f"warning: {warning}")
    elements = literal_table("#", "page", "type", "chars", "text", title="elements", title_justify="left")
    for element in view.elements:
        kind = element.type + (f" h{element.heading_level}" if element.heading_level else "")
        span = "-" if element.char_start is None else f"{element.char_start}-{element.char_end}"
        add_literal_row(elements, (str(element.seq), str(element.page), kind, span, clip(element.text, width)))
    console().print(elements)
    chunks = literal_table(
        "#",
        "kind",
        "parent",
        "pages",
        "tokens",
        "lang",
        "elements",
        "cut at start",
        "cut at end",
        "body",
        title="chunks",
        title_justify="left",
    )
    for chunk in view.chunks:
        add_literal_row(
            chunks,
            (
                str(chunk.seq),
                chunk.kind,
                "" if chunk.parent_seq is None else str(chunk.parent_seq),
                chunk.pages,
                f"{chunk.token_count}{' !' if chunk.over_embedding_limit else ''}",
                chunk.language or "",
                span_list(chunk.element_seqs),
                chunk.starts,
                chunk.ends,
                clip(chunk.body, width),
            ),
        )
    console().print(chunks)


# ---------------------------------------------------------------------------------------------
# SEARCH COMMAND (the library side is storage/search.py).
# ---------------------------------------------------------------------------------------------


@app.command()
def search(
    question: str = typer.Argument(..., help="The question, in the user's words (no FTS5 syntax needed)."),
    db: Optional[str] = DbOption,
    k: int = typer.Option(5, "--k", min=1, help="How many results."),
    doc: Optional[str] = typer.Option(None, "--doc", help="Only this document (id, id prefix or source path)."),
    where: Optional[str] = typer.Option(
        None, "--where", help="SQL condition over c (chunks) and d (documents), e.g. \"d.title LIKE '%cotton%'\"."
    ),
    parents: bool = typer.Option(False, "--parents", help="Return each hit's parent section (de-duplicated)."),
    bm25: bool = typer.Option(False, "--bm25", help="Full text only, even when the database holds vectors."),
    vector: bool = typer.Option(False, "--vector", help="Rank by embedding similarity (needs `ingest embed`)."),
    hybrid: bool = typer.Option(
        False, "--hybrid", help="Fuse the BM25 and vector rankings (reciprocal rank fusion; needs `ingest embed`)."
    ),
    model: Optional[str] = typer.Option(
        None, "--model", "-m", help="Embedding model for --vector/--hybrid (default all-MiniLM-L6-v2-int8)."
    ),
    output: str = typer.Option("table", "--format", "-f", help="table or json."),
) -> None:
    """The chunks a bot would retrieve for a question, best first: BM25 (SQLite FTS5; PostgreSQL
    ts_rank_cd) over child chunks, or by vector (--vector), or both fused (--hybrid; both SQLite only).
    Without a choice: hybrid when the database holds vectors of the model (`ingest embed`), else BM25."""
    if output not in ("table", "json"):
        raise typer.BadParameter(f"must be 'table' or 'json', not {output!r}", param_hint="--format")
    if doc and where:
        raise typer.BadParameter("give --doc or --where, not both (--where can say c.document_id = '...')")
    if vector + hybrid + bm25 > 1:
        raise typer.BadParameter("give one of --bm25, --vector and --hybrid")
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = api.resolve_db(db)
    retriever = "vector" if vector else "hybrid" if hybrid else "bm25" if bm25 else api.default_retriever(db, model)
    hits = call(api.search, db, question, k=k, doc=doc, where=where, parents=parents, retriever=retriever, model=model)
    if output == "json":
        sys.stdout.write(json.dumps([hit.model_dump() for hit in hits], ensure_ascii=False, indent=2) + "\n")
        return
    table = literal_table(
        "#", "score", "doc", "chunk", "kind", "pages", "tokens", "heading path", "text", show_lines=True
    )
    for hit in hits:
        pages = str(hit.page_start) if hit.page_start == hit.page_end else f"{hit.page_start}-{hit.page_end}"
        body = hit.text[len(hit.heading_path) :].strip() if hit.text.startswith(hit.heading_path) else hit.text
        add_literal_row(
            table,
            (
                str(hit.rank),
                f"{hit.score:.4f}" if retriever != "bm25" else f"{hit.score:.2f}",
                hit.document_id,
                str(hit.chunk_id),
                hit.kind,
                pages,
                str(hit.token_count),
                hit.heading_path,
                clip(body, 200),
            ),
        )
    console().print(table)
    say(f"{len(hits)} result(s)", stderr=True)
