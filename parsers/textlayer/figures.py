"""Figures: image boxes on a page, and the short labels drawn inside them.

A figure is an image (pypdfium2 image objects, `tables.ruled.DrawingFacts.image_boxes`) large
enough to show something (`MIN_FIGURE_SIDE` on both sides) and not a page background
(`MAX_FIGURE_PAGE_SHARE` of the page). Images touching each other (a picture cut into tiles)
are one figure.

Text drawn inside a figure box is the figure's own text only when it reads as labels (axis
ticks, callouts: "Nut case", "Keyway"): every run inside is short (`MAX_LABEL_WORDS`) and all
of them together are few (`MAX_FIGURE_WORDS`). A paragraph laid over a background image (a
report cover, a banner) stays body text, and the figure then keeps no text. Either way every
character stays in exactly one element (conservation): labels go to the figure, the rest to
the body.

Dense vector drawings (charts drawn as paths) are not figures yet: only images are.
"""

from __future__ import annotations

from dataclasses import dataclass

from parsers.textlayer.chars import Segment

#: A figure is at least this many points wide and high (smaller images are icons, bullets, rules).
MIN_FIGURE_SIDE = 36.0
#: ... and covers at most this share of the page (more is a background or a scanned page).
MAX_FIGURE_PAGE_SHARE = 0.85
#: Images this close (points) are one figure (tiles of one picture).
TOUCH = 2.0
#: A label inside a figure has at most this many words ...
MAX_LABEL_WORDS = 6
#: ... and all labels inside one figure at most this many.
MAX_FIGURE_WORDS = 60

Box = tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class FigureFound:
    """A figure on a page: `bbox` (x0, top, x1, bottom; points, top-left origin, in the page's
    reading frame) and its labels (segments drawn inside it, top to bottom), possibly none."""

    bbox: Box
    labels: tuple[Segment, ...] = ()

    @property
    def text(self) -> str:
        """The labels one per line, top to bottom then left to right."""
        ordered = sorted(self.labels, key=lambda s: (round(s.top / 3), s.x0))
        return "\n".join(s.text.strip() for s in ordered if s.text.strip())


def image_boxes_to_figure_boxes(boxes: list[Box], page_width: float, page_height: float) -> list[Box]:
    """Figure boxes from image boxes (both in the reading frame): touching images merged, then
    kept when at least `MIN_FIGURE_SIDE` on both sides and at most `MAX_FIGURE_PAGE_SHARE` of
    the page."""
    merged: list[list[float]] = []
    for box in sorted(boxes, key=lambda b: (b[1], b[0])):
        for other in merged:
            if (
                box[0] <= other[2] + TOUCH
                and other[0] <= box[2] + TOUCH
                and box[1] <= other[3] + TOUCH
                and other[1] <= box[3] + TOUCH
            ):
                other[:] = [min(other[0], box[0]), min(other[1], box[1]), max(other[2], box[2]), max(other[3], box[3])]
                break
        else:
            merged.append(list(box))
    page_area = max(page_width * page_height, 1.0)
    return [
        (x0, top, x1, bottom)
        for x0, top, x1, bottom in merged
        if x1 - x0 >= MIN_FIGURE_SIDE
        and bottom - top >= MIN_FIGURE_SIDE
        and (x1 - x0) * (bottom - top) <= MAX_FIGURE_PAGE_SHARE * page_area
    ]


def _inside(segment: Segment, box: Box) -> bool:
    x0, top, x1, bottom = box
    mx, my = (segment.x0 + segment.x1) / 2, (segment.top + segment.bottom) / 2
    return x0 - 1 <= mx <= x1 + 1 and top - 1 <= my <= bottom + 1


def segments_to_figures(segments: list[Segment], boxes: list[Box]) -> tuple[list[FigureFound], list[Segment]]:
    """(figures, the segments left for the body). A box's inner segments become its labels
    only when each has at most `MAX_LABEL_WORDS` words and together at most
    `MAX_FIGURE_WORDS`; otherwise they stay in the body and the figure has no labels."""
    figures: list[FigureFound] = []
    taken: set[int] = set()
    for box in boxes:
        inner = [s for s in segments if id(s) not in taken and s.text.strip() and _inside(s, box)]
        words = [len(s.text.split()) for s in inner]
        if inner and max(words) <= MAX_LABEL_WORDS and sum(words) <= MAX_FIGURE_WORDS:
            taken.update(id(s) for s in inner)
            figures.append(FigureFound(bbox=box, labels=tuple(inner)))
        else:
            figures.append(FigureFound(bbox=box))
    return figures, [s for s in segments if id(s) not in taken]
