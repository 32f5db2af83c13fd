"""The peers of `validate.py`'s retrieval rows, the same on both sides: this tree's `naive` and
`langchain` splitters (`ingest/chunking/blind.py`) and its plain Okapi BM25
(`ingest/evaluation/plain.py`), run inside the side's own `ingest eval` code.

Why: the peers are the yardstick, not the product under test; a reference commit older than
them must still be measured with them, or its retrieval rows would be empty. How: the two files
are loaded from this script's tree under private module names (they import only the side's
chunking internals and the standard library), and the side's `evaluate_documents` runs with
its chunker (for a peer strategy) or its ranking (for `plain`) swapped for the peer's, through
the module attributes it looks up at call time (`chunk_document`, `_chunks`, `ChunkIndex`,
`ranked_keys`). Scores, scopes and budgets stay the side's code.
"""

from __future__ import annotations

import importlib.util
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PEER_STRATEGIES = ("naive", "langchain")
#: A side strategy the peers stand in for: passes the side's strategy check, its chunker is replaced.
STAND_IN = "fixed"


def load_own(name: str, relative: str):
    """This tree's file `relative`, as module `name` (the side's package of the same name stays in use)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / relative)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@contextmanager
def patched(module, **attributes):
    saved = {name: getattr(module, name) for name in attributes}
    for name, value in attributes.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


def peer_chunker(strategy: str):
    """`chunk_document`'s signature, cutting with this tree's `strategy` peer."""
    blind = load_own("validate_own_blind", "ingest/chunking/blind.py")
    from ingest.chunking.packing import Context

    spans_of = blind.text_to_naive_spans if strategy == "naive" else blind.text_to_langchain_spans

    def chunk(document, settings, counter, *_):
        context = Context(document.canonical_text(), counter)
        return blind._spans_to_chunks(document, spans_of(context.text), context, settings)

    return chunk


def evaluate(evaluation, documents, items, strategy: str, retriever: str, **options):
    """The side's `evaluate_documents` for one strategy; a peer strategy's chunks and a `plain`
    ranking come from this tree. Returns the strategy's result (`StrategyResult`)."""
    run_as = STAND_IN if strategy in PEER_STRATEGIES else strategy
    swaps = {}
    if strategy in PEER_STRATEGIES:
        swaps["chunk_document"] = peer_chunker(strategy)
    if retriever == "plain":
        swaps.update(plain_swaps(evaluation))
        retriever = "bm25"
    with patched(evaluation, **swaps):
        report = evaluation.evaluate_documents(documents, items, strategies=[run_as], retriever=retriever, **options)
    return report.strategies[0]


def plain_swaps(evaluation) -> dict:
    """`_chunks`, `ChunkIndex` and `ranked_keys` of the side's evaluation, recording each document's
    chunks and indexing every child's text in this tree's PlainBM25 beside the side's full-text index."""
    plain = load_own("validate_own_plain", "ingest/evaluation/plain.py")
    original_chunks, original_index = evaluation._chunks, evaluation.ChunkIndex
    latest: list = []

    def recording_chunks(document, *args):
        latest[:] = original_chunks(document, *args)
        return list(latest)

    class PlainBesideIndex(original_index):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.plain = plain.PlainBM25()

        def add(self, rows):
            rows = list(rows)
            super().add(rows)
            by_index = {chunk.index: chunk for chunk in latest}
            self.plain.add([(key, doc_id, by_index[int(key.rsplit("#", 1)[1])].text) for key, doc_id, *_ in rows])

    def plain_ranking(retriever, question, vector, index, vector_index, depth, scope):
        return index.plain.search(question, limit=depth, scope=scope)

    return {"_chunks": recording_chunks, "ChunkIndex": PlainBesideIndex, "ranked_keys": plain_ranking}
