"""Conservation: every character of a page's text layer reaches one element, or a record of why not.

The parser counts, per page, what the text layer holds (`PageLayout.text_chars`, taken in
`layout.chars_to_layout` before anything is filtered), what it left out on purpose
(`PageLayout.dropped`: off-page text, margin line numbers, overdrawn runs; later garbage
and OCR'd pages) and what the page's elements hold. The difference is `PageInfo.lost_chars`:
text that vanished without a reason, which `pages_to_loss_warnings` turns into a document
warning naming the page and the count.

What is counted, and why a count rather than a multiset of characters: characters that are
not whitespace, after the text layer's own normalisation (`chars.normalize_text`: NFKC, so
"ﬁ" counts as the two letters every element holds), hyphens excluded. Spaces are a layout
decision (word gaps, line joins), not text; a hyphen removed where a wrapped word is rejoined
is a spelling decision, measured by `benchmarks/text_fidelity.py`'s hyphen bucket. A count is
one pass over strings the parser already holds (about 1% of parse time); a multiset would also
catch a character swapped for another, which no pass here does. Counted sides:

- text layer: every segment `chars_to_segments` made of the page (rotated ones included);
- elements: the page's elements as `blocks_to_elements` made them (before OCR pages are spliced
  in and before tables and paragraphs continued across a page break are merged, which only
  move text between pages, but for a repeated table header, which `pages_with_drops` then
  moves to the page's dropped text): texts, table cells (not `text`, whose " | " is ours, nor the
  `caption` copy), and a list marker kept in `data["marker"]` when the text leaves it out
  (`_marker_left_out`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ingest.contracts.elements import DroppedText, DropReason, Element, ElementType, PageInfo, TextSource
from parsers.textlayer.chars import Segment, normalize_text

#: Not counted: whitespace of any kind and the hyphens a line join may remove.
_NOT_COUNTED = re.compile(r"[\s\-\u00ad\u2010]+")

#: Characters of dropped text kept as its sample: a continued table's header or a page's margin
#: line numbers whole (a reader judges the drop by it; `benchmarks/text_fidelity.py` counts its
#: words as recorded, not lost).
SAMPLE_CHARS = 200


def text_to_char_count(text: str) -> int:
    """Counted characters of `text` (see the module docstring); ASCII skips normalisation."""
    if not text.isascii():
        text = normalize_text(text)
    return len(_NOT_COUNTED.sub("", text))


def segments_to_char_count(segments: Iterable[Segment]) -> int:
    return sum(text_to_char_count(s.text) for s in segments)


def segments_to_dropped(segments: list[Segment], reason: DropReason) -> list[DroppedText]:
    """One record for `segments` left out for `reason`; none when there are none."""
    if not segments:
        return []
    sample = " ".join(s.text for s in segments)[:SAMPLE_CHARS]
    return [DroppedText(reason=reason, chars=segments_to_char_count(segments), sample=sample)]


def element_to_char_count(element: Element) -> int:
    if element.type is ElementType.table and element.rows is not None:
        return sum(text_to_char_count(cell) for row in element.rows for cell in row)
    count = text_to_char_count(element.text)
    marker = element.data.get("marker")
    if isinstance(marker, str) and _marker_left_out(element.text, marker):
        count += text_to_char_count(marker)
    return count


def _marker_left_out(text: str, marker: str) -> bool:
    """Whether an element's `text` leaves out its list `marker`, as `structure.elements` builds
    it: a bullet glyph (no letter or digit) is taken out of the text unless it is all the text;
    an enumerator ("1.", "(iv)") stays in it as printed, unless the text does not start with it.
    Asking "does the text start with the marker?" of a bullet was wrong where the item's own
    text opens with the same glyph: a section break set as a row of asterisks ("* * *") is
    the bullet "*" and the text "* *"."""
    if any(c.isalnum() for c in marker):
        return not text.startswith(marker)
    return text != marker


def pages_to_conserved(
    pages: list[PageInfo],
    text_chars: dict[int, int],
    dropped: dict[int, list[DroppedText]],
    elements: list[Element],
    ocr_pages: set[int],
) -> list[PageInfo]:
    """New `PageInfo`s with the conservation fields set (see `PageInfo`).

    `text_chars`/`dropped`: per page number, from the page's layout; `elements`: the text-layer
    elements before OCR splicing and cross-page merges. A page sent to OCR records its whole
    text layer as dropped for `ocr` (its elements are OCR's); a page whose garbage text layer
    was emptied (OCR off) records it as `garbage`. A page that was not read is not counted."""
    held: dict[int, int] = {}
    for element in elements:
        held[element.page] = held.get(element.page, 0) + element_to_char_count(element)
    result = []
    for page in pages:
        number = page.page_no
        if page.error is not None and number not in text_chars:
            result.append(page.model_copy())
            continue
        total = text_chars.get(number, 0)
        drops = list(dropped.get(number, []))
        inside = held.get(number, 0)
        unaccounted = total - inside - sum(d.chars for d in drops)
        if number in ocr_pages or (page.text_source.value == "empty" and (page.ocr_reason or "").startswith("glyph")):
            reason = DropReason.ocr if number in ocr_pages else DropReason.garbage
            if unaccounted > 0:
                drops.append(DroppedText(reason=reason, chars=unaccounted))
            unaccounted = total - inside - sum(d.chars for d in drops)
        result.append(
            page.model_copy(
                update={"text_chars": total, "element_chars": inside, "dropped": drops, "lost_chars": unaccounted}
            )
        )
    return result


def pages_with_drops(pages: list[PageInfo], dropped: dict[int, list[DroppedText]]) -> list[PageInfo]:
    """New `PageInfo`s where text that a later pass took out of the counted elements (a
    continued table's repeated header, `structure.table_continuation`) moves from
    `element_chars` to `dropped`: `lost_chars` is unchanged, the elements' total matches the
    final elements again. Pages not in `dropped`, not counted, or OCR'd (whose counted elements
    are none: the text layer is dropped as `ocr`) are returned as they are."""
    result = []
    for page in pages:
        drops = dropped.get(page.page_no)
        if not drops or page.element_chars is None or page.text_source is not TextSource.text_layer:
            result.append(page)
            continue
        moved = sum(d.chars for d in drops)
        result.append(
            page.model_copy(update={"element_chars": page.element_chars - moved, "dropped": [*page.dropped, *drops]})
        )
    return result


def pages_to_loss_warnings(pages: list[PageInfo]) -> list[str]:
    """One warning per page whose text layer lost characters without a recorded reason."""
    return [
        f"page {page.page_no}: {page.lost_chars} of {page.text_chars} text-layer characters reached no element"
        for page in pages
        if page.lost_chars and page.lost_chars > 0
    ]
