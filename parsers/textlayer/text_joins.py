"""Wrapped lines of one paragraph or table cell joined into one string.

One rule serves the text-layer blocks (`blocks.lines_to_text`, which ruled-table cells
also go through via `rulings.grid_to_rows`) and the OCR paragraphs
(`ocr.words.join_lines`). Callers normalise the result their own way: NFKC on the text
layer (`chars.normalize_text`), nothing more on OCR text, which is already NFC.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from parsers.textlayer.lexicon import is_english_word as _is_word

#: A line ending in one of these may end with a word broken across lines: the hyphen
#: "-" and the soft hyphen U+00AD (a hyphenation point the producer marked as such).
LINE_END_HYPHENS = ("-", "\u00ad")
#: Footnote marks a line or sentence may end with after its own end ("... by reference).**",
#: "Form of Plan.†"): set aside when asking whether it ends an entry or a sentence.
FOOTNOTE_MARKS = "*†‡"


def ends_in_broken_word(text: str, after_digit: bool = False) -> bool:
    """`text` ends in a line-end hyphen after a letter ("Stock Mar-", "Adjusted Non-"), or with
    `after_digit` also after a digit ("Form 10-"): a word that may go on in the next line
    (whether the hyphen stays is `join_wrapped_lines`'s call)."""
    if not (text.endswith(LINE_END_HYPHENS) and len(text) > 1):
        return False
    return text[-2].isalnum() if after_digit else text[-2].isalpha()


_OPENING = "([{"
_CLOSING = ")]}"


def line_goes_on(text: str) -> bool:
    """`text` (a printed line) cannot end where it does: it ends in a line-end hyphen after a
    letter or digit (a word broken across lines: "Form 10-" + "K.", "(Case No. 19-" +
    "2-15514-1)") or leaves a bracket open. The next line continues it, whatever it starts
    with or weighs: a line opening "K." there is no list item (a filing's "Form 10-" / "K."),
    and a bold/regular switch there is no new block (a court filing's bold case name broken
    across lines: that line 0.91 bold, the next regular)."""
    text = text.rstrip()
    if ends_in_broken_word(text, after_digit=True):
        return True
    if "(" not in text and "[" not in text and "{" not in text:
        return False
    depth = 0
    for char in text:
        if char in _OPENING:
            depth += 1
        elif char in _CLOSING and depth:
            depth -= 1
    return depth > 0


#: Prefixes that English writes with a hyphen before a word ("non-normal", "pre-tax"): a
#: line-end hyphen after one of them is the compound's own, unless the joined spelling is
#: a word ("re-" + "quired" -> "required").
HYPHEN_PREFIXES = frozenset(
    "anti co counter cross e ex inter intra mid multi non over post pre pro re self semi sub super "
    "trans ultra un under well".split()
)
_LETTERS = re.compile(r"[^\W\d_]+")


class WrappedLine(NamedTuple):
    """One printed line: its text, and whether the PDF draws a space after its last glyph
    (True), draws none although the page draws such spaces elsewhere (False), or tells
    nothing (None, also every OCR line); `first_size` and `last_size` the font sizes (points)
    of its first and last glyph (None: unknown)."""

    text: str
    space_after: bool | None = None
    first_size: float | None = None
    last_size: float | None = None


#: Two lines whose font sizes differ by more than this share are different lines of a
#: header or a form, not one paragraph wrapped: no word goes on across them.
SAME_SIZE_SHARE = 0.02


def join_wrapped_lines(lines: Iterable[str | WrappedLine]) -> str:
    """Lines joined into one string; the separator at each line break is `_separator`'s.

    Each line is stripped of surrounding whitespace and blank lines are skipped. A
    hyphen inside a line is never touched.
    """
    text = ""
    previous_space: bool | None = None
    previous_size: float | None = None  # of the last glyph of the line before
    for line in lines:
        part, space_after, first_size, last_size = (line, None, None, None) if isinstance(line, str) else line
        part = part.strip()
        if not part:
            continue
        if not text:
            text = part
        else:
            separator = _separator(text, part, previous_space if _same_size(previous_size, first_size) else True)
            text = (text[:-1] + part) if separator is None else f"{text}{separator}{part}"
        previous_space, previous_size = space_after, last_size
    return text


def _same_size(before: float | None, after: float | None) -> bool:
    """Glyphs of one size (`SAME_SIZE_SHARE`), or a size unknown (no evidence against)."""
    return before is None or after is None or abs(before - after) <= SAME_SIZE_SHARE * max(before, after)


def _separator(text: str, part: str, space_after: bool | None) -> str | None:
    """What goes between `text` (ending a line) and `part` (the next line): " ", "", or None
    for "drop the line-end hyphen and glue" (a word broken across lines).

    - A line-end hyphen after a letter or digit, then a capital or a digit: the hyphen is
      the word's own ("Non-" + "GAAP", "2013-" + "2014", "COVID-" + "19"): glued, kept.
    - A line-end hyphen after a letter, then a lower-case letter: removed when the joined
      spelling is a word, kept when the hyphenated one is a compound (`_is_broken_word`).
    - Hangul to Hangul: no space when the page draws a space after the lines that end
      between words and this line has none (a break inside a word: "확" + "진자"), and the
      glyphs either side of the break are set in one size (`SAME_SIZE_SHARE`):
      a Korean report's masthead lines "발행처 국회입법조사처" (ending at 10 pt) and "발행인
      ..." (starting at 9 pt) are two fields, not a word wrapped (`join_wrapped_lines` then
      passes `space_after` as True).
    - Han or kana on both sides: no space (those scripts put none between words).
    """
    last, first = text[-1], part[0]
    if text.endswith(LINE_END_HYPHENS) and len(text) > 1 and text[-2].isalnum():
        if first.isupper() or first.isdigit():
            return "" if last == "-" else None  # a soft hyphen is only a break point
        if first.islower():
            if not text[-2].isalpha():
                return "" if last == "-" else None  # "COVID-19-" + "related"
            return None if last == "\u00ad" or _is_broken_word(text[:-1], part) else ""
    if _is_hangul(last) and _is_hangul(first) and space_after is False:
        return ""
    if _is_han_or_kana(last) and _is_han_or_kana(first):
        return ""
    return " "


def _is_broken_word(before: str, after: str) -> bool:
    """Whether "before-" + "after" on two lines is one word broken by hyphenation (True) or
    a hyphenated compound (False). Decided on the English lexicon (`lexicon.is_english_word`) with the
    parts as printed:

    - the lexicon spells it with the hyphen ("forward-looking"): a compound;
    - the joined spelling is a word (or a word plus an inflection): broken ("manage-ment");
    - the part before already holds a hyphen ("year-on-" + "year"): a compound;
    - the part before is a word, a known prefix or an acronym and the part after is a
      word ("third-party", "non-normal", "FAA-approved"): a compound, as when unsure;
    - the part before is a prefix alone ("pre-" + "connectorized"): a compound;
    - neither part is a word ("fertil-" + "iser"): broken.
    """
    left_token = before.rsplit(None, 1)[-1]
    if "-" in left_token or "\u2010" in left_token:
        return False
    left_match = _LETTERS.search(left_token[::-1])
    right_match = _LETTERS.match(after)
    if not left_match or not right_match:
        return True
    left, right = left_match.group()[::-1].lower(), right_match.group().lower()
    if _is_word(f"{left}-{right}"):
        return False
    if _is_word(left + right):
        return True
    if left in HYPHEN_PREFIXES:
        return False
    left_is_word = _is_word(left) or (left_match.group().isupper() and len(left) > 1)
    return not (left_is_word and _is_word(right))


def _is_hangul(char: str) -> bool:
    return "\uac00" <= char <= "\ud7a3"


def _is_han_or_kana(char: str) -> bool:
    return "\u3040" <= char <= "\u30ff" or "\u3400" <= char <= "\u4dbf" or "\u4e00" <= char <= "\u9fff"
