"""Figure regions from a page's graphics: images and dense vector drawings, grown to their frame.

A chart or a diagram drawn as vector paths has no image object; what sets it apart from a
ruled table is how it is drawn. A ruled table is a grid of horizontal and vertical lines with
text in its cells; a drawing has curves, diagonals and filled shapes. So the candidates are the
paths with curved or diagonal segments (`tables.ruled.DrawingFacts.drawing_boxes`, each with its
count of such segments), and images.

`graphics_to_figure_boxes`:

1. images and drawing paths lying within `cluster_gap_pt` of each other are one cluster (the bars,
   lines and marks of one chart; a photo and the rounded panel it sits in). Only boxes sharing
   a cell of a coarse grid are compared (`boxes_to_clusters`), so a page with thousands of
   paths (a map) is not a comparison of every pair;
2. a cluster without an image is a figure only when dense: at least `min_drawing_paths` paths
   and `min_drawn_segments` curved or diagonal segments (one rounded box round a note, an arrow
   or an underline is not a figure);
3. the cluster grows to the largest rectangle that encloses it and is at most
   `max_frame_growth` times its area (a chart's panel, a photo's coloured panel, where the
   labels sit), and to the straight rulings crossing it that are no longer than it (axes);
4. kept when at least `min_figure_side_pt` on both sides and at most `max_figure_page_share` of
   the page (more is a background).

The tolerances are `TextLayerSettings` fields, with their reasons.

All boxes are (x0, top, x1, bottom) in points, top-left origin, in the page's reading frame,
clipped to the page. Pure: the inputs are left alone.
"""

from __future__ import annotations

from parsers.textlayer.settings import DEFAULT_TEXT_LAYER_SETTINGS, TextLayerSettings

Box = tuple[float, float, float, float]
#: A drawing path's box and its number of curved or diagonal segments.
Drawing = tuple[float, float, float, float, int]

#: The default figure size bounds, for OCR's figure pass (`ocr.figures`), which finds picture
#: regions on a rendered page by the same measure.
MIN_FIGURE_SIDE = DEFAULT_TEXT_LAYER_SETTINGS.min_figure_side_pt
MAX_FIGURE_PAGE_SHARE = DEFAULT_TEXT_LAYER_SETTINGS.max_figure_page_share


def _clip(box: Box, width: float, height: float) -> Box | None:
    x0, top, x1, bottom = max(box[0], 0.0), max(box[1], 0.0), min(box[2], width), min(box[3], height)
    return (x0, top, x1, bottom) if x1 > x0 and bottom > top else None


def _area(box: Box) -> float:
    return max(box[2] - box[0], 0.0) * max(box[3] - box[1], 0.0)


def _union(a: Box, b: Box) -> Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _encloses(outer: Box, inner: Box, slack: float) -> bool:
    return (
        outer[0] - slack <= inner[0]
        and outer[1] - slack <= inner[1]
        and inner[2] <= outer[2] + slack
        and inner[3] <= outer[3] + slack
    )


def _crosses(ruling: Box, box: Box) -> bool:
    return ruling[0] <= box[2] and box[0] <= ruling[2] and ruling[1] <= box[3] and box[1] <= ruling[3]


#: Side (points) of the grid cells that find candidate neighbours (only boxes sharing a cell are
#: compared): coarse, so a page-sized box covers few cells.
GRID_CELL = 24.0


def boxes_to_clusters(boxes: list[Box], gap: float = DEFAULT_TEXT_LAYER_SETTINGS.cluster_gap_pt) -> list[list[int]]:
    """Indexes of `boxes` grouped into clusters of boxes at most `gap` apart (transitively).
    Each box is listed in the `GRID_CELL` cells its box widened by `gap` covers; only boxes
    sharing a cell are compared, so the cost grows with the boxes' area in cells and the
    neighbours per cell, never with every pair of a page's thousands of paths."""
    parent = list(range(len(boxes)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    cells: dict[tuple[int, int], list[int]] = {}
    for index, (x0, top, x1, bottom) in enumerate(boxes):
        for cx in range(int((x0 - gap) // GRID_CELL), int((x1 + gap) // GRID_CELL) + 1):
            for cy in range(int((top - gap) // GRID_CELL), int((bottom + gap) // GRID_CELL) + 1):
                cells.setdefault((cx, cy), []).append(index)
    for members in cells.values():
        for position, a in enumerate(members):
            ax0, atop, ax1, abottom = boxes[a]
            for b in members[position + 1 :]:
                if root(a) == root(b):
                    continue
                bx0, btop, bx1, bbottom = boxes[b]
                if bx0 - gap <= ax1 and ax0 - gap <= bx1 and btop - gap <= abottom and atop - gap <= bbottom:
                    parent[root(a)] = root(b)
    clusters: dict[int, list[int]] = {}
    for index in range(len(boxes)):
        clusters.setdefault(root(index), []).append(index)
    return list(clusters.values())


def _grown(box: Box, rectangles: list[Box], rulings: list[Box], settings: TextLayerSettings) -> Box:
    """`box` grown to the largest enclosing rectangle (within `frame_slack_pt`) within
    `max_frame_growth` of its area (a chart's outer panel, with its title and legend, rather
    than the plot frame inside it), then to the rulings crossing it that are no longer than it
    is wide or high (`frame_slack_pt` allowed)."""
    slack, growth = settings.frame_slack_pt, settings.max_frame_growth
    enclosing = [r for r in rectangles if _encloses(r, box, slack) and _area(r) <= growth * max(_area(box), 1.0)]
    if enclosing:
        box = _union(box, max(enclosing, key=_area))
    for ruling in rulings:
        fits = ruling[2] - ruling[0] <= (box[2] - box[0]) + slack and ruling[3] - ruling[1] <= (box[3] - box[1]) + slack
        if fits and _crosses(ruling, box):
            box = _union(box, ruling)
    return box


def graphics_to_figure_boxes(
    images: list[Box],
    drawings: list[Drawing],
    frames: list[Box],
    page_width: float,
    page_height: float,
    settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS,
) -> list[Box]:
    """Figure boxes from a page's images, drawing paths and straight frames (rectangles and
    rulings), all in the reading frame; see the module docstring for the four steps."""
    thickness, min_side = settings.ruling_thickness_pt, settings.min_figure_side_pt
    items: list[Box] = []
    weights: list[int] = []  # curved/diagonal segments; -1 for an image
    for box in images:
        clipped = _clip(box, page_width, page_height)
        if clipped:
            items.append(clipped)
            weights.append(-1)
    for *box, drawn in drawings:
        clipped = _clip(tuple(box), page_width, page_height)
        if clipped:
            items.append(clipped)
            weights.append(drawn)
    if not items:
        return []
    on_page = [c for c in (_clip(f, page_width, page_height) for f in frames) if c]
    rectangles = [f for f in on_page if f[2] - f[0] > thickness and f[3] - f[1] > thickness]
    rulings = [f for f in on_page if f[2] - f[0] <= thickness or f[3] - f[1] <= thickness]
    page_area = max(page_width * page_height, 1.0)
    figures: list[Box] = []
    for members in boxes_to_clusters(items, settings.cluster_gap_pt):
        has_image = any(weights[i] < 0 for i in members)
        paths = [weights[i] for i in members if weights[i] >= 0]
        if not has_image and (len(paths) < settings.min_drawing_paths or sum(paths) < settings.min_drawn_segments):
            continue
        box = items[members[0]]
        for index in members[1:]:
            box = _union(box, items[index])
        box = _grown(box, rectangles, rulings, settings)
        if (
            box[2] - box[0] >= min_side
            and box[3] - box[1] >= min_side
            and _area(box) <= settings.max_figure_page_share * page_area
        ):
            figures.append(box)
    return _merged_overlapping(figures)


def _merged_overlapping(boxes: list[Box]) -> list[Box]:
    """Boxes that overlap after growing (two clusters inside one frame) merged into one."""
    merged: list[Box] = []
    for box in sorted(boxes, key=lambda b: (b[1], b[0])):
        for index, other in enumerate(merged):
            if box[0] < other[2] and other[0] < box[2] and box[1] < other[3] and other[1] < box[3]:
                merged[index] = _union(other, box)
                break
        else:
            merged.append(box)
    return merged
