"""Table-of-contents headings: recognised, and kept from becoming the parent of the body.

A contents page is navigation, not a section that holds the document. Its heading
("Table of Contents", "Sommaire", ...) is often the largest type on page 1, so the
style rules would make it the document title or a top-level heading, and every later
heading would then nest under it (every heading path of a 619-page book started with
"Table of Contents"). The rules here:

1. `is_toc_heading`: a heading is a contents heading when its text is a contents label
   (`TOC_LABEL`, in the languages we ingest: English, French, Spanish, German, Hindi,
   Marathi, Chinese, Japanese, Korean), or when the lines between it and the next
   heading are mostly contents entries (`is_toc_entry_line`: text, a dot or ellipsis
   leader, a page number), at least `MIN_ENTRY_LINES` of them. The second rule also
   catches "List of Figures", "Index" and unlabelled contents pages.
2. `toc_level`: a contents heading takes the level of the first heading after its
   entries (never less than 2), so that heading (same level) closes the contents
   section, and deeper headings after it nest under that heading, never under the
   contents. Level 2, not 1: level 1 is the document title, and a level-1 heading on
   page 1 can be taken as the document title, which every heading path starts with.
"""

from __future__ import annotations

import re

TOC_LABEL = re.compile(
    r"^\s*(?:table\s+of\s+contents?|contents|table\s+des\s+mati[eè]res|sommaire|[íi]ndice(?:\s+general)?"
    r"|inhaltsverzeichnis|inhalt|विषय[\s-]*सूची|अनुक्रमणिका|अनुक्रम|目录|目錄|目次|목차|차례)\s*:?\s*$",
    re.IGNORECASE,
)
#: A contents entry line: some text, then a leader of >= 3 dots (spaced or not) or an
#: ellipsis, then a page number (arabic or roman) at the end of the line.
TOC_ENTRY = re.compile(r"\S.*?(?:(?:\.\s?){3,}|…+|(?:·\s?){3,})\s*(?:\d{1,4}|[ivxlcdm]{1,6})\s*$", re.IGNORECASE)
#: Contents entries needed under a heading before it counts as a contents heading.
MIN_ENTRY_LINES = 3
#: Share of the lines under the heading that must be contents entries.
MIN_ENTRY_SHARE = 0.6


def is_toc_entry_line(text: str) -> bool:
    """True for "2.1 Scope ........ 14", "Annexe A … 31"; False for prose and plain headings."""
    return bool(TOC_ENTRY.match(text.strip()))


def is_toc_heading(text: str, lines_below: list[str]) -> bool:
    """Is this heading a contents heading? `lines_below` are the text lines of the body
    blocks between the heading and the next heading (in reading order)."""
    if TOC_LABEL.match(text):
        return True
    lines = [line for line in lines_below if line.strip()]
    entries = sum(is_toc_entry_line(line) for line in lines)
    return entries >= MIN_ENTRY_LINES and entries >= MIN_ENTRY_SHARE * len(lines)


def toc_level(next_heading_level: int | None) -> int:
    """The level for a contents heading whose entries are followed by a heading of
    `next_heading_level` (None when no heading follows)."""
    return max(next_heading_level or 2, 2)
