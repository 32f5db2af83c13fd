"""Words joined at a line break take the spelling the document prints inside its lines.

A line-end hyphen is either hyphenation ("manage-" / "ment") or a compound's own hyphen
("non-" / "compliance"). `text_joins.join_wrapped_lines` decides one line break at a time on
the lexicon. The document is better evidence (issue 12): when it prints "non-compliance"
inside a line and never "noncompliance", a joined "noncompliance" was a compound broken at its
hyphen; when it prints only "cybersecurity", a joined "cyber-security" was hyphenation.

Two pure functions, one per step of `parse_pdf`:

- `texts_to_spellings`: the words printed inside the text layer's lines (segment texts), read
  before those are let go. A token ending in a hyphen is a broken word, not a spelling.
- `elements_with_spellings`: every element's text and table cells with each word whose other
  spelling (with or without the hyphen) is the only one the document prints, in that spelling.
  A word printed whole anywhere is never changed, so only words made by a join can change.

Hyphens only: letters, their case and every other character stay as they are, so the
conservation count (`textlayer.conservation`, hyphens not counted) is the same before and after.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ingest.contracts.elements import Element

#: A word: letters or digits, with hyphens only between them ("non-compliance", "COVID-19").
_WORD = re.compile(r"(?<![\w-])[^\W_]+(?:-[^\W_]+)*(?![\w-])")


@dataclass(frozen=True, slots=True)
class Spellings:
    """Case-folded words printed inside lines: `whole` without a hyphen, `hyphenated` with one."""

    whole: frozenset[str]
    hyphenated: frozenset[str]


def texts_to_spellings(texts: Iterable[str]) -> Spellings:
    """The words of `texts` (each printed on one line) split into whole and hyphenated."""
    whole: set[str] = set()
    hyphenated: set[str] = set()
    for text in texts:
        for match in _WORD.finditer(text):
            word = match.group().casefold()
            (hyphenated if "-" in word else whole).add(word)
    return Spellings(frozenset(whole), frozenset(hyphenated))


def respelled(word: str, spellings: Spellings) -> str:
    """`word` in the spelling the document prints when it prints only the other one: a
    hyphen put back ("noncompliance" -> "non-compliance") or taken out between lower-case
    letters ("cyber-security" -> "cybersecurity"). A word with more than one hyphen, or
    printed as it is, stays."""
    folded = word.casefold()
    if folded in spellings.whole or folded in spellings.hyphenated or word.count("-") > 1:
        return word
    if "-" in word:
        left, right = word.split("-")
        if not (left[-1:].islower() and right[:1].islower()):
            return word  # "S-" + "T", "COVID-" + "19": the join kept a hyphen that is the word's own
        joined = left + right
        return joined if joined.casefold() in spellings.whole else word
    return _with_hyphen(word, spellings.hyphenated)


def _with_hyphen(word: str, hyphenated: frozenset[str]) -> str:
    """`word` with a hyphen where a printed spelling in `hyphenated` has its one hyphen."""
    folded = word.casefold()
    for cut in range(1, len(word)):
        if f"{folded[:cut]}-{folded[cut:]}" in hyphenated:
            return f"{word[:cut]}-{word[cut:]}"
    return word


def elements_with_spellings(elements: list[Element], spellings: Spellings, ocr_pages: set[int]) -> list[Element]:
    """New elements whose text and table cells spell joined words as the document prints them
    (`respelled`); elements without such a word, and those of `ocr_pages` (their words are
    not in `spellings`: every one would look joined), are returned as they are."""
    if not spellings.hyphenated and not spellings.whole:
        return elements

    known: dict[str, str] = {}  # word -> its spelling, each word decided once per document

    def fix(text: str) -> str:
        if not text:
            return text
        words = _WORD.findall(text)
        for word in set(words) - known.keys():
            known[word] = respelled(word, spellings)
        if all(known[word] == word for word in words):
            return text
        return _WORD.sub(lambda m: known[m.group()], text)

    out = []
    for element in elements:
        if element.page in ocr_pages:
            out.append(element)
            continue
        text = fix(element.text)
        rows = [[fix(cell) for cell in row] for row in element.rows] if element.rows is not None else None
        if text == element.text and rows == element.rows:
            out.append(element)
        else:
            out.append(element.model_copy(update={"text": text, "rows": rows}))
    return out
