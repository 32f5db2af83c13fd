"""The library API under the CLI: every `ingest` command is one call here.

    from ingest.api import run, reprocess, query, show, runs
    summary = run(["pdfs/"], db="ingest.db", config="ingest.toml", workers=2)
    result = query("ingest.db", "select id, title from documents")

Errors are raised as the project's exceptions (ingest.contracts.errors); document failures inside
a run are not raised but recorded and returned in the summary.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from ingest.contracts.files import DEFAULT_DB

if TYPE_CHECKING:
    from ingest.contracts.evaluation import EvalReport
    from ingest.contracts.search import SearchHit
    from ingest.integrations.embed import EmbedResult, EmbedSettings, SimilarChunk
    from ingest.integrations.export import ExportResult
    from ingest.pipeline.batch import Observer, ReprocessResult, RunSummary
    from ingest.views.render import RenderedPage
    from ingest.views.report import ReportResult
    from storage.query import QueryResult
    from storage.runs import LockHolder

#: Names this module offers that live lower down, imported on first use: `ingest --help` and
#: `ingest query` must not pay for the parser, the chunker and the worker pool.
_LAZY = {
    "EvalReport": "ingest.contracts.evaluation",
    "RunSummary": "ingest.pipeline.batch",
    "ReprocessResult": "ingest.pipeline.batch",
    "PipelineSettings": "ingest.pipeline.settings",
    "load_settings": "ingest.pipeline.settings",
    "tesseract_languages_problem": "parsers.settings",
    "QueryResult": "storage.query",
    "SearchHit": "ingest.contracts.search",
    "LockHolder": "storage.runs",
    "RenderedPage": "ingest.views.render",
    "ReportResult": "ingest.views.report",
    "ExportResult": "ingest.integrations.export",
    "EmbedResult": "ingest.integrations.embed",
    "EmbedSettings": "ingest.integrations.embed",
    "SimilarChunk": "ingest.integrations.embed",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ingest.api' has no attribute {name!r}")


def resolve_db(db: str | os.PathLike | None = None, config: str | os.PathLike | None = None) -> str:
    """The database every command uses: `db` (the CLI's --db), else the environment variable
    INGEST_DB, else the config file's `[store] db`, else "ingest.db". The config file is read
    only when no earlier source names a database (`ingest query` loads no settings models)."""
    if db:
        return os.fspath(db)
    if os.environ.get("INGEST_DB"):
        return os.environ["INGEST_DB"]
    if config is not None:
        from pydantic import ValidationError

        from ingest.contracts.errors import ConfigError
        from ingest.pipeline.settings import StoreSettings, read_config_file

        store = read_config_file(config).get("store")
        if isinstance(store, dict) and "db" in store:
            try:
                return StoreSettings.model_validate(store).db
            except ValidationError as error:
                raise ConfigError(f"invalid [store] settings: {error}", path=os.fspath(config)) from error
    return DEFAULT_DB


def cli_overrides(
    workers: int | None = None, timeout: float | None = None, ocr: str | None = None, ocr_lang: str | None = None
) -> dict[str, Any]:
    """Nested settings overrides from command-line style options (None = not given)."""
    overrides: dict[str, Any] = {}
    if workers is not None:
        overrides["workers"] = workers
    if timeout is not None:
        overrides["timeout"] = timeout
    ocr_settings = {key: value for key, value in (("mode", ocr), ("languages", ocr_lang)) if value is not None}
    if ocr_settings:
        overrides["parse"] = {"ocr": ocr_settings}
    return overrides


def run(
    paths: list[str | os.PathLike],
    *,
    db: str | None = None,
    config: str | os.PathLike | None = None,
    force: bool = False,
    observer: Observer | None = None,
    **options: Any,
) -> RunSummary:
    """`ingest run`: the batch over folders/files. `options`: workers, timeout, ocr, ocr_lang, and
    executor ("process" or "ray") with ray_address (see `run_pipeline`)."""
    from ingest.pipeline.batch import run_pipeline
    from ingest.pipeline.settings import load_settings

    executor, ray_address = options.pop("executor", None) or "process", options.pop("ray_address", None)
    settings = load_settings(config, cli_overrides(**options))
    return run_pipeline(
        paths,
        settings,
        db=resolve_db(db, config),
        force=force,
        observer=observer,
        executor=executor,
        ray_address=ray_address,
    )


def reprocess(
    id_or_path: str,
    *,
    db: str | None = None,
    config: str | os.PathLike | None = None,
    unpin: bool = False,
    **options: Any,
) -> ReprocessResult:
    """`ingest reprocess`: one document again, atomically; returns chunk counts before/after.
    `options` (ocr, ocr_lang) stay pinned to the document for later runs; `unpin` clears them."""
    from ingest.pipeline.batch import reprocess_document

    return reprocess_document(
        id_or_path, db=resolve_db(db, config), config=config, overrides=cli_overrides(**options), unpin=unpin
    )


def evaluate(
    golden: str | os.PathLike,
    *,
    db: str | None = None,
    config: str | os.PathLike | None = None,
    strategies: Sequence[str] | None = None,
    ks: Sequence[int] | None = None,
    budget: int | None = None,
    chunk_settings: Mapping[str, Any] | None = None,
    retriever: str = "bm25",
    model: str | None = None,
    context_writer: Mapping[str, Any] | None = None,
    vector_cache: str | os.PathLike | None = None,
) -> EvalReport:
    """`ingest eval`: re-chunk the stored documents with each strategy, measure hit@k on the golden
    set and store one `eval_runs` row per strategy. None = the defaults (all strategies, k 1/4/10,
    a 1,200-token budget); `chunk_settings` override the config file's `[chunk]` table; `retriever`
    bm25, vector or hybrid as in `search`, or `plain` (Okapi BM25 over the chunk text; vector and
    hybrid embed the re-chunked texts with `model`);
    `context_writer` (url, model, api_key_env, ...: `ContextWriterSettings`) has a model endpoint write
    the `contextual` strategy's context lines (None: built with no model); `vector_cache`: a file
    of text vectors kept between invocations (vector then hybrid embed each text once)."""
    from ingest.evaluation import evaluate as evaluation

    writer = None
    if context_writer is not None:
        from ingest.contracts.errors import ConfigError
        from ingest.integrations.context_writer import ContextWriterSettings

        try:
            writer = ContextWriterSettings.model_validate(dict(context_writer))
        except ValueError as error:
            raise ConfigError(f"context writer settings: {error}", stage="eval") from error

    return evaluation.evaluate_golden(
        resolve_db(db, config),
        golden,
        strategies=strategies or evaluation.STRATEGIES,
        ks=ks or evaluation.DEFAULT_KS,
        budget_tokens=evaluation.DEFAULT_BUDGET_TOKENS if budget is None else budget,
        chunk_settings=evaluation.eval_chunk_settings(config, chunk_settings),
        retriever=retriever,
        model=model,
        context_writer=writer,
        vector_cache=vector_cache,
    )


def query(db: str, sql: str, parameters: dict | list | None = None, timeout: float | None = None) -> QueryResult:
    """One SQL statement on a read-only connection, every row collected (`timeout`: seconds, None = no limit)."""
    from storage.query import run_query

    return run_query(db, sql, parameters, timeout)


def stream_query(db: str, sql: str, parameters: dict | list | None = None, timeout: float | None = 60.0):
    """`ingest query`: a context manager yielding the statement's columns and a row iterator
    (streamed, never held whole); QueryError after `timeout` seconds, KeyboardInterrupt on Ctrl-C."""
    from storage.query import stream_query as stream

    return stream(db, sql, parameters, timeout)


def search(
    db: str,
    question: str,
    *,
    k: int = 5,
    doc: str | None = None,
    where: str | None = None,
    parents: bool = False,
    retriever: str = "bm25",
    model: str | None = None,
) -> list[SearchHit]:
    """`ingest search`: the `k` chunks a bot would retrieve for `question`, best first. `retriever`:
    `bm25` (FTS5 over child chunks, the ranking `ingest eval` measures; on PostgreSQL `ts_rank_cd`
    over the tsvector), `vector` (cosine to the question's vector, after `ingest embed`; `model`
    default all-MiniLM-L6-v2-int8) or `hybrid` (reciprocal rank fusion of both; vector and hybrid
    are SQLite-only, a ConfigError on PostgreSQL). `doc`: one document (id, id prefix or path); `where`: an SQL
    condition over `c` (chunks) and `d` (documents), read-only; `parents`: each child replaced by
    its parent section, de-duplicated. ConfigError when the database has no vectors for `model`."""
    from storage.search import search_chunks

    if retriever == "bm25":
        return search_chunks(db, question, k=k, doc=doc, where=where, parents=parents)
    from ingest.integrations.embed import DEFAULT_MODEL, model_name, question_embedder

    name = model_name(model or DEFAULT_MODEL)
    return search_chunks(
        db,
        question,
        k=k,
        doc=doc,
        where=where,
        parents=parents,
        retriever=retriever,
        embed_question=question_embedder(model or DEFAULT_MODEL),
        model=name,
    )


def default_retriever(db: str, model: str | None = None) -> str:
    """The retriever `ingest search` uses when none is asked for: `hybrid` when the database holds
    vectors of `model` (default all-MiniLM-L6-v2-int8; `ingest embed` stores them), else `bm25`.
    Fusing both finds the chunk that says the answer in other words and the one that holds the
    question's rare terms (figures in docs/search.md)."""
    from ingest.integrations.embed import DEFAULT_MODEL
    from storage.search import has_vectors

    return "hybrid" if has_vectors(db, model or DEFAULT_MODEL) else "bm25"


class ElementView(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seq: int
    page: int
    type: str
    heading_level: int | None
    text: str
    char_start: int | None
    char_end: int | None


class ChunkView(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seq: int
    kind: str
    parent_seq: int | None
    pages: str
    char_start: int
    char_end: int
    token_count: int
    language: str | None
    heading_path: list[str]
    element_seqs: list[int]
    starts: str = Field(description="where the chunk's first cut fell, e.g. 'start of #3' or 'inside #3 at 120/400'")
    ends: str
    over_embedding_limit: bool
    body: str


class DocumentView(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    source_path: str
    status: str
    title: str | None
    page_count: int | None
    error: str | None
    pipeline_version: str | None
    ingested_at: str | None
    metadata: dict[str, Any]
    pinned_settings: dict[str, Any] = Field(
        default_factory=dict, description="settings `ingest reprocess` pinned to this document ({} = none)"
    )
    warnings: list[str] = Field(
        default_factory=list, description="the parser's warnings, e.g. a page whose text reached no element"
    )
    elements: list[ElementView]
    chunks: list[ChunkView]


def _cut(position: int, spans: list[tuple[int, int, int]], end: bool) -> str:
    """Describe a character offset relative to the element spans (seq, start, stop)."""
    for seq, start, stop in spans:
        if start <= position <= stop:
            if (position == stop) if end else (position == start):
                return f"{'end' if end else 'start'} of #{seq}"
            if start < position < stop:
                return f"inside #{seq} at {position - start}/{stop - start}"
    return f"at {position} (between elements)"


def show(db: str, id_or_path: str) -> DocumentView:
    """`ingest show`: a document's elements and chunks, with where each chunk's cuts fell."""
    from storage import find_document, load_chunks, load_document, open_database

    with open_database(db, create=False, read_only=True) as database:
        row = find_document(database, id_or_path)
        document = load_document(database, row.id)
        chunks = load_chunks(database, row.id)
    spans = [(seq, span[0], span[1]) for seq, span in enumerate(document.body_spans()) if span is not None]
    span_of = {seq: (start, stop) for seq, start, stop in spans}
    elements = [
        ElementView(
            seq=seq,
            page=element.page,
            type=element.type.value,
            heading_level=element.heading_level,
            text=element.text,
            char_start=span_of.get(seq, (None, None))[0],
            char_end=span_of.get(seq, (None, None))[1],
        )
        for seq, element in enumerate(document.elements)
    ]
    views = [
        ChunkView(
            seq=chunk.index,
            kind=chunk.kind,
            parent_seq=chunk.parent,
            pages=f"{chunk.page_start}"
            if chunk.page_start == chunk.page_end
            else f"{chunk.page_start}-{chunk.page_end}",
            char_start=chunk.char_start,
            char_end=chunk.char_end,
            token_count=chunk.token_count,
            language=chunk.language,
            heading_path=chunk.heading_path,
            element_seqs=chunk.element_indexes,
            starts=_cut(chunk.char_start, spans, end=False),
            ends=_cut(chunk.char_end, spans, end=True),
            over_embedding_limit=bool(chunk.metadata.get("over_embedding_limit")),
            body=chunk.body,
        )
        for chunk in chunks
    ]
    return DocumentView(
        id=row.id,
        source_path=row.source_path,
        status=row.status,
        title=row.title,
        page_count=row.page_count,
        error=row.error,
        pipeline_version=row.pipeline_version,
        ingested_at=row.ingested_at,
        metadata=dict(row.metadata_ or {}),
        pinned_settings=dict(row.pinned_settings or {}),
        warnings=list(document.warnings),
        elements=elements,
        chunks=views,
    )


class RunInfo(BaseModel):
    model_config = ConfigDict(extra="forbid", from_attributes=True)

    id: int
    command: str
    started_at: str
    finished_at: str | None
    status: str
    paths: list[str]
    new: int
    changed: int
    unchanged: int
    removed: int
    failed: int
    chunks_written: int
    over_limit_chunks: int
    seconds: float | None
    message: str | None


class RunItemInfo(BaseModel):
    model_config = ConfigDict(extra="forbid", from_attributes=True)

    run_id: int
    document_id: str | None
    source_path: str
    outcome: str
    stage: str | None
    message: str | None
    chunks_before: int | None
    chunks_after: int | None
    over_limit_chunks: int
    seconds: float | None


class RunHistory(BaseModel):
    model_config = ConfigDict(extra="forbid")

    runs: list[RunInfo]
    last_run_problems: list[RunItemInfo] = Field(
        description="failed items, items with over-limit chunks and items stored with warnings"
    )


def runs(db: str, limit: int = 20, run_id: int | None = None, outcomes: tuple[str, ...] | None = None) -> RunHistory:
    """`ingest runs`: recent runs, newest first, and the problems (or chosen outcomes) of one run
    (the last by default): failures, over-limit chunks, documents stored with warnings."""
    from ingest.pipeline.batch import reports_warnings
    from storage import list_runs, open_database, run_items

    with open_database(db, create=False, read_only=True) as database:
        history = [RunInfo.model_validate(row) for row in list_runs(database, limit)]
        target = run_id if run_id is not None else (history[0].id if history else None)
        problems: list[RunItemInfo] = []
        if target is not None:
            items = run_items(database, target, outcomes)
            problems = [
                RunItemInfo.model_validate(item)
                for item in items
                if outcomes
                or item.outcome in ("failed", "still_failed")
                or item.over_limit_chunks
                or reports_warnings(item.message)
            ]
    return RunHistory(runs=history, last_run_problems=problems)


def unlock(db: str) -> LockHolder | None:
    """`ingest unlock`: clear the writer lock left by a process that cannot be checked (another host)."""
    from storage import open_database
    from storage.runs import force_unlock

    with open_database(db, create=False) as database:
        return force_unlock(database)


def render(
    db: str,
    id_or_path: str,
    *,
    pages: str | None = None,
    what: str = "both",
    dpi: int = 100,
    out: str | os.PathLike | None = None,
) -> list[RenderedPage]:
    """`ingest render`: page pictures (PIL images in `RenderedPage.image`) with elements and child
    chunks drawn; `pages` like '1,3-5' (None = all); with `out`, PNGs are also written there."""
    from ingest.views.render import render_document

    return render_document(db, id_or_path, {"pages": pages, "what": what, "dpi": dpi}, out=out)


def report(db: str, id_or_path: str, *, out: str | os.PathLike | None = None, dpi: int = 100) -> ReportResult:
    """`ingest report`: one self-contained HTML file (default `<id>.html`), pages beside their chunks."""
    from ingest.views.report import report_document

    return report_document(db, id_or_path, {"dpi": dpi}, out=out)


def export(
    db: str = DEFAULT_DB,
    document: str | None = None,
    *,
    where: str | None = None,
    format: str = "jsonl",
    kind: str = "child",
    out: str | os.PathLike | None = None,
    stream: Any = None,
) -> ExportResult:
    """`ingest export`: chunks as JSONL (`{"page_content", "metadata"}` a line; `kind` child, parent
    or all) to the file `out` or the text `stream`, or documents as Markdown (one `<id>.md` each in
    the folder `out`). `document` (id, prefix or path) and `where` (an SQL condition on the
    `chunk_context` view, run read-only) narrow the selection."""
    from ingest.contracts.errors import ConfigError
    from ingest.integrations.export import export_jsonl, export_markdown

    if format == "jsonl":
        return export_jsonl(db, out=out, stream=stream, document=document, where=where, kind=kind)
    if format == "markdown":
        return export_markdown(db, out=out, stream=stream, document=document, where=where)
    raise ConfigError(f"export format {format!r}: expected jsonl or markdown")


def embed(
    db: str = DEFAULT_DB,
    *,
    model: str | None = None,
    batch: int | None = None,
    progress: Any = None,
    settings: EmbedSettings | None = None,
) -> EmbedResult:
    """`ingest embed` (extra `embed`): vectors for the child chunks without one for `model`
    (default all-MiniLM-L6-v2-int8, packaged offline; or a local model folder), one committed
    transaction per document; a chunk longer than the model's window is embedded whole in windows
    whose vectors are averaged (`windowed`), or with `settings.long_text = "truncate"` from its
    first window (`truncated`)."""
    from ingest.integrations.embed import DEFAULT_MODEL, EmbedSettings, embed_database

    return embed_database(
        db, model=model or DEFAULT_MODEL, batch=batch, progress=progress, settings=settings or EmbedSettings()
    )


def similar(question: str, *, db: str = DEFAULT_DB, k: int = 5, model: str | None = None) -> list[SimilarChunk]:
    """The `k` child chunks nearest to `question` by vector (cosine), after `ingest embed`."""
    from ingest.integrations.embed import DEFAULT_MODEL, similar_chunks

    return similar_chunks(db, question, k=k, model=model or DEFAULT_MODEL)


# Some of these names come from `__getattr__` (`_LAZY`), which ruff cannot see.
__all__ = [  # noqa: F822
    "DocumentView",
    "EmbedResult",
    "EvalReport",
    "ExportResult",
    "PipelineSettings",
    "QueryResult",
    "RenderedPage",
    "ReportResult",
    "stream_query",
    "ReprocessResult",
    "RunHistory",
    "RunSummary",
    "embed",
    "evaluate",
    "export",
    "load_settings",
    "query",
    "render",
    "report",
    "reprocess",
    "run",
    "runs",
    "search",
    "SearchHit",
    "show",
    "similar",
    "SimilarChunk",
    "unlock",
]
