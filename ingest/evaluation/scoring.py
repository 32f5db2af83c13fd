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

Evidence pages (FinanceBench's measure, `pages` in the golden set): a context is a hit when
its page span (`page_start..page_end`, inclusive, 1-based) covers one of the pages, and, if
phrases are given too, it holds them. For the budget with pages only, a first context larger
than the budget is cut to the budget and counts for the first `ceil(pages x budget / tokens)`
pages of its span (the rule of ../shared/bench/financebench-dev/README.md).
"""

from __future__ import annotations

import math
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
    Token counts are in the counter's units (tiktoken tokens in production); pages are
    1-based and inclusive (0 = unknown, which never covers an evidence page).
    """

    key: str
    text: str
    tokens: int
    parent_key: str | None = None
    parent_text: str | None = None
    parent_tokens: int | None = None
    pages: tuple[int, int] = (0, 0)
    parent_pages: tuple[int, int] | None = None


@dataclass(frozen=True)
class Context:
    """A text handed to the reader: a child chunk or a parent section."""

    key: str
    text: str
    tokens: int
    pages: tuple[int, int] = (0, 0)


def children_to_contexts(ranked: Sequence[Retrieved]) -> list[Context]:
    """The ranked children as contexts, unchanged in order."""
    return [Context(item.key, item.text, item.tokens, item.pages) for item in ranked]


def children_to_parent_contexts(ranked: Sequence[Retrieved]) -> list[Context]:
    """Each child replaced by its parent, parents de-duplicated keeping the rank of their best child."""
    contexts: list[Context] = []
    seen: set[str] = set()
    for item in ranked:
        if item.parent_key is None or item.parent_text is None:
            key, text, tokens, pages = item.key, item.text, item.tokens, item.pages
        else:
            key = item.parent_key
            text = item.parent_text
            tokens = item.parent_tokens if item.parent_tokens is not None else item.tokens
            pages = item.parent_pages or item.pages
        if key in seen:
            continue
        seen.add(key)
        contexts.append(Context(key, text, tokens, pages))
    return contexts


def context_hits(
    context: Context, phrases: Sequence[str], pages: Sequence[int] = (), last_page: int | None = None
) -> bool:
    """The context holds every phrase and, when `pages` are given, its page span covers one of
    them (`last_page` cuts the span short: a context truncated to a budget)."""
    if phrases and not contains_all(context.text, phrases):
        return False
    if pages:
        start, end = context.pages
        end = end if last_page is None else min(end, last_page)
        return start > 0 and any(start <= page <= end for page in pages)
    return True


def first_hit_rank(contexts: Sequence[Context], phrases: Sequence[str], pages: Sequence[int] = ()) -> int | None:
    """1-based rank of the first context that hits (see `context_hits`), or None if none does."""
    for rank, context in enumerate(contexts, start=1):
        if context_hits(context, phrases, pages):
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


def budget_hit(
    contexts: Sequence[Context], phrases: Sequence[str], budget_tokens: int, pages: Sequence[int] = ()
) -> bool:
    """True when the contexts that fit in `budget_tokens` (see `contexts_within_budget`) hold the answer.

    With evidence pages and no phrases, a first context over the budget is cut to it and
    covers only the first `ceil(span x budget / tokens)` pages of its span.
    """
    taken = contexts_within_budget(contexts, budget_tokens)
    if first_hit_rank(taken, phrases, pages) is not None:
        return True
    if pages and not phrases and not taken and contexts:
        first = contexts[0]
        start, end = first.pages
        kept = math.ceil((end - start + 1) * budget_tokens / max(first.tokens, 1))
        return context_hits(first, phrases, pages, last_page=start + kept - 1)
    return False


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


def score_ranking(
    ranked: Sequence[Retrieved], must_contain: str | Sequence[str], budget_tokens: int, pages: Sequence[int] = ()
) -> QuestionScore:
    """Score one ranked retrieval (best first) against one golden answer (phrases, evidence pages
    or both), in all views."""
    phrases = normalize_phrases(must_contain)
    if not phrases and not pages:
        raise ValueError("must_contain holds no non-empty phrase and no evidence page is given")
    children = children_to_contexts(ranked)
    parents = children_to_parent_contexts(ranked)
    return QuestionScore(
        child_rank=first_hit_rank(children, phrases, pages),
        parent_rank=first_hit_rank(parents, phrases, pages),
        budget_hit=budget_hit(children, phrases, budget_tokens, pages),
        parent_budget_hit=budget_hit(parents, phrases, budget_tokens, pages),
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
