"""Words joined at a line break take the spelling the document prints inside its lines.

A line-end hyphen is either hyphenation ("manage-" / "ment") or a compound's own hyphen
("non-" / "compliance"). `text_joins.join_wrapped_lines` decides one line break at a time on
the lexicon. The document is better evidence: when it prints "non-compliance"
inside a line and never "noncompliance", a joined "noncompliance" was a compound broken at its
hyphen; when it prints only "cybersecurity", a joined "cyber-security" was hyphenation.

Two pure functions, one per step of `parse_pdf`:

- `texts_to_spellings` (`printed_words` page by page, then `words_to_spellings`): the words
  printed inside the text layer's lines (segment texts), read before those are let go. A
  token ending in a hyphen is a broken word, not a spelling.
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
    return words_to_spellings(printed_words(texts))


def printed_words(texts: Iterable[str]) -> set[str]:
    """The case-folded words of `texts` (each printed on one line), for `words_to_spellings`.
    `parse_pdf` collects them page by page: a document's distinct words are a few thousand
    strings, its segment texts hundreds of thousands (holding a 600-page book's until the end of
    the parse cost a worker 19 MB)."""
    return set(_WORD.findall("\n".join(texts).casefold()))  # one C-level pass per call


def words_to_spellings(words: set[str]) -> Spellings:
    """`printed_words` split into whole and hyphenated."""
    hyphenated = frozenset(w for w in words if "-" in w)
    return Spellings(frozenset(words - hyphenated), hyphenated)


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
    not in `spellings`: every one would look joined), are returned as they are.

    Speed and memory: the distinct words are gathered text by text (a set, not a list of the
    document's every word) and each is decided once; only a text holding a changed word is rewritten."""
    found: set[str] = set()
    for element in elements:
        if element.page not in ocr_pages:
            for text in _texts(element):
                found.update(_WORD.findall(text))  # per text: a list of every word of the document at once cost 19 MB
    changes = {w: r for w in found if (r := respelled(w, spellings)) != w}
    if not changes:
        return elements

    def fix(text: str) -> str:
        if not any(word in text for word in changes):
            return text
        return _WORD.sub(lambda m: changes.get(m.group(), m.group()), text)

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


def _texts(element: Element) -> list[str]:
    """The texts of an element: its text, and its table cells."""
    cells = [cell for row in element.rows for cell in row] if element.rows is not None else []
    return [element.text, *cells]
