"""Wrapped lines of one paragraph or table cell joined into one string.

One rule serves the text-layer blocks (`blocks.lines_to_text`, which ruled-table cells
also go through via `rulings.grid_to_rows`) and the OCR paragraphs
(`ocr.words.join_lines`). Callers normalise the result their own way: NFKC on the text
layer (`chars.normalize_text`), nothing more on OCR text, which is already NFC.
"""

from __future__ import annotations

from collections.abc import Iterable

#: A line ending in one of these may end with a word broken across lines: the hyphen
#: "-" and the soft hyphen U+00AD (a hyphenation point the producer marked as such).
LINE_END_HYPHENS = ("-", "\u00ad")


def join_wrapped_lines(lines: Iterable[str]) -> str:
    """Lines joined with one space; a word hyphenated at a line end is rejoined.

    Each line is stripped of surrounding whitespace and blank lines are skipped. The
    hyphen (or soft hyphen) ending the text so far is dropped and the next line glued
    on when the hyphen follows a letter and the next line starts with a lower-case
    letter: "manage-" + "ment of" -> "management of". Everything else keeps its hyphen
    and gets a space: "COVID-" + "19" (a digit follows), "Yavatmal-" + "Ralegaon"
    (a capital follows), "1800-" + "233" (a digit precedes). Scripts without case
    (Devanagari) therefore never rejoin.
    """
    text = ""
    for line in lines:
        part = line.strip()
        if not part:
            continue
        if text.endswith(LINE_END_HYPHENS) and len(text) > 1 and text[-2].isalpha() and part[:1].islower():
            text = text[:-1] + part
        else:
            text = f"{text} {part}" if text else part
    return text
