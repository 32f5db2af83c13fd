"""Tesseract's word table -> typed elements. Pure functions: testable without Tesseract.

Input is pytesseract's `image_to_data(..., output_type=DICT)`: one row per page, block,
paragraph, line and word, with pixel boxes and a confidence (-1 for non-words). The
passes, in order:

1. `data_to_words`, `words_to_lines` (parsers/ocr/words.py) - the recognised words and
   Tesseract's lines, each cut into cells at wide gaps or at a rule read as '|'.
2. `lines_to_tables` (parsers/ocr/tables.py) - runs of at least two consecutive rows of
   aligned cells, rebuilt across Tesseract's blocks, become tables.
3. `furniture_type` - a lone line in the top or bottom margin band: header, footer or
   page number.
4. `paragraph_to_elements` - the other lines, paragraph by Tesseract paragraph, split
   into titles (a line whose size - the geometric mean of its word height and its
   advance per character, relative to the page's body text - and other evidence make a
   heading by `parsers.structure.headings.measured_heading_level`, the one heading
   decider), list items (a bullet or a
   number such as `1.`, `(a)`, `iv)`, `१.` starts one) and paragraphs (lines joined
   with a space; a word hyphenated across a line end is rejoined; a "Label: value"
   line after a short line starts a new paragraph).
5. `elements_with_figures` (parsers/ocr/figures.py) - Tesseract's blocks without words that
   are figure-sized become `figure` elements holding the short labels read inside them and
   a "Figure N" caption beside them.

Units: everything here is in image pixels until `tesseract_data_to_elements` scales
the boxes to PDF points (`scale` = 72 / dpi). Confidence is Tesseract's 0-100 word
confidence, averaged over an element's words.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from typing import Any

from ingest.contracts.elements import Element, ElementType, TextSource, table_rows_to_text
from parsers.ocr.figures import data_to_picture_boxes, elements_with_figures
from parsers.ocr.tables import Table, lines_to_tables
from parsers.ocr.words import BodyText, Line, Word, body_text, data_to_words, join_lines, words_to_lines
from parsers.structure.headings import MEASURED_BOLD_LEVEL, heading_shape_ok, measured_heading_level

# Heading levels come from `parsers.structure.headings.measured_heading_level` (one decider
# for text-layer and OCR pages); this module measures the evidence (`line_heading_level`).
TITLE_MAX_LINES = 3
TITLE_MAX_SENTENCE_WORDS = 6  # big text ending in '.' or '।' with more words is a sentence
SENTENCE_ENDS = (".", "।", "॥", "?", "!")

#: Characters that only ever mean "bullet" as a line's first word.
BULLETS = frozenset("•●○◦▪■□◆◇♦➢➤►▶‣⁃∙·-–—*")
#: Glyphs Tesseract reads a small round bullet as; accepted only when the mark is small.
BULLET_LOOKALIKES = frozenset("¢«»°©®eo+=»•")
_ITEM = r"([0-9०-९]{1,3}|[a-zA-Z]|[ivxlcIVXLC]{1,5}|[क-ह])"
# '1.' '1)' 'a.' '(a)' 'iv)' '१.' '(क)' '2.1'; OCR reads '(' as '{' or '[' on poor scans.
_NUMBERING = re.compile(rf"^([({{\[]?{_ITEM}[.)}}\]]|[({{\[]{_ITEM}[)}}\]]|[0-9]{{1,2}}(\.[0-9]{{1,2}})+\.?)$")
_PAGE_NUMBER = re.compile(
    r"^[-–(\s]*((page|p\.|पृष्ठ|पान)\s*)?[0-9०-९]{1,4}(\s*(of|/|का|पैकी)\s*[0-9०-९]{1,4})?[-–)\s]*$", re.IGNORECASE
)
#: Page furniture lives in the top and bottom `MARGIN_BAND` of the page, set smaller than body text.
MARGIN_BAND = 0.08
FURNITURE_MAX_SIZE = 0.92
#: "Dose: 0.4 g ..." - a line that starts with a short label and a colon.
_LABEL = re.compile(r"^[^\s:]+(?: [^\s:]+){0,3}:(\s|$)")


def list_marker(line: Line) -> str | None:
    """The line's number ('1.', '(a)') if it starts a numbered item, '•' for any bullet, else None.

    A bullet is a first word of one or two bullet glyphs, or of glyphs Tesseract reads a
    small round bullet as ('¢', '«', '*«') when that mark is small beside the line's text.
    """
    first = line.words[0]
    if _NUMBERING.match(first.text):
        return first.text
    if len(line.words) < 2 or len(first.text) > 2:
        return None
    if all(c in BULLETS for c in first.text):
        return "•"
    if all(c in BULLETS or c in BULLET_LOOKALIKES for c in first.text) and first.height <= 0.6 * line.height:
        return "•"
    return None


def _element(kind: ElementType, words: list[Word], text: str, page_no: int, scale: float, **extra: Any) -> Element:
    bbox = (
        round(min(w.left for w in words) * scale, 2),
        round(min(w.top for w in words) * scale, 2),
        round(max(w.right for w in words) * scale, 2),
        round(max(w.bottom for w in words) * scale, 2),
    )
    confidence = round(statistics.fmean(w.conf for w in words), 1)
    return Element(
        type=kind,
        text=text,
        page=page_no,
        bbox=bbox,
        source=TextSource.ocr,
        confidence=min(max(confidence, 0.0), 100.0),
        **extra,
    )


def line_heading_level(line: Line, body: BodyText) -> int | None:
    """The line's heading level from its measured evidence (size relative to the body text,
    bold, words, confidence, letters, orientation), decided by `measured_heading_level`."""
    chars = [c for c in line.text if not c.isspace()]
    letters = sum(1 for c in chars if unicodedata.category(c)[0] in "LM")
    return measured_heading_level(
        size_ratio=body.size(line),
        bold=body.is_bold(line),
        words=len(line.words),
        confidence=statistics.fmean(w.conf for w in line.words),
        letter_share=letters / max(len(chars), 1),
        horizontal=line.right - line.left >= line.bottom - line.top,
    )


def paragraph_to_elements(
    lines: list[Line], body: BodyText, page_no: int, scale: float, text_box: tuple[float, float] | None = None
) -> list[Element]:
    """One Tesseract paragraph's lines -> titles, list items and paragraphs, in order.

    `text_box` is the (left, right) pixel extent of the page's text, to tell a line that
    ended short (a paragraph's last line) from a full one; default: this paragraph's.
    """
    elements: list[Element] = []
    group: list[Line] = []
    kind: str | None = None  # "title", "item" or "para"

    def flush() -> None:
        nonlocal group
        if not group:
            return
        words = [w for line in group for w in line.words]
        text = join_lines([ln.text for ln in group])
        group_kind = kind
        if group_kind == "title" and (
            text.endswith(SENTENCE_ENDS) and len(text.split()) > TITLE_MAX_SENTENCE_WORDS or not heading_shape_ok(text)
        ):
            # large print, but a sentence (a pull quote, an intro) or a key figure with its label
            # ("New jobs created 2,32,822"): the text layer's heading-shape rules apply here too
            group_kind = "para"
        if group_kind == "title":
            level = min(line_heading_level(line, body) or MEASURED_BOLD_LEVEL for line in group)
            elements.append(_element(ElementType.title, words, text, page_no, scale, heading_level=level))
        elif group_kind == "item":
            # A bullet glyph is dropped from the text (the type says "list item"; OCR reads
            # bullets as '¢' or '«'); a number is kept, it carries meaning ("step 2").
            marker = list_marker(group[0])
            if marker == "•":
                words = words[1:]
                text = join_lines([" ".join(w.text for w in group[0].words[1:])] + [ln.text for ln in group[1:]])
            elements.append(
                _element(ElementType.list_item, words, text, page_no, scale, list_level=0, data={"marker": marker})
            )
        else:
            elements.append(_element(ElementType.paragraph, words, text, page_no, scale))
        group = []

    left, right = text_box or (min(line.left for line in lines), max(line.right for line in lines))
    short_before = right - 0.15 * (right - left)
    for line in lines:
        is_title = line_heading_level(line, body) is not None
        # A marker starts an item at a paragraph's start, after a line that ended short or
        # inside a list; inside running prose "2.5 kg per hectare" is a wrapped line.
        after_short = bool(group) and group[-1].right < short_before
        if is_title:
            line_kind = "title"
        elif list_marker(line) is not None and (not group or after_short or kind == "item"):
            line_kind = "item_start"
        else:
            line_kind = "item" if kind == "item" else "para"
        # Tesseract sometimes keeps "Dose: ..." and "Waiting period: ..." in one paragraph;
        # a label line after a line that ended short starts a new one.
        label_after_short = line_kind == "para" and after_short and _LABEL.match(line.text) is not None
        if (
            line_kind == "item_start"
            or line_kind != kind
            or label_after_short
            or (kind == "title" and len(group) >= TITLE_MAX_LINES)
        ):
            flush()
        kind = "item" if line_kind == "item_start" else line_kind
        group.append(line)
    flush()
    return elements


def join_continuations(paragraphs: list[list[Line]], body: BodyText) -> list[list[Line]]:
    """Tesseract's paragraphs, with a paragraph that merely continues the one above joined
    to it. It continues it when it starts right below (gap <= one body text height),
    without a list marker, and either is the hanging-indented rest of a list item (indented
    past the item's marker) or starts with a lowercase letter at the same left edge after
    a line that does not end a sentence ('… Akola and' / 'and Buldhana districts.')."""
    out: list[list[Line]] = []
    for lines in paragraphs:
        if out:
            previous, first = out[-1], lines[0]
            close_below = 0 <= first.top - previous[-1].bottom <= 1.0 * body.height
            item_starts = [line for line in previous if list_marker(line) is not None]
            hanging = bool(item_starts) and first.left >= item_starts[-1].left + 0.8 * body.height
            lowercase = (
                first.text[:1].islower()
                and abs(first.left - previous[-1].left) <= body.height
                and not previous[-1].text.endswith(SENTENCE_ENDS)
            )
            if close_below and list_marker(first) is None and (hanging or lowercase):
                previous.extend(lines)
                continue
        out.append(list(lines))
    return out


def page_size(data: dict[str, list[Any]]) -> tuple[float, float] | None:
    """The image's (width, height) in pixels from Tesseract's page row (level 1), if present."""
    for i, level in enumerate(data.get("level", [])):
        if int(level) == 1:
            return float(data["width"][i]), float(data["height"][i])
    return None


def furniture_type(lines: list[Line], body: BodyText, page_height: float | None) -> ElementType | None:
    """header / footer / page_number for a one-line paragraph in the top or bottom margin
    band: a page number ('3', 'Page 2 of 3', 'पृष्ठ 1') at any size; at the top, other
    text only when set smaller than body text (running headers are small; a title may
    sit high); at the bottom, any text (an archive's stamp, a footer). None for body text."""
    if not page_height or len(lines) != 1:
        return None
    line = lines[0]
    at_top = line.bottom <= MARGIN_BAND * page_height
    at_bottom = line.top >= (1 - MARGIN_BAND) * page_height
    if not (at_top or at_bottom):
        return None
    if _PAGE_NUMBER.match(line.text):
        return ElementType.page_number
    if at_bottom:
        return ElementType.footer
    return ElementType.header if body.size(line) <= FURNITURE_MAX_SIZE else None


def tesseract_data_to_elements(
    data: dict[str, list[Any]], page_no: int, scale: float
) -> tuple[list[Element], float | None]:
    """Elements of one page in reading order, and the page's mean word confidence (None: no words).

    `scale` converts pixels to PDF points (72 / dpi); boxes are top-left origin.
    """
    words = data_to_words(data)
    if not words:
        return [], None
    lines = words_to_lines(words)
    body = body_text(lines)
    page_height = (page_size(data) or (0.0, 0.0))[1]
    text_box = (min(line.left for line in lines), max(line.right for line in lines))
    tables = lines_to_tables(lines, body.height)
    in_table = {id(line) for table in tables for row in table.rows for line in row}

    items: list[tuple[int, Any]] = [(table.order, table) for table in tables]
    paragraphs: dict[tuple[int, int], list[Line]] = {}
    for line in lines:
        if id(line) not in in_table:
            paragraphs.setdefault((line.block, line.par), []).append(line)
    groups = join_continuations(list(paragraphs.values()), body)
    items += [(par_lines[0].order, par_lines) for par_lines in groups]
    items.sort(key=lambda item: item[0])

    elements: list[Element] = []
    for _, item in items:
        if isinstance(item, Table):
            table_words = [w for row in item.rows for line in row for w in line.words]
            header_rows = item.header_rows or int(all(body.is_bold(line) for line in item.rows[0]))
            elements.append(
                _element(
                    ElementType.table,
                    table_words,
                    table_rows_to_text(item.cells),
                    page_no,
                    scale,
                    rows=item.cells,
                    header_rows=header_rows,
                )
            )
        elif (furniture := furniture_type(item, body, page_height)) is not None:
            line = item[0]
            elements.append(_element(furniture, line.words, line.text, page_no, scale))
        else:
            elements.extend(paragraph_to_elements(item, body, page_no, scale, text_box))
    pictures = data_to_picture_boxes(data, scale)
    elements = elements_with_figures(join_split_titles(elements), pictures, page_no)
    return elements, round(statistics.fmean(w.conf for w in words), 1)


def join_split_titles(elements: list[Element]) -> list[Element]:
    """One title from consecutive same-level titles set right below each other (Tesseract
    often makes a two-line title two paragraphs): the gap is under the lower line's height."""
    out: list[Element] = []
    for element in elements:
        previous = out[-1] if out else None
        if (
            previous is not None
            and element.type is ElementType.title
            and previous.type is ElementType.title
            and element.heading_level == previous.heading_level
            and 0 <= element.bbox[1] - previous.bbox[3] < element.bbox[3] - element.bbox[1]
            and element.bbox[0] < previous.bbox[2]
            and previous.bbox[0] < element.bbox[2]
        ):
            bbox = (
                min(previous.bbox[0], element.bbox[0]),
                previous.bbox[1],
                max(previous.bbox[2], element.bbox[2]),
                element.bbox[3],
            )
            confidence = (
                None
                if previous.confidence is None or element.confidence is None
                else round((previous.confidence + element.confidence) / 2, 1)
            )
            out[-1] = previous.model_copy(
                update={"text": join_lines([previous.text, element.text]), "bbox": bbox, "confidence": confidence}
            )
            continue
        out.append(element)
    return out
