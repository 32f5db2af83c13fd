"""The overlap between neighbouring children: a tail of the previous chunk that the next one repeats.

The tail starts at a whole word, preferably at a sentence or line start, and holds at
most `limit` tokens. It is taken from inside the previous chunk's text (never the
whole of it), so neighbours share exactly the returned span: in canonical offsets,
`next.char_start == tail_start` and `previous.char_end == end`.
"""

from __future__ import annotations

from ingest.chunking.prose import SpanCount, sentence_starts, word_starts

#: Characters searched back from the end: generous for any script (cl100k spends
#: about 4 Latin or 1 Devanagari characters per token).
_CHARS_PER_TOKEN_WINDOW = 8


def overlap_tail(text: str, low: int, end: int, limit: int, count: SpanCount) -> tuple[int, int] | None:
    """Return `(start, tokens)` of the longest tail of `text[low:end]` with at most `limit` tokens.

    `start > low` always (a neighbour never swallows the whole previous chunk). A
    sentence start is preferred when it keeps at least half of `limit`; otherwise the
    earliest fitting word start is used. None when even the last word is too long.
    """
    if limit <= 0 or end - low < 2:
        return None
    window_low = max(low + 1, end - limit * _CHARS_PER_TOKEN_WINDOW)
    words = [p for p in word_starts(text, window_low, end) if p > low]
    best = _earliest_fitting(words, end, limit, count)
    if best is None:
        return None
    # boundaries are local (the word before a stop, the letter after it): a short look-back suffices
    if best[0] in sentence_starts(text, max(low, best[0] - 64), end):
        return best
    later = [p for p in sentence_starts(text, best[0], end) if p > best[0]]
    if later:
        tokens = count(later[0], end)
        if tokens * 2 >= limit:
            return later[0], tokens
    return best


def _earliest_fitting(candidates: list[int], end: int, limit: int, count: SpanCount) -> tuple[int, int] | None:
    """Binary search: the token count of text[p:end] falls as p grows."""
    low, high = 0, len(candidates) - 1
    found = None
    while low <= high:
        middle = (low + high) // 2
        tokens = count(candidates[middle], end)
        if tokens <= limit:
            found = (candidates[middle], tokens)
            high = middle - 1
        else:
            low = middle + 1
    return found
