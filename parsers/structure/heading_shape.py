"""Could a text be a heading at all, whatever its type? The shape rules: a heading names a
topic in a few words; it is not a sentence, a figure, a reported result, contact details, a
note on a table, a row of column labels or a clause of a legal list (`heading_shape_ok`), its
display type is not a key figure (`display_is_figure`), and it is not running prose
(`is_prose`). Pure functions of a text or a block, shared by the text layer and OCR."""

from __future__ import annotations

import re

from parsers.structure.captions import caption_of
from parsers.structure.heading_levels import NUMBERED, numbering_depth
from parsers.textlayer.blocks import Block

#: An amount written with thousands separators: "1,186", "2,32,822" (Indian grouping),
#: "12 345" with a no-break or thin space. Years ("2021"), section numbers ("2.1") and
#: small counts ("Route 105") have none.
GROUPED_NUMBER = re.compile(r"(?<![\d.,])\d{1,3}(?:[,\u00a0\u202f\u2009]\d{2,3})*[,\u00a0\u202f\u2009]\d{3}(?!\d)")
#: Words above which a block ending in "." is a sentence, not a heading.
SENTENCE_WORDS = 6
#: A reported figure: an amount in a currency ("$1.33", "€ 2,5"), a percentage ("24.9%",
#: "10 %") or a decimal number ("2.35"). Years and section numbers ("2.1 Scope" opens with
#: one, but a heading holds at most one) are not counted twice.
FIGURE = re.compile(r"[$€£¥₹]\s?\d[\d,.]*|\d[\d,.]*\s?%|(?<![\d.])\d+\.\d+(?![\d.])")
#: A block with more words than this and `FIGURE_SENTENCE_FIGURES` figures reports results.
FIGURE_SENTENCE_WORDS = 8
FIGURE_SENTENCE_FIGURES = 2
#: Contact details: an e-mail address or a telephone number ("(732) 524-0400", "+1 732 524 0400").
CONTACT = re.compile(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    r"|(?<![\w.])(?:\+\d{1,3}[\s.-]?)?\(?\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}(?!\d)"
)
#: A note label: "Note:", "Notes:", "NB:" open a remark on a table or the text above.
NOTE_LABEL = re.compile(r"^\s*(?:notes?|n\.?\s?b\.?)\s*:", re.IGNORECASE)


#: Two years side by side ("2022 2021"): the column labels of a table of figures ("Fiscal Year
#: 2020 2019 Change", "Revenue by Segment 2022 2021"), never a section name ("Comparison of
#: 2022 to 2021" has a word between them).
YEAR_COLUMNS = re.compile(r"\b(?:19|20)\d\d\s+(?:19|20)\d\d\b")
#: A date ("May 31, 2020", "31 December 2022").
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
DATE = re.compile(
    rf"(?i:\b(?:{_MONTHS})\s+\d{{1,2}},?\s+(?:19|20)\d\d\b|\b\d{{1,2}}\s+(?:{_MONTHS})\s+(?:19|20)\d\d\b)"
)
#: A date line keeps fewer than this many words besides its dates: "May 31, 2020 Pretax" heads a
#: column, "Minneapolis, Minnesota July 2, 2020" dates a signed report; neither names a section.
DATE_LINE_MAX_WORDS = 3
#: Two dates side by side ("May 31, 2020 May 26, 2019"): the column heads of a balance sheet.
DATE_COLUMNS = re.compile(rf"(?:{DATE.pattern})\s+(?:{DATE.pattern})")
#: An enumerator in brackets opening a clause that runs on in lower case: "(ii) relates to the
#: provision of ...", "(a) equals the aggregate amount ...": an item of a legal list, not a heading.
_BRACKETED_CLAUSE = re.compile(r"^\s*\(\w{1,4}\)\s+[a-z]")


def _repeated_labels(text: str) -> bool:
    """The same words said twice or more in a row ("(a) Taxes (a) Taxes", "Earnings Income
    Earnings Income ..."): one column label per column of a table read as a line."""
    words = text.split()
    for unit in range(1, len(words) // 2 + 1):
        if len(words) % unit == 0 and words == words[:unit] * (len(words) // unit):
            return True
    return False


def _is_date_line(text: str) -> bool:
    rest = DATE.sub(" ", text)
    return rest != text and len([w for w in rest.split() if any(c.isalpha() for c in w)]) < DATE_LINE_MAX_WORDS


def _mostly_non_letters(text: str) -> bool:
    visible = [c for c in text if not c.isspace()]
    return bool(visible) and sum(c.isalpha() for c in visible) < 0.5 * len(visible)


def heading_shape_ok(text: str) -> bool:
    """Could this text be a heading at all, whatever its type? A heading names a topic:

    - it is short (<= 200 characters) and has letters;
    - it is not a caption ("Table 3: ...") and does not end in "," or ";" (a clause);
    - it is not a sentence: ending in "." with more than `SENTENCE_WORDS` words;
    - it is not a figure: letters are at least half its visible characters ("2.5 %",
      "`17,81,841 crore" fail), and it holds no amount with thousands separators
      (`GROUPED_NUMBER`): "New jobs created 2,32,822" is a key figure with its label, a
      bold "Total 7,92,756" a data line; a heading carries years and numbering, not data;
    - it is not a reported result: more than `FIGURE_SENTENCE_WORDS` words holding at least
      `FIGURE_SENTENCE_FIGURES` figures (`FIGURE`: amounts, percentages, decimals). An earnings
      release sets its highlights in bold ("2022 Fourth-Quarter earnings per share (EPS) of
      $1.33 decreasing 24.9% ..."): emphasised statements, not section names;
    - it holds no contact details (`CONTACT`: an e-mail address, a telephone number): "Tesia
      Williams media-relations@its.jnj.com" is an entry of a contact block, and as a heading
      it headed every later page of the release;
    - it is not a note (`NOTE_LABEL`: "Note: Percentages are based on ..."): a note remarks
      on the table above it and opens no section. "Note 4. Leases" (numbered) stays allowed;
    - it is not a row of column labels: two years side by side (`YEAR_COLUMNS`: "Fiscal Year
      2020 2019 Change"), the same labels repeated (`_repeated_labels`: "(a) Taxes (a) Taxes"),
      two dates side by side (`DATE_COLUMNS`: "In Millions May 31, 2020 May 26, 2019 Other
      noncurrent liabilities:", a balance-sheet note's header row that headed the glossary
      three pages on), or a date with fewer than
      `DATE_LINE_MAX_WORDS` other words (`_is_date_line`: "May 31, 2020 Pretax"; also the
      place and date under a signed report, "Minneapolis, Minnesota July 2, 2020"). As
      headings these stayed open over the pages after a table in 10-K filings;
    - it is not a bracketed clause running on in lower case (`_BRACKETED_CLAUSE`: "(ii) relates
      to the provision of ...").
    """
    text = text.strip()
    if not text or len(text) > 200 or not any(c.isalpha() for c in text):
        return False
    if caption_of(text) or text.endswith((",", ";")):
        return False
    if text.endswith(".") and len(text.split()) > SENTENCE_WORDS:
        return False
    if _mostly_non_letters(text) or GROUPED_NUMBER.search(text):
        return False
    if len(text.split()) > FIGURE_SENTENCE_WORDS and len(FIGURE.findall(text)) >= FIGURE_SENTENCE_FIGURES:
        return False
    if YEAR_COLUMNS.search(text) or DATE_COLUMNS.search(text) or _repeated_labels(text) or _is_date_line(text):
        return False
    if _BRACKETED_CLAUSE.match(text):
        return False
    return not CONTACT.search(text) and not NOTE_LABEL.match(text)


def display_is_figure(block: Block) -> bool:
    """True when the block's largest type (within 0.5 pt of its largest segment) holds
    digits and is more digits and signs than letters: a key figure printed big beside a
    small label ("New jobs created" at 9 pt, "2,32,822" at 25 pt). Numbered headings
    ("Chapter" + a big "3") are exempt: section numbering is not a figure, and dot leaders
    are not counted (a contents page is not a figure)."""
    segments = [s for line in block.lines for s in line.segments if s.text.strip()]
    if not segments or numbering_depth(block.text) is not None:
        return False
    largest = max(s.size for s in segments)
    display = _LEADER.sub(" ", "".join(s.text for s in segments if s.size >= largest - 0.5))
    return any(c.isdigit() for c in display) and _mostly_non_letters(display)


#: Dot or ellipsis leaders ("MAIN GAME ........ 6"): contents entries, not figures. Left in,
#: their dots made a contents page "mostly signs", so "Table of Contents" above it was taken
#: for a key figure's label and lost its heading (a game manual's contents page).
_LEADER = re.compile(r"(?:[.·]\s?){3,}|…+")


#: A sentence end inside a text followed by more words: "filed? If yes, against whom? The friend ...".
_INNER_SENTENCE_END = re.compile(r"[?!।]\s+\S|[a-z]{2}\.\s+[A-Z]")


def is_prose(text: str) -> bool:
    """More than `SENTENCE_WORDS` words holding a sentence end followed by more words: running
    text (a form's question with its answer), never a heading. Leading numbering ("A. Children
    ...") does not count as a sentence end."""
    match = NUMBERED.match(text)
    body = text[match.end() :] if match else text
    return len(text.split()) > SENTENCE_WORDS and bool(_INNER_SENTENCE_END.search(body))


def is_numbers(text: str) -> bool:
    """Figures, not words: holds digits and is mostly digits and signs once dot leaders are
    taken out (a contents page's "MAIN GAME ........ 6" is words)."""
    text = _LEADER.sub(" ", text)
    return any(c.isdigit() for c in text) and _mostly_non_letters(text)
