"""Figures: the short labels drawn inside a figure's box.

The boxes come from `drawings.graphics_to_figure_boxes` (images and dense vector drawings, grown
to their frame).

Text drawn inside a figure box is the figure's own text only when it reads as labels (axis
ticks, callouts: "Nut case", "Keyway"): every run inside is short (`figure_label_max_words`) and
all of them together are few (`figure_max_words`; `TextLayerSettings`). A paragraph laid over a background image (a
report cover, a banner) stays body text, and the figure then keeps no text. Either way every
character stays in exactly one element (conservation): labels go to the figure, the rest to
the body.
"""

from __future__ import annotations

from dataclasses import dataclass

from parsers.textlayer.chars import Segment
from parsers.textlayer.settings import DEFAULT_TEXT_LAYER_SETTINGS, TextLayerSettings

#: The default label bounds, for OCR's figure pass (`ocr.figures`), which judges the words read
#: inside a picture region by the same measure.
MAX_LABEL_WORDS = DEFAULT_TEXT_LAYER_SETTINGS.figure_label_max_words
MAX_FIGURE_WORDS = DEFAULT_TEXT_LAYER_SETTINGS.figure_max_words

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


def _inside(segment: Segment, box: Box, slack: float) -> bool:
    """The segment's middle lies in `box` widened by `slack` (points) on every side."""
    x0, top, x1, bottom = box
    mx, my = (segment.x0 + segment.x1) / 2, (segment.top + segment.bottom) / 2
    return x0 - slack <= mx <= x1 + slack and top - slack <= my <= bottom + slack


def segments_to_figures(
    segments: list[Segment], boxes: list[Box], settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS
) -> tuple[list[FigureFound], list[Segment]]:
    """(figures, the segments left for the body). A box's inner segments become its labels
    only when each has at most `figure_label_max_words` words and together at most
    `figure_max_words`; otherwise they stay in the body and the figure has no labels."""
    label_words, figure_words = settings.figure_label_max_words, settings.figure_max_words
    slack = settings.inside_box_slack_pt
    figures: list[FigureFound] = []
    taken: set[int] = set()
    for box in boxes:
        inner = [s for s in segments if id(s) not in taken and s.text.strip() and _inside(s, box, slack)]
        words = [len(s.text.split()) for s in inner]
        if inner and max(words) <= label_words and sum(words) <= figure_words:
            taken.update(id(s) for s in inner)
            figures.append(FigureFound(bbox=box, labels=tuple(inner)))
        else:
            figures.append(FigureFound(bbox=box))
    return figures, [s for s in segments if id(s) not in taken]
