"""Paragraphs continued across a page break, merged into one paragraph element.

A paragraph broken by a page break reads as two fragments ("...classification [11," on page 1,
"37], layout detection..." on page 2, in a two-column paper): a chunk cut between them holds
half a sentence, and a search for the whole phrase finds neither. The rule is narrow, so that a
paragraph that merely ends a page is never glued to an unrelated one:

- the last body element of page N (furniture, margin text and a bare folio skipped: a page
  number the furniture pass did not type, a "3" under a filing's last paragraph, is no text a
  paragraph goes on in) is a paragraph that does not end a sentence;
- the first body element of page N + 1 is a paragraph that starts in lower case, with a digit
  or with a closing bracket or punctuation (a new paragraph starts with a capital);
- they look set in the same type size (`_same_type_size`: a footnote or a caption in smaller
  type is not the continuation of body text).

The merged element keeps page N's box, gets `page_end = N + 1` and `data["parts"]` (page and
box of each part), as `table_continuation` does for tables. The texts are joined by the same
rule as wrapped lines (`text_joins.join_wrapped_lines`), so a word hyphenated across the page
break is rejoined like one hyphenated across a line.
"""

from __future__ import annotations

import re

from ingest.contracts.elements import Element, ElementType
from parsers.textlayer.text_joins import FOOTNOTE_MARKS, join_wrapped_lines

#: Characters that end a sentence (Latin, Devanagari danda, CJK full stop), possibly followed by
#: a closing quote or bracket or footnote marks ("... by reference).**": an exhibit index entry
#: at a page's foot is no paragraph that the next page's "10a(vii) Form of ..." goes on).
SENTENCE_ENDS = (".", "!", "?", ":", "।", "॥", "。", "！", "？")
_CLOSERS = "\"'”’)]" + FOOTNOTE_MARKS
_CONTINUATION_STARTS = ")]},;.:%"


def ends_sentence(text: str) -> bool:
    return text.rstrip().rstrip(_CLOSERS).endswith(SENTENCE_ENDS)


def starts_continuation(text: str) -> bool:
    first = text.lstrip()[:1]
    return bool(first) and (first.islower() or first.isdigit() or first in _CONTINUATION_STARTS)


def merge_continued_paragraphs(elements: list[Element]) -> list[Element]:
    """Elements with each paragraph continued across a page break merged (see the module docstring)."""
    merged: list[Element] = []
    last_index = -1  # index in `merged` of the last body element
    for element in elements:
        if element.is_furniture or element.data.get("role") == "margin" or _is_folio(element.text):
            merged.append(element)
            continue
        previous = merged[last_index] if last_index >= 0 else None
        first_on_page = previous is not None and element.page == previous.last_page + 1
        if (
            first_on_page
            and previous.type is ElementType.paragraph
            and element.type is ElementType.paragraph
            and not previous.data.get("rotated")
            and not element.data.get("rotated")
            and not ends_sentence(previous.text)
            and starts_continuation(element.text)
            and _same_type_size(previous, element)
        ):
            parts = previous.data.get("parts") or [{"page": previous.page, "bbox": list(previous.bbox)}]
            merged[last_index] = previous.model_copy(
                update={
                    "text": join_wrapped_lines([previous.text, element.text]),
                    "page_end": element.page,
                    "data": {**previous.data, "parts": [*parts, {"page": element.page, "bbox": list(element.bbox)}]},
                }
            )
            continue
        merged.append(element)
        last_index = len(merged) - 1
    return merged


def _is_folio(text: str) -> bool:
    """A bare page number: up to 4 digits, or a lower-case roman numeral, alone."""
    text = text.strip()
    return (text.isdigit() and len(text) <= 4) or bool(_ROMAN.fullmatch(text))


_ROMAN = re.compile(r"[ivxl]{1,7}")


def _same_type_size(first: Element, second: Element) -> bool:
    """The two parts look set in the same type size: their ink densities (characters per square
    point of their boxes, which go with 1 / size²) differ by less than `DENSITY_RATIO`. The
    elements keep no font size, and a part's short last line lowers its density, hence the
    loose limit: it tells body text from a footnote or a caption two sizes smaller."""
    first_density, second_density = _density(first), _density(second)
    if not first_density or not second_density:
        return True
    return max(first_density, second_density) / min(first_density, second_density) < DENSITY_RATIO


#: Largest ratio of two parts' densities (about 1.4x in type size).
DENSITY_RATIO = 2.0


def _density(element: Element) -> float | None:
    x0, top, x1, bottom = element.bbox
    area = (x1 - x0) * (bottom - top)
    return len(element.text) / area if area > 0 else None
