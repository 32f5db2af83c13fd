"""`ingest eval`: how often does each chunking strategy bring the answer to the top of a BM25 search?

For each strategy, the stored documents' already-parsed elements are chunked again in
memory (no re-parsing), the child chunks are indexed in an in-memory SQLite FTS5 table
and every golden question is searched with `bm25()`. Scores (see `scoring`):
hit@k, parent-expanded hit@k, budget hit; plus chunk count and mean tokens per chunk.
Every strategy sees the same documents, questions, tokenizer and retriever: only the
chunking differs.

`evaluate_documents` is the core (documents in, report out; no database);
`evaluate_golden` loads the documents from a database, runs it and stores one
`eval_runs` row per strategy.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, get_args

from ingest.chunker import chunk_document
from ingest.chunking.settings import ChunkSettings
from ingest.contracts.chunks import Chunk
from ingest.contracts.elements import Document
from ingest.contracts.errors import ConfigError
from ingest.contracts.evaluation import (
    EvalReport,
    GoldenItem,
    QuestionResult,
    Scores,
    SkippedQuestion,
    StrategyResult,
    load_golden,
)
from ingest.contracts.files import file_sha256
from ingest.evaluation.plain import PlainBM25
from ingest.evaluation.scoring import QuestionScore, Retrieved, normalize_phrases, normalize_text, rate, score_ranking
from ingest.evaluation.vectors import VectorIndex, ranked_keys
from ingest.tokens import TokenCounter, tiktoken_counter
from storage.schema import FTS_TOKENIZE, searched_heading
from storage.search import BODY_WEIGHT, HEADING_WEIGHT, ChunkIndex

if TYPE_CHECKING:
    from ingest.integrations.context_writer import ContextWriterSettings
    from ingest.integrations.late import TokenEmbedder

#: Texts in, unit vectors out (same order); `ingest.integrations.embed.texts_embedder` makes one.
EmbedTexts = Callable[[Sequence[str]], Sequence[Sequence[float]]]

STRATEGIES = ("structure", "recursive", "fixed", "contextual", "semantic", "late", "naive")
"""The default comparison: every strategy `ChunkSettings.strategy` names (`--strategies` picks some)
except `langchain`, which needs the optional langchain-text-splitters package."""
RETRIEVERS = ("bm25", "plain", "vector", "hybrid")
"""`bm25`: the product's FTS5 search; `plain`: a plain Okapi BM25 over the chunk text
(`ingest.evaluation.plain`); `vector` / `hybrid`: embeddings, as `ingest search`."""
EMBEDDING_RETRIEVERS = ("vector", "hybrid")
DEFAULT_KS = (1, 4, 10)
DEFAULT_BUDGET_TOKENS = 1200
#: Child chunks retrieved per question: enough for the largest k, for k distinct parents
#: and for a budget filled with small chunks.
DEFAULT_DEPTH = 50
TOP_CHUNK_CHARS = 300


def evaluate_golden(
    db: str | Path,
    golden_path: str | Path,
    strategies: Sequence[str] = STRATEGIES,
    ks: Sequence[int] = DEFAULT_KS,
    budget_tokens: int = DEFAULT_BUDGET_TOKENS,
    chunk_settings: ChunkSettings | dict | None = None,
    depth: int = DEFAULT_DEPTH,
    store: bool = True,
    retriever: str = "bm25",
    model: str | None = None,
    context_writer: ContextWriterSettings | None = None,
    vector_cache: str | Path | None = None,
) -> EvalReport:
    """Evaluate `strategies` on the golden set against the documents stored in `db` (path or SQLAlchemy URL).

    `chunk_settings` are the base settings (sizes, overlap, encoding); each strategy runs
    with them and its own `strategy` name. With `store`, each strategy's result is written
    to `eval_runs` with its parameters and gets its `run_id`. `retriever` `vector` or `hybrid`
    embeds the re-chunked children with `model` (default all-MiniLM-L6-v2-int8), reusing the
    database's stored vectors (`ingest embed`) for texts identical to stored chunks, and the vectors
    of `vector_cache` (a file kept between invocations, `storage.vector_cache`). `context_writer`:
    the `contextual` strategy's context lines are written by that model endpoint instead of built.
    `semantic` embeds sentences with `model` whatever the retriever (through `vector_cache` too, so
    a second retriever's run does not embed them again); `late` pools its token embeddings.
    """
    from storage.evals import load_stored_documents, save_eval_runs, stored_fts_tokenize

    strategies, ks = _check_strategies(strategies), _check_ks(ks)  # option errors before any database work
    check_retriever(retriever)
    items = load_golden(golden_path)
    documents = load_stored_documents(db)
    if not documents:
        raise ConfigError(
            "the database holds no document to evaluate on; run `ingest run PATH --db ...` first",
            path=str(db),
            stage="eval",
        )
    report = evaluate_documents(
        documents,
        items,
        strategies=strategies,
        ks=ks,
        budget_tokens=budget_tokens,
        chunk_settings=chunk_settings,
        depth=depth,
        golden_path=str(golden_path),
        fts_tokenize=stored_fts_tokenize(db, default=FTS_TOKENIZE),
        retriever=retriever,
        embed_texts=_database_embedder(db, model, vector_cache) if retriever in EMBEDDING_RETRIEVERS else None,
        context_writer=context_writer,
        embed_sentences=_sentence_embedder(model, vector_cache) if "semantic" in strategies else None,
        embed_tokens=_token_embedder(model) if "late" in strategies and retriever in EMBEDDING_RETRIEVERS else None,
    )
    if store:
        save_eval_runs(db, report, golden_sha256=file_sha256(golden_path))
    return report


def evaluate_documents(
    documents: Mapping[str, Document],
    items: Sequence[GoldenItem],
    strategies: Sequence[str] = STRATEGIES,
    ks: Sequence[int] = DEFAULT_KS,
    budget_tokens: int = DEFAULT_BUDGET_TOKENS,
    chunk_settings: ChunkSettings | dict | None = None,
    depth: int = DEFAULT_DEPTH,
    counter: TokenCounter | None = None,
    golden_path: str = "",
    fts_tokenize: str = FTS_TOKENIZE,
    weights: tuple[float, float] = (HEADING_WEIGHT, BODY_WEIGHT),
    retriever: str = "bm25",
    embed_texts: EmbedTexts | None = None,
    context_writer: ContextWriterSettings | None = None,
    embed_sentences: EmbedTexts | None = None,
    embed_tokens: TokenEmbedder | None = None,
) -> EvalReport:
    """Score each strategy on `items` over `documents` (id -> parsed Document). Pure apart from CPU.

    Questions whose `doc` names no document in `documents` are skipped and listed in the
    report (so a partial database can still be measured); if all are skipped, ConfigError.
    `fts_tokenize` is the FTS5 tokenizer of the evaluation index (use the stored
    `chunks_fts` one to measure what users' queries see); `weights` are the bm25 (heading path,
    body) weights, changed only to measure alternatives (benchmarks/search_eval.py). `retriever`:
    `bm25`, `vector` or `hybrid` (as `ingest search`); the last two need `embed_texts`, which
    embeds the children of every strategy and the questions. `context_writer` (off by default): an
    OpenAI-compatible endpoint writes the `contextual` strategy's context lines
    (`ingest.integrations.context_writer`). `semantic` needs `embed_sentences`
    (texts -> vectors); `late` with vector or hybrid needs `embed_tokens`.
    """
    ks = _check_ks(ks)
    if check_retriever(retriever) in EMBEDDING_RETRIEVERS and embed_texts is None:
        raise ConfigError(f"retriever {retriever!r} needs an embedding function", stage="eval")
    strategies = _check_strategies(strategies)
    if "semantic" in strategies and embed_sentences is None:
        raise ConfigError("strategy 'semantic' needs a sentence embedding function", stage="eval")
    if "late" in strategies and retriever in EMBEDDING_RETRIEVERS and embed_tokens is None:
        raise ConfigError(f"strategy 'late' with retriever {retriever!r} needs token embeddings", stage="eval")
    if budget_tokens < 1:
        raise ConfigError(f"--budget must be a positive number of tokens, not {budget_tokens}", stage="eval")
    depth = max(depth, max(ks))
    base = ChunkSettings.resolve(chunk_settings)
    counter = counter or tiktoken_counter(base.encoding)

    scopes, skipped = _resolve_scopes(documents, items)
    answerable = [item for item in items if item.line not in {s.line for s in skipped}]
    if not answerable:
        raise ConfigError(
            "no golden question refers to a stored document; check the 'doc' fields "
            'against `ingest query "SELECT id, source_path FROM documents"`',
            path=golden_path or None,
            stage="eval",
        )

    in_text = _answers_in_text(documents, answerable, scopes)
    question_vectors = None
    if embed_texts is not None and retriever in EMBEDDING_RETRIEVERS:
        vectors = embed_texts([item.question for item in answerable])
        question_vectors = {item.line: vector for item, vector in zip(answerable, vectors)}
    results = []
    for strategy in strategies:
        settings = ChunkSettings.model_validate({**base.model_dump(), "strategy": strategy})
        results.append(
            _evaluate_strategy(
                documents,
                answerable,
                scopes,
                in_text,
                settings,
                counter,
                ks,
                budget_tokens,
                depth,
                fts_tokenize,
                weights,
                retriever,
                embed_texts,
                question_vectors,
                context_writer,
                embed_sentences,
                embed_tokens,
            )
        )
    return EvalReport(
        golden_path=golden_path,
        created_at=datetime.now(timezone.utc),
        ks=list(ks),
        budget_tokens=budget_tokens,
        depth=depth,
        fts_tokenize=fts_tokenize,
        retriever=retriever,
        documents=list(documents),
        question_count=len(items),
        skipped=skipped,
        strategies=results,
    )


def _evaluate_strategy(
    documents: Mapping[str, Document],
    items: Sequence[GoldenItem],
    scopes: Mapping[int, str | None],
    in_text: Mapping[int, bool],
    settings: ChunkSettings,
    counter: TokenCounter,
    ks: Sequence[int],
    budget_tokens: int,
    depth: int,
    fts_tokenize: str,
    weights: tuple[float, float],
    retriever: str = "bm25",
    embed_texts: EmbedTexts | None = None,
    question_vectors: Mapping[int, Sequence[float]] | None = None,
    context_writer: ContextWriterSettings | None = None,
    embed_sentences: EmbedTexts | None = None,
    embed_tokens: TokenEmbedder | None = None,
) -> StrategyResult:
    """Chunk every document with `settings`, index the children, search and score every item.

    Cost: CPU seconds (`time.process_time`: every thread of this process, so the model's too)
    of chunking (for `semantic` including its sentence embeddings) and of embedding the
    children (vector and hybrid only; texts already embedded, such as stored vectors or an
    earlier strategy's identical chunk, are not embedded again)."""
    chunks_by_key: dict[str, tuple[str, Chunk, Chunk | None]] = {}
    parent_count = 0
    vector_index = VectorIndex() if retriever in EMBEDDING_RETRIEVERS and embed_texts is not None else None
    plain_index = PlainBM25() if retriever == "plain" else None
    chunk_seconds = embed_seconds = 0.0
    late = None
    with ChunkIndex(fts_tokenize, weights) as index:
        for doc_id, document in documents.items():
            started = time.process_time()
            chunks = _chunks(document, settings, counter, context_writer, embed_sentences)
            chunk_seconds += time.process_time() - started
            index.name_scope(doc_id, document.title, document.source_path)
            children = [chunk for chunk in chunks if chunk.kind == "child"]
            parent_count += len(chunks) - len(children)
            rows = []
            for chunk in children:
                key = f"{doc_id}#{chunk.index}"
                parent = chunks[chunk.parent] if chunk.parent is not None else None
                chunks_by_key[key] = (doc_id, chunk, parent)
                rows.append((key, doc_id, indexed_heading(chunk), chunk.body))
            index.add(rows)
            if plain_index is not None:
                plain_index.add([(key, doc_id, chunks_by_key[key][1].text) for key, *_ in rows])
            if vector_index is not None and embed_texts is not None:
                started = time.process_time()
                if settings.strategy == "late" and embed_tokens is not None:
                    from ingest.integrations.late import LateVectors, late_chunk_vectors

                    pooled = late_chunk_vectors(document.canonical_text(), children, embed_tokens)
                    vectors = pooled.vectors
                    late = late or LateVectors()
                    late.add_counts(pooled)
                else:
                    vectors = embed_texts([chunk.text for chunk in children])
                embed_seconds += time.process_time() - started
                vector_index.add([row[0] for row in rows], doc_id, vectors)
        question_results = []
        for item in items:
            vector = question_vectors.get(item.line) if question_vectors else None
            if plain_index is not None:
                hits = plain_index.search(item.question, limit=depth, scope=scopes[item.line])
            else:
                hits = ranked_keys(retriever, item.question, vector, index, vector_index, depth, scopes[item.line])
            ranked = [_to_retrieved(key, *chunks_by_key[key]) for key, _ in hits]
            score = score_ranking(ranked, item.must_contain, budget_tokens, item.pages)
            top = chunks_by_key[hits[0][0]] if hits else None
            question_results.append(_question_result(item, score, top, in_text[item.line]))
    tokens = [chunk.token_count for _, chunk, _ in chunks_by_key.values()]
    kinds = sorted({item.kind for item in items})
    pages = sum(document.page_count for document in documents.values())
    return StrategyResult(
        strategy=settings.strategy,
        settings=settings.model_dump(),
        chunk_count=len(tokens),
        parent_count=parent_count,
        mean_tokens=round(sum(tokens) / len(tokens), 1) if tokens else 0.0,
        max_tokens=max(tokens, default=0),
        pages=pages,
        chunk_cpu_seconds=round(chunk_seconds, 3),
        embed_cpu_seconds=round(embed_seconds, 3) if vector_index is not None else None,
        notes=[late.describe(embed_tokens.max_tokens)] if late is not None and embed_tokens is not None else [],
        overall=_scores(question_results, ks),
        by_kind={kind: _scores([q for q in question_results if q.kind == kind], ks) for kind in kinds},
        questions=question_results,
    )


def _chunks(
    document: Document,
    settings: ChunkSettings,
    counter: TokenCounter,
    context_writer: ContextWriterSettings | None,
    embed_sentences: EmbedTexts | None,
) -> list[Chunk]:
    """The strategy's chunks; for `contextual` with a writer, the structure chunks with written context."""
    if settings.strategy != "contextual" or context_writer is None:
        return chunk_document(document, settings, counter, embed_sentences)
    from ingest.integrations.context_writer import write_contexts

    structure = chunk_document(document, settings.model_copy(update={"strategy": "structure"}), counter)
    return write_contexts(document, structure, context_writer, settings, counter)


def indexed_heading(chunk: Chunk) -> str:
    """The full-text index's heading column of a child, as `chunks_fts` holds it for a stored
    chunk: its innermost headings (`storage.schema.searched_heading`), and for `contextual` its
    context line; nothing for the blind strategies, whose text is their body."""
    if chunk.text == chunk.body:
        return ""
    context = chunk.metadata.get("context", "")
    return "\n".join(part for part in (searched_heading(chunk.heading_path), context) if part)


def _database_embedder(db: str | Path, model: str | None, cache: str | Path | None = None) -> EmbedTexts:
    """Embeds texts with `model`, reusing the vectors `ingest embed` stored in `db` and those in the
    `cache` file for identical texts."""
    from ingest.integrations.embed import DEFAULT_MODEL, texts_embedder
    from storage import open_database
    from storage.vectors import stored_vectors

    name = model or DEFAULT_MODEL
    with open_database(db, create=False) as database:
        known = stored_vectors(database, name) if database.is_sqlite else {}
    return texts_embedder(name, known, cache=cache)


def _sentence_embedder(model: str | None, cache: str | Path | None = None) -> EmbedTexts:
    from ingest.integrations.embed import DEFAULT_MODEL, sentence_embedder

    return sentence_embedder(model or DEFAULT_MODEL, cache=cache)


def _token_embedder(model: str | None) -> TokenEmbedder:
    from ingest.integrations.embed import DEFAULT_MODEL, shared_embedder

    return shared_embedder(model or DEFAULT_MODEL)


def _to_retrieved(key: str, doc_id: str, chunk: Chunk, parent: Chunk | None) -> Retrieved:
    pages = (chunk.page_start, chunk.page_end)
    if parent is None:
        return Retrieved(key=key, text=chunk.text, tokens=chunk.token_count, pages=pages)
    return Retrieved(
        key=key,
        text=chunk.text,
        tokens=chunk.token_count,
        parent_key=f"{doc_id}#{parent.index}",
        parent_text=parent.text,
        parent_tokens=parent.token_count,
        pages=pages,
        parent_pages=(parent.page_start, parent.page_end),
    )


def _question_result(
    item: GoldenItem, score: QuestionScore, top: tuple[str, Chunk, Chunk | None] | None, answer_in_text: bool
) -> QuestionResult:
    top_doc, top_chunk = (top[0], top[1].text[:TOP_CHUNK_CHARS]) if top else (None, None)
    return QuestionResult(
        line=item.line,
        question=item.question,
        kind=item.kind,
        doc=item.doc,
        must_contain=item.must_contain,
        pages=item.pages,
        child_rank=score.child_rank,
        parent_rank=score.parent_rank,
        budget_hit=score.budget_hit,
        parent_budget_hit=score.parent_budget_hit,
        top_chunk=top_chunk,
        top_chunk_doc=top_doc,
        answer_in_text=answer_in_text,
    )


def _answers_in_text(
    documents: Mapping[str, Document], items: Sequence[GoldenItem], scopes: Mapping[int, str | None]
) -> dict[int, bool]:
    """Per item line: does one searched document's canonical text hold every phrase at all?

    False means no chunking can score the question: the parser or OCR lost or changed the
    answer text (or the golden phrase has a typo), which the misses list says.
    """
    texts = {doc_id: normalize_text(document.canonical_text()) for doc_id, document in documents.items()}
    found = {}
    for item in items:
        phrases = normalize_phrases(item.must_contain)
        if not phrases:  # evidence pages only: nothing to look for in the text
            found[item.line] = True
            continue
        searched = [texts[scopes[item.line]]] if scopes[item.line] is not None else list(texts.values())
        found[item.line] = any(all(phrase in text for phrase in phrases) for text in searched)
    return found


def _scores(results: Sequence[QuestionResult], ks: Sequence[int]) -> Scores:
    def at(rank: int | None, k: int) -> bool:
        return rank is not None and rank <= k

    return Scores(
        questions=len(results),
        hit_at_k={k: rate([at(q.child_rank, k) for q in results]) for k in ks},
        parent_hit_at_k={k: rate([at(q.parent_rank, k) for q in results]) for k in ks},
        budget_hit=rate([q.budget_hit for q in results]),
        parent_budget_hit=rate([q.parent_budget_hit for q in results]),
    )


def _resolve_scopes(
    documents: Mapping[str, Document], items: Iterable[GoldenItem]
) -> tuple[dict[int, str | None], list[SkippedQuestion]]:
    """Map each item's line to the document id it is restricted to (None: all documents)."""
    names: dict[str, str] = {}
    for doc_id, document in documents.items():
        source = PurePath(document.source_path)
        for name in (source.name, source.stem, str(source)):
            names.setdefault(name.casefold(), doc_id)
    for doc_id in documents:  # an id wins over a file name that happens to look like one
        names[doc_id.casefold()] = doc_id
    scopes: dict[int, str | None] = {}
    skipped: list[SkippedQuestion] = []
    for item in items:
        if item.doc is None:
            scopes[item.line] = None
            continue
        wanted = item.doc.casefold()
        doc_id = names.get(wanted) or names.get(PurePath(wanted).name)
        if doc_id is None:
            skipped.append(
                SkippedQuestion(
                    line=item.line, question=item.question, reason=f"document {item.doc!r} is not in the database"
                )
            )
        else:
            scopes[item.line] = doc_id
    return scopes, skipped


def check_retriever(retriever: str) -> str:
    """`retriever` if `ingest eval` knows it (`RETRIEVERS`), else ConfigError naming the choices."""
    if retriever not in RETRIEVERS:
        raise ConfigError(f"retriever {retriever!r}: expected one of {', '.join(RETRIEVERS)}", stage="eval")
    return retriever


def _check_ks(ks: Sequence[int]) -> list[int]:
    values = sorted(set(int(k) for k in ks))
    if not values or values[0] < 1:
        raise ConfigError(f"--k needs positive integers, got {list(ks)}", stage="eval")
    return values


def _check_strategies(strategies: Sequence[str]) -> list[str]:
    names = list(dict.fromkeys(s.strip() for s in strategies if s.strip()))
    known = get_args(ChunkSettings.model_fields["strategy"].annotation)
    unknown = [s for s in names if s not in known]
    if not names or unknown:
        raise ConfigError(f"unknown strategy {unknown or names}; choose from {', '.join(known)}", stage="eval")
    return names


def eval_chunk_settings(config: str | Path | None = None, overrides: Mapping[str, Any] | None = None) -> ChunkSettings:
    """Base chunk settings for every strategy: defaults, then the config file's `[chunk]` table, then
    `overrides` (`ingest eval --set KEY=VALUE`; values may be strings, ChunkSettings converts them)."""
    from ingest.pipeline.settings import load_settings

    return load_settings(config, {"chunk": dict(overrides or {})}).chunk
