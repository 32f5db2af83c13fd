"""Recursive splitting of a span of text into units no larger than a token budget.

A span is a pair of character offsets `(start, end)` into one string (the canonical
text, or a table cell). Splitting tries the coarsest boundary first: blank line, line
break, sentence end, whitespace; only a single word larger than the budget is cut
inside, at the longest prefix that fits. Every returned span is trimmed of
surrounding whitespace and non-empty, and the spans appear in text order without
overlapping, so nothing but whitespace between them is ever lost.

Sentence ends are `.`, `?`, `!` followed by whitespace, and the danda `।`, double
danda `॥` and the CJK full stops `。！？` (followed by anything). A `.` does not end a sentence after a known
abbreviation (`approx.`, `e.g.`, `Dr.` ...), after a single letter (an initial such as
`J.`), or when the next word starts with a lower-case letter.
"""

from __future__ import annotations

import re
from typing import Callable

Span = tuple[int, int]
#: Counts the tokens of text[start:end]; callers memoise it.
SpanCount = Callable[[int, int], int]
#: (start, end, tokens, fresh): see `split_span`.
Piece = tuple[int, int, int, bool]

ABBREVIATIONS = frozenset(
    """approx e.g eg i.e ie etc dr mr mrs ms prof sr jr st no nos fig figs vs viz cf inc ltd co
    dept govt gov min max avg est ref refs vol p pp ch sec art para cl resp al jan feb mar apr jun
    jul aug sep sept oct nov dec mt smt shri kum""".split()
)

_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n\s*")
_LINE = re.compile(r"\n\s*")
_SENTENCE_END = re.compile(r"[.?!]+[\"'”’)\]]*(?=\s)|[।॥。！？]+[\"'”’)\]」』]*")
_WHITESPACE = re.compile(r"\s+")


def sentence_boundaries(text: str, start: int, end: int) -> list[int]:
    """Positions in `text[start:end]` just after a sentence end (before any whitespace)."""
    positions = []
    for match in _SENTENCE_END.finditer(text, start, end):
        stop = match.end()
        if stop >= end:
            continue
        if match.group()[0] == "." and not _ends_sentence(text, start, match.start(), stop, end):
            continue
        positions.append(stop)
    return positions


def _ends_sentence(text: str, start: int, dot: int, stop: int, end: int) -> bool:
    first = dot
    while first > start and dot - first < 40 and not text[first - 1].isspace():
        first -= 1
    word = text[first:dot].lower().lstrip("(\"'“‘[")
    if word in ABBREVIATIONS or word.rstrip(".") in ABBREVIATIONS:
        return False
    if len(word) == 1 and word.isalpha():
        return False
    after = stop
    while after < end and text[after].isspace():
        after += 1
    return not (after < end and text[after].islower())


def _trim(text: str, start: int, end: int) -> Span | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def _cut_at(text: str, start: int, end: int, cuts: list[int]) -> list[Span]:
    spans, previous = [], start
    for cut in cuts + [end]:
        trimmed = _trim(text, previous, cut)
        if trimmed:
            spans.append(trimmed)
        previous = cut
    return spans


def _split_level(text: str, start: int, end: int, level: int) -> list[Span]:
    if level == 0:
        cuts = [m.start() for m in _BLANK_LINE.finditer(text, start, end)]
    elif level == 1:
        cuts = [m.start() for m in _LINE.finditer(text, start, end)]
    elif level == 2:
        cuts = sentence_boundaries(text, start, end)
    else:
        cuts = [m.start() for m in _WHITESPACE.finditer(text, start, end)]
    return _cut_at(text, start, end, cuts)


LEVELS = ("paragraph", "line", "sentence", "word")


def split_span(text: str, span: Span, budget: int, count: SpanCount, level: int = 0) -> list[Piece]:
    """Split `text[span]` into `(start, end, tokens, fresh)` pieces of at most `budget` tokens.

    Returns the span whole when it fits; otherwise the pieces of the coarsest level that
    splits it, each split further only if still too large. Pieces are not merged back
    here: the packer merges neighbours up to its limit. `fresh` marks the first word of
    a sentence that had to be cut between words: the packer starts a new chunk there
    rather than top up the previous chunk with a sentence fragment.
    """
    trimmed = _trim(text, *span)
    if trimmed is None:
        return []
    start, end = trimmed
    tokens = count(start, end)
    if tokens <= budget:
        return [(start, end, tokens, False)]
    for current in range(level, len(LEVELS)):
        parts = _split_level(text, start, end, current)
        if len(parts) > 1:
            pieces: list[Piece] = []
            for part in parts:
                pieces.extend(split_span(text, part, budget, count, current + 1))
            if current == len(LEVELS) - 1:
                pieces[0] = pieces[0][:3] + (True,)
            return pieces
    return _split_word(text, start, end, budget, count)


def _split_word(text: str, start: int, end: int, budget: int, count: SpanCount) -> list[Piece]:
    """Cut one over-long word at the longest prefixes that fit (binary search on characters)."""
    pieces = []
    while start < end:
        low, high = start + 1, end
        while low < high:
            middle = (low + high + 1) // 2
            if count(start, middle) <= budget:
                low = middle
            else:
                high = middle - 1
        pieces.append((start, low, count(start, low), not pieces))
        start = low
    return pieces


def word_starts(text: str, start: int, end: int) -> list[int]:
    """Offsets in `[start, end)` where a word begins: a non-space after a space or at the text start."""
    at_boundary = start == 0 or text[start - 1].isspace()
    positions = [start] if start < end and at_boundary and not text[start].isspace() else []
    positions.extend(m.end() for m in _WHITESPACE.finditer(text, start, end) if m.end() < end)
    return positions


def sentence_starts(text: str, start: int, end: int) -> list[int]:
    """Offsets in `(start, end)` where a sentence or a line begins (after a real boundary)."""
    cuts = set(sentence_boundaries(text, start, end)) | {m.start() for m in _LINE.finditer(text, start, end)}
    positions = set()
    for cut in cuts:
        trimmed = _trim(text, cut, end)
        if trimmed:
            positions.add(trimmed[0])
    return sorted(positions)
