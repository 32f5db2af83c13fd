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
