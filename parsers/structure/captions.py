"""Captions: "Table 2: ...", "Fig. 3. ..." lines that label a table or a figure."""

from __future__ import annotations

import re

#: "Table 2: ...", "Fig. 3. ...", "Table 2 Recommended doses": a label and a number, then a
#: separator or a word that does not start in lower case. "Table 2 brings the doses together
#: ..." is a sentence about the table, not its caption.
CAPTION = re.compile(
    r"^\s*(?i:table|tab\.|figure|fig\.|chart|exhibit|listing|तालिका|सारणी)\s*[\dIVXivx]+[A-Za-z]?"
    r"(\s*[:.\-–]|\s*$|\s+(?![a-z]))"
)


def caption_of(text: str) -> bool:
    return bool(CAPTION.match(text))


#: A statement title or unit line printed right above a table: "Consolidated Statements of
#: Cash Flows", "(In thousands)", "(Unaudited; Dollars in Millions)", "$ in millions",
#: "52 Weeks Ended", "Three Months Ended June 30". It names the table or the unit of its
#: numbers; as a heading it would split the table from its name and its unit.
TABLE_TITLE = re.compile(
    r"(?i:\b(?:in|amounts in|dollars in|\$ in|€ in)\s+(?:thousands|millions|billions)\b"
    r"|\bunaudited\b"
    r"|\b(?:statements?|schedules?)\s+of\b"
    r"|\bbalance\s+sheets?\b"
    r"|\b(?:weeks|months|quarters?|years?)\s+ended\b)"
)

#: A title or unit line above a table is at most this long (characters); longer is prose.
TABLE_TITLE_MAX_CHARS = 200


def table_title_of(text: str) -> bool:
    """Whether a short block printed right above a table is its title or unit line
    (`TABLE_TITLE`), so it becomes the table's caption and never a heading."""
    return len(text) <= TABLE_TITLE_MAX_CHARS and bool(TABLE_TITLE.search(text))


#: The name of a financial statement ("Consolidated Statements of Cash Flows", "Balance Sheet"),
#: the part of `TABLE_TITLE` that names what the table is rather than its unit or period.
STATEMENT_NAME = re.compile(r"(?i:\b(?:statements?|schedules?)\s+of\b|\bbalance\s+sheets?\b)")


def names_statement(text: str) -> bool:
    """Whether a table title names a statement (`STATEMENT_NAME`), not only a unit or a period."""
    return bool(STATEMENT_NAME.search(text))
