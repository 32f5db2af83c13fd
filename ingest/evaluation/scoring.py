"""Scoring a ranked retrieval against a golden answer: pure functions, no index, no database.

A golden answer is a list of phrases that must ALL appear in the SAME context. Matching is
case-insensitive, whitespace-normalised (any run of whitespace, including the newlines and
the `" | "` cell joints of a serialized table row, counts as one space) and Unicode
NFC-normalised, so the same golden set scores every strategy and every re-ingest: it
checks answer text, never chunk ids.

Three views of one ranking (`Retrieved` items, best first):

- hit@k: one of the top k child chunks holds every phrase.
- parent-expanded hit@k: each retrieved child is replaced by its parent's text, parents are
  de-duplicated in rank order (the first child of a parent fixes its rank), and the top k
  parents are checked. A child with no parent stands for itself.
- budget hit: contexts are taken in rank order while their token sum fits the budget
  (the first context that does not fit ends the prompt), and one of them must hold the
  answer. A chunk bigger than the budget can never be a budget hit, so a strategy cannot
  win by swallowing the whole document into one chunk.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

_WHITESPACE = re.compile(r"\s+")
_TABLE_JOINT = re.compile(r"\s*\|\s*")


def normalize_text(text: str) -> str:
    """NFC, case-folded, cell joints `|` and whitespace runs collapsed to one space, stripped."""
    text = unicodedata.normalize("NFC", text).casefold()
    text = _TABLE_JOINT.sub(" ", text)
    return _WHITESPACE.sub(" ", text).strip()


def normalize_phrases(must_contain: str | Sequence[str]) -> tuple[str, ...]:
    """The golden phrases as a normalised tuple; a single string is one phrase. Empty phrases are dropped."""
    phrases = [must_contain] if isinstance(must_contain, str) else list(must_contain)
    return tuple(p for p in (normalize_text(phrase) for phrase in phrases) if p)


def contains_all(text: str, phrases: Sequence[str]) -> bool:
    """True when every (already normalised) phrase occurs in `text` after normalisation."""
    haystack = normalize_text(text)
    return all(phrase in haystack for phrase in phrases)


@dataclass(frozen=True)
class Retrieved:
    """One retrieved child chunk, as the scorer sees it.

    `parent_key` identifies the parent (None: the chunk has no parent and stands for
    itself); `parent_text` / `parent_tokens` are that parent's text and token count.
    Token counts are in the counter's units (tiktoken tokens in production).
    """

    key: str
    text: str
    tokens: int
    parent_key: str | None = None
    parent_text: str | None = None
    parent_tokens: int | None = None


@dataclass(frozen=True)
class Context:
    """A text handed to the reader: a child chunk or a parent section."""

    key: str
    text: str
    tokens: int


def children_to_contexts(ranked: Sequence[Retrieved]) -> list[Context]:
    """The ranked children as contexts, unchanged in order."""
    return [Context(item.key, item.text, item.tokens) for item in ranked]


def children_to_parent_contexts(ranked: Sequence[Retrieved]) -> list[Context]:
    """Each child replaced by its parent, parents de-duplicated keeping the rank of their best child."""
    contexts: list[Context] = []
    seen: set[str] = set()
    for item in ranked:
        if item.parent_key is None or item.parent_text is None:
            key, text, tokens = item.key, item.text, item.tokens
        else:
            key = item.parent_key
            text = item.parent_text
            tokens = item.parent_tokens if item.parent_tokens is not None else item.tokens
        if key in seen:
            continue
        seen.add(key)
        contexts.append(Context(key, text, tokens))
    return contexts


def first_hit_rank(contexts: Sequence[Context], phrases: Sequence[str]) -> int | None:
    """1-based rank of the first context holding every phrase, or None if none does."""
    for rank, context in enumerate(contexts, start=1):
        if contains_all(context.text, phrases):
            return rank
    return None


def contexts_within_budget(contexts: Sequence[Context], budget_tokens: int) -> list[Context]:
    """The longest rank-order prefix whose token sum is at most `budget_tokens`.

    Stops at the first context that does not fit rather than skipping it: a reader given
    a prompt budget takes the best results first, and a smaller, lower-ranked chunk
    slipping in behind a huge one would reward the huge one's strategy for nothing.
    """
    taken: list[Context] = []
    used = 0
    for context in contexts:
        if used + context.tokens > budget_tokens:
            break
        taken.append(context)
        used += context.tokens
    return taken


def budget_hit(contexts: Sequence[Context], phrases: Sequence[str], budget_tokens: int) -> bool:
    """True when the contexts that fit in `budget_tokens` (see `contexts_within_budget`) hold the answer."""
    return first_hit_rank(contexts_within_budget(contexts, budget_tokens), phrases) is not None


@dataclass(frozen=True)
class QuestionScore:
    """Outcome of one question under one strategy; ranks are 1-based, None = not retrieved."""

    child_rank: int | None
    parent_rank: int | None
    budget_hit: bool
    parent_budget_hit: bool

    def hit(self, k: int) -> bool:
        return self.child_rank is not None and self.child_rank <= k

    def parent_hit(self, k: int) -> bool:
        return self.parent_rank is not None and self.parent_rank <= k


def score_ranking(ranked: Sequence[Retrieved], must_contain: str | Sequence[str], budget_tokens: int) -> QuestionScore:
    """Score one ranked retrieval (best first) against one golden answer, in all views."""
    phrases = normalize_phrases(must_contain)
    if not phrases:
        raise ValueError("must_contain holds no non-empty phrase")
    children = children_to_contexts(ranked)
    parents = children_to_parent_contexts(ranked)
    return QuestionScore(
        child_rank=first_hit_rank(children, phrases),
        parent_rank=first_hit_rank(parents, phrases),
        budget_hit=budget_hit(children, phrases, budget_tokens),
        parent_budget_hit=budget_hit(parents, phrases, budget_tokens),
    )


def rate(hits: Sequence[bool]) -> float:
    """Fraction of True in `hits`, in [0, 1]; 0.0 for no questions."""
    return sum(1 for hit in hits if hit) / len(hits) if hits else 0.0


_NOT_WORD = re.compile(r"[^\w\u0900-\u0963\u0966-\u097f]+")


def recall_words(text: str) -> list[str]:
    """Words for recall: letters, digits and Devanagari signs, case-folded and NFC; punctuation
    and dandas split words (so OCR's spacing around them does not count as a miss)."""
    text = unicodedata.normalize("NFC", text).casefold()
    return [word for word in _NOT_WORD.split(text) if word]


def word_recall(expected: str, got: str) -> float:
    """Share of `expected`'s words (as a multiset) found in `got`: how much of a source text
    a parser or OCR recovered, 0 to 1."""
    want, have = Counter(recall_words(expected)), Counter(recall_words(got))
    return sum(min(count, have[word]) for word, count in want.items()) / max(1, sum(want.values()))
