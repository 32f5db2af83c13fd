"""Why a block set like a heading is still none, judged by its neighbours on the page
(`context_rejects_heading`): it continues the sentence above, answers a form's question,
labels a key figure or a column of numbers, signs the passage above, is a line of a code
listing, or labels contact details. Pure functions of (previous, block, following)."""

from __future__ import annotations

import re

from parsers.structure.heading_shape import CONTACT, display_is_figure, is_numbers
from parsers.textlayer.blocks import Block, is_monospace


def _largest_size(block: Block) -> float:
    return max((s.size for line in block.lines for s in line.segments if s.text.strip()), default=block.size)


def _gap(upper: Block, lower: Block) -> float:
    return lower.bbox[1] - upper.bbox[3]


def _across(a: Block, b: Block) -> bool:
    return a.bbox[0] < b.bbox[2] and b.bbox[0] < a.bbox[2]


def context_rejects_heading(previous: Block | None, block: Block, following: Block | None) -> str | None:
    """Why a block that is heading-styled is still not a heading, judged by its neighbours on
    the page (None: no objection). A heading opens what follows it; these do not:

    - "continuation": it starts in lower case right after a block that does not end a
      sentence ("... at the time of his" / "injuries.");
    - "form value": at most 3 words set directly under (gap < half its line height) a block
      in smaller type: the answer to a form's question ("N/A", "None" in 11 pt under 9 pt
      labels); the question and its answer stay together;
    - "figure label": directly above a key figure (`display_is_figure`) printed at least as
      large as it: "BY REVENUE" over "`7,92,756 crore" labels the figure; an 18 pt chart
      title over the chart's 8 pt "AUTRES 10%" (a report's pie chart) stays a heading;
    - "column header": directly above (< `COLUMN_HEADER_GAP` line heights), across from, a
      block of numbers ("52 Weeks Ended August 29, 2021" over "$ 192,052" in a 10-K's income
      statement): it heads a column of figures, not a section;
    - "attribution": it signs the passage directly above it: it opens with a dash ("— Mahatma
      Gandhi"), or it is a short line set smaller than that passage and closer to it than one
      of the passage's lines (an annual report's 8.5 pt bold "Shri Dhirubhai H. Ambani" under
      its founder's 12 pt quote). A heading stands apart from what comes before it;
    - "code": set in typewriter type (every line monospaced, `blocks.is_monospace`) and either
      shaped like code (`_CODE_MARK`: an operator, a bracket, a quoted literal, an identifier
      joined by "_") or next to another monospaced block: a line of a code listing. A manual
      sets its examples (SQL statements, commands) in a monospaced face, often larger or bolder
      than its prose, one statement per line with space between; they state what to type, they
      open no section;
    - "contact label": directly above (< `COLUMN_HEADER_GAP` line heights), across from, a block
      holding contact details (`CONTACT`): "Investor Contacts:" over "Jessica Moore
      RA-JJCUS-InvestorRel@ITS.JNJ.com" labels whom to call; as a heading it stayed open over
      the 17 pages of tables after it in an earnings release.
    """
    text = block.text.strip()
    height = max(block.lines[0].height, 1.0)
    if previous is not None and text[:1].islower() and not previous.text.rstrip().endswith(SENTENCE_END):
        return "continuation"
    if (
        previous is not None
        and previous.kind not in ("table", "figure")  # no type size: "Route 105" under a map's table
        and len(text.split()) <= 3
        and previous.size < block.size - 0.5
        and _gap(previous, block) < 0.5 * height
        and _across(previous, block)
    ):
        return "form value"
    if (
        following is not None
        and following.kind == "paragraph"
        and _gap(block, following) < 0.6 * height
        and _across(block, following)
        and display_is_figure(following)
        and _largest_size(following) >= block.size
    ):
        return "figure label"
    if previous is not None and _signs_passage_above(previous, block):
        return "attribution"
    if _is_code(block) and (_CODE_MARK.search(text) or _is_code(previous) or _is_code(following)):
        return "code"
    if (
        following is not None
        and following.kind == "paragraph"
        and _gap(block, following) < COLUMN_HEADER_GAP * height
        and _across(block, following)
        and is_numbers(following.text)
    ):
        return "column header"
    if (
        following is not None
        and _gap(block, following) < COLUMN_HEADER_GAP * height
        and _across(block, following)
        and CONTACT.search(following.text)
    ):
        return "contact label"
    return None


#: Code, not words: an operator or bracket ("= 1", "f(x)", "{"), a quoted literal ("'D11'"),
#: or an identifier joined by an underscore ("HR_ROWS", "SESSION_USER").
_CODE_MARK = re.compile(r"[=(){}\[\];<>]|'[^']*'|\w_\w")


def _is_code(block: Block | None) -> bool:
    """Every line of `block` set in a monospaced face (`blocks.is_monospace`)."""
    return block is not None and block.kind in ("paragraph", "list_item") and all(is_monospace(l) for l in block.lines)


#: An attribution has at most this many words ("Shri Dhirubhai H. Ambani", "— Chairman's letter, 2021").
ATTRIBUTION_MAX_WORDS = 8
_DASHES = ("—", "–", "―", "-", "~")


def _signs_passage_above(previous: Block, block: Block) -> bool:
    """`block` (short, directly below and across from a paragraph of at least 2 lines) signs that
    paragraph: it starts with a dash, or it is set smaller than the paragraph and the gap is
    less than one of the paragraph's lines."""
    text = block.text.strip()
    if previous.kind != "paragraph" or len(previous.lines) < 2 or len(text.split()) > ATTRIBUTION_MAX_WORDS:
        return False
    if not _across(previous, block) or _gap(previous, block) > max(previous.lines[-1].height, 1.0):
        return False
    dashed = text.startswith(_DASHES) and text.lstrip("".join(_DASHES) + " ")[:1].isalpha()
    return dashed or block.size < previous.size - 1.0


#: A column header sits at most this many of its line heights above the numbers it heads.
COLUMN_HEADER_GAP = 2.0


SENTENCE_END = (".", "?", "!", ":", "।", "॥")
