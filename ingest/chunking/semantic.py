"""The `semantic` strategy's breaks: sentence starts where the topic of the prose shifts.

Semantic chunking (Kamradt's "semantic chunker", LangChain's `SemanticChunker`) embeds each
sentence and starts a new chunk where the cosine distance between consecutive sentences is
above a percentile of all such distances in the document. Here it is one more rule inside
the structure strategy, so it shares every contract (sections, heading paths, parents, tables
and lists whole or split between rows/items, offsets into the canonical text):

    sections (not merged) -> runs of consecutive prose sentences (a list, table, figure or
    heading ends a run) -> one embedding per sentence -> distance between neighbours in a run
    -> breaks: distances above the `semantic_percentile` of the document's distances, kept
    only when the stretches on both sides have at least `min_tokens` tokens
    -> the structure strategy, whose children start a new chunk at each break

So a break is only ever a sentence start inside prose: never inside a table or a list. The
maximum size is `child_max_tokens` (a stretch longer than that is split like any prose);
small sections whose merge would swallow a break are not merged.

Pure: the sentence vectors come from `embed_texts`, a callable (texts -> vectors) passed in;
production passes the packaged model (`ingest.integrations.embed.sentence_embedder`), tests
a deterministic fake. Vectors need not be normalised.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ingest.chunking.packing import Context
from ingest.chunking.prose import sentence_starts
from ingest.chunking.sections import FigureBlock, ProseBlock, Section

#: Texts in, one vector per text out (same order).
EmbedTexts = Callable[[Sequence[str]], Sequence[Sequence[float]]]

Span = tuple[int, int]


def semantic_breaks(
    sections: Sequence[Section], context: Context, embed_texts: EmbedTexts, percentile: float, min_tokens: int
) -> frozenset[int]:
    """Canonical offsets (sentence starts) where the semantic strategy starts a new child."""
    runs = [run for section in sections for run in _sentence_runs(section, context.text) if len(run) > 1]
    sentences = [span for run in runs for span in run]
    if not sentences:
        return frozenset()
    vectors = iter(_unit(vector) for vector in embed_texts([context.text[s:e] for s, e in sentences]))
    run_distances = []
    for run in runs:
        run_vectors = [next(vectors) for _ in run]
        run_distances.append([1.0 - _dot(a, b) for a, b in zip(run_vectors, run_vectors[1:])])
    threshold = _percentile([d for distances in run_distances for d in distances], percentile)
    breaks: set[int] = set()
    for run, distances in zip(runs, run_distances):
        breaks.update(_kept_breaks(run, distances, threshold, context, min_tokens))
    return frozenset(breaks)


def _sentence_runs(section: Section, text: str) -> list[list[Span]]:
    """The sentences (and lines) of each stretch of consecutive prose blocks, in order."""
    runs: list[list[Span]] = [[]]
    for block in section.blocks:
        if not isinstance(block, ProseBlock) or isinstance(block, FigureBlock):
            runs.append([])
            continue
        starts = [block.start, *sentence_starts(text, block.start, block.end)]
        for start, end in zip(starts, [*starts[1:], block.end]):
            while end > start and text[end - 1].isspace():
                end -= 1
            if end > start:
                runs[-1].append((start, end))
    return [run for run in runs if run]


def _kept_breaks(
    run: list[Span], distances: list[float], threshold: float, context: Context, min_tokens: int
) -> list[int]:
    """Sentence starts after a distance above `threshold`, each leaving at least `min_tokens`
    tokens since the previous kept break (or the run start) and before the run's end."""
    kept: list[int] = []
    low, high = run[0][0], run[-1][1]
    for distance, (start, _) in zip(distances, run[1:]):
        if distance <= threshold:
            continue
        previous = kept[-1] if kept else low
        if context.count_span(previous, start) >= min_tokens and context.count_span(start, high) >= min_tokens:
            kept.append(start)
    return kept


def _unit(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(value * value for value in vector)) or 1.0
    return [value / norm for value in vector]


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b))


def _percentile(values: list[float], percentile: float) -> float:
    """Linear interpolation between the closest ranks (numpy's default method)."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * percentile / 100
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)
