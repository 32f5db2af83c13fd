"""`ingest eval --retriever plain`: a plain Okapi BM25 over the exported chunk `text`.

What a team that loads our chunks into its own search index sees, with none of the product's
search choices (no stemming, no stopword list, no heading column or weight, no document-name
boost): each chunk's `text` (heading path included, as exported) and the question are cut into
lowercase word tokens (runs of Unicode letters, digits and combining marks, so Devanagari
and accented words are whole words), and

    score(q, d) = sum over distinct query words t of
                  idf(t) * tf(t, d) * (k1 + 1) / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))
    idf(t)      = ln(1 + (N - n(t) + 0.5) / (n(t) + 0.5))

with k1 = 1.2 and b = 0.75 (the textbook defaults; Lucene's idf, which never goes negative).
N, n(t) and avgdl are counted over the chunks searched: one document's chunks when the question
names its document (as one index per document), every chunk otherwise. Pure Python, stdlib only.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

#: Combining marks live in the first two planes (code points below 0x20000) and in the
#: variation selectors supplement; scanning only these keeps building the word pattern fast.
MARK_PLANES_END = 0x20000
VARIATION_SELECTORS = (0xE0100, 0xE01F0)


def _combining_marks() -> str:
    """A regex class body of every Unicode combining mark (M*): Python's `\\w` leaves out the
    vowel signs of Indic scripts (Devanagari matras are Mc/Mn), which would cut every word there."""
    ranges, start, previous = [], None, None
    for code in [*range(MARK_PLANES_END), *range(*VARIATION_SELECTORS)]:
        if unicodedata.category(chr(code)).startswith("M"):
            if start is None or code != previous + 1:
                if start is not None:
                    ranges.append((start, previous))
                start = code
            previous = code
    if start is not None:
        ranges.append((start, previous))
    return "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)


@functools.cache
def _word_pattern() -> re.Pattern[str]:
    return re.compile(r"[\w" + _combining_marks() + "]+")


#: Term-frequency saturation: a word's 2nd occurrence adds less than its 1st (textbook default).
K1 = 1.2
#: Length normalisation: 0 ignores chunk length, 1 divides fully by it (textbook default).
B = 0.75


def text_to_words(text: str) -> list[str]:
    """Lowercase word tokens: runs of Unicode letters, digits, underscores and combining marks;
    nothing stemmed."""
    return _word_pattern().findall(text.lower())


@dataclass
class _Scope:
    """The statistics of one searched set of chunks: their positions, N, n(t) and avgdl."""

    members: list[int] = field(default_factory=list)
    document_frequency: Counter = field(default_factory=Counter)
    total_length: int = 0


class PlainBM25:
    """An in-memory Okapi BM25 index of (key, scope, text) rows; `search` ranks best first,
    ties in insertion order, and returns only chunks sharing at least one word with the query."""

    def __init__(self, k1: float = K1, b: float = B) -> None:
        self.k1, self.b = k1, b
        self.keys: list[str] = []
        self.scopes: list[str] = []
        self.counts: list[Counter] = []
        self.lengths: list[int] = []
        self._stats: dict[str | None, _Scope] = {}

    def add(self, rows: Sequence[tuple[str, str, str]]) -> None:
        """Rows of (key, scope, text): the scope is the document id a question may be restricted to."""
        for key, scope, text in rows:
            words = text_to_words(text)
            self.keys.append(key)
            self.scopes.append(scope)
            self.counts.append(Counter(words))
            self.lengths.append(len(words))
        self._stats.clear()

    def _scope(self, scope: str | None) -> _Scope:
        if scope not in self._stats:
            stats = _Scope()
            for position, owner in enumerate(self.scopes):
                if scope is None or owner == scope:
                    stats.members.append(position)
                    stats.document_frequency.update(self.counts[position].keys())
                    stats.total_length += self.lengths[position]
            self._stats[scope] = stats
        return self._stats[scope]

    def search(self, question: str, limit: int, scope: str | None = None) -> list[tuple[str, float]]:
        """`(key, score)` of the `limit` best chunks for `question`, highest score first."""
        stats = self._scope(scope)
        count = len(stats.members)
        if not count:
            return []
        average = stats.total_length / count or 1.0
        idf = {}
        for word in dict.fromkeys(text_to_words(question)):
            n = stats.document_frequency.get(word, 0)
            if n:
                idf[word] = math.log(1 + (count - n + 0.5) / (n + 0.5))
        scored = []
        for position in stats.members:
            counts = self.counts[position]
            norm = self.k1 * (1 - self.b + self.b * self.lengths[position] / average)
            score = sum(w * counts[t] * (self.k1 + 1) / (counts[t] + norm) for t, w in idf.items() if t in counts)
            if score > 0:
                scored.append((score, position))
        scored.sort(key=lambda pair: -pair[0])  # stable: ties keep insertion order
        return [(self.keys[position], score) for score, position in scored[:limit]]
