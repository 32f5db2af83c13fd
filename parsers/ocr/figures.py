"""Figures on OCR'd pages, from the picture regions Tesseract's page layout already reports.

Tesseract's word table (`image_to_data`) holds a row for every block its layout analysis found,
text or not. A block with no word in it is a non-text region: a photo, a drawing, a chart; or a
rule, a smudge, a stamp. Those at least `MIN_FIGURE_SIDE` points on both sides and at most
`MAX_FIGURE_PAGE_SHARE` of the page are picture regions (rules are thin; a page-sized block is
the scan's background). Cost: nothing beyond the word table the page already has.

A picture region becomes a `figure` element as on text pages (`textlayer.figures`): the short
elements read inside it are its labels (each at most `MAX_LABEL_WORDS` words, together at most
`MAX_FIGURE_WORDS`, else they stay in the body) and a "Figure N ..." paragraph directly above
or below (within `CAPTION_GAP`) is its caption (retyped `caption`, and stored on the figure). A
region with neither labels nor a caption (a logo, a photo) gives no element.
"""

from __future__ import annotations

from typing import Any

from ingest.contracts.elements import Element, ElementType, TextSource
from parsers.ocr.words import BLOCK_LEVEL, PAGE_LEVEL, WORD_LEVEL
from parsers.structure.captions import caption_of
from parsers.textlayer.drawings import MAX_FIGURE_PAGE_SHARE, MIN_FIGURE_SIDE
from parsers.textlayer.figures import MAX_FIGURE_WORDS, MAX_LABEL_WORDS

Box = tuple[float, float, float, float]
#: A caption starts or ends at most this far (points) from its figure's box.
CAPTION_GAP = 24.0
#: Points a caption may overlap its figure's box and still lie beside it: pixel boxes of a scan are
#: rounded and a caption's ascenders reach into the picture's last rows.
CAPTION_OVERLAP = 2.0
_BODY_TYPES = (ElementType.paragraph, ElementType.title, ElementType.list_item)


def data_to_picture_boxes(data: dict[str, list[Any]], scale: float) -> list[Box]:
    """Boxes (points, top-left origin: pixels x `scale`) of Tesseract's blocks that hold no word
    and are figure-sized (see the module docstring)."""
    levels = [int(level) for level in data.get("level", [])]
    page_area = 0.0
    worded: set[int] = set()
    blocks: dict[int, Box] = {}
    for i, level in enumerate(levels):
        left, top = float(data["left"][i]) * scale, float(data["top"][i]) * scale
        right, bottom = left + float(data["width"][i]) * scale, top + float(data["height"][i]) * scale
        if level == PAGE_LEVEL:
            page_area = (right - left) * (bottom - top)
        elif level == BLOCK_LEVEL:
            blocks[int(data["block_num"][i])] = (left, top, right, bottom)
        elif level == WORD_LEVEL and str(data["text"][i]).strip():
            worded.add(int(data["block_num"][i]))
    return [
        box
        for number, box in blocks.items()
        if number not in worded
        and box[2] - box[0] >= MIN_FIGURE_SIDE
        and box[3] - box[1] >= MIN_FIGURE_SIDE
        and (not page_area or (box[2] - box[0]) * (box[3] - box[1]) <= MAX_FIGURE_PAGE_SHARE * page_area)
    ]


def _inside(element: Element, box: Box) -> bool:
    x0, top, x1, bottom = element.bbox
    cx, cy = (x0 + x1) / 2, (top + bottom) / 2
    return box[0] - 1 <= cx <= box[2] + 1 and box[1] - 1 <= cy <= box[3] + 1


def _caption_index(elements: list[Element], box: Box, taken: set[int]) -> int | None:
    """Index of a caption paragraph directly below (preferred) or above `box`, across from it."""
    best: tuple[float, int] | None = None
    for index, element in enumerate(elements):
        if index in taken or element.type not in _BODY_TYPES or not element.bbox or not caption_of(element.text):
            continue
        x0, top, x1, bottom = element.bbox
        if x1 < box[0] or x0 > box[2]:
            continue
        gap = top - box[3] if top >= box[3] - CAPTION_OVERLAP else box[1] - bottom
        if -CAPTION_OVERLAP <= gap <= CAPTION_GAP and (best is None or gap < best[0]):
            best = (gap, index)
    return best[1] if best else None


def elements_with_figures(elements: list[Element], pictures: list[Box], page_no: int) -> list[Element]:
    """`elements` of one OCR'd page with a `figure` element for each picture region that has
    labels or a caption: labels moved into the figure's text, the caption retyped `caption`.
    Returns a new list; the input elements are not changed."""
    out = list(elements)
    taken: set[int] = set()
    figures: list[tuple[int, Element]] = []  # (index to insert before, figure)
    for box in pictures:
        inner = [
            i
            for i, e in enumerate(out)
            if i not in taken and e.type in _BODY_TYPES and e.bbox and _inside(e, box) and e.text.strip()
        ]
        words = [len(out[i].text.split()) for i in inner]
        labels = inner if inner and max(words) <= MAX_LABEL_WORDS and sum(words) <= MAX_FIGURE_WORDS else []
        caption = _caption_index(out, box, taken | set(inner))
        if not labels and caption is None:
            continue
        taken.update(labels)
        confidences = [out[i].confidence for i in labels if out[i].confidence is not None]
        figure = Element(
            type=ElementType.figure,
            text="\n".join(out[i].text.strip() for i in labels),
            page=page_no,
            bbox=tuple(round(v, 2) for v in box),
            source=TextSource.ocr,
            confidence=round(sum(confidences) / len(confidences), 1) if confidences else None,
            caption=out[caption].text.strip() if caption is not None else None,
        )
        if caption is not None:
            out[caption] = out[caption].model_copy(update={"type": ElementType.caption, "heading_level": None})
        above = caption is not None and (out[caption].bbox[1] < box[1])
        anchor = min(labels) if labels else (caption + 1 if above else caption)
        figures.append((anchor, figure))
    if not figures:
        return out
    result: list[Element] = []
    for index in range(len(out) + 1):
        result.extend(figure for anchor, figure in figures if anchor == index)
        if index < len(out) and index not in taken:
            result.append(out[index])
    return result
