"""The two measures of the ICDAR 2013 Table Competition, as stated in ../shared/bench/icdar2013-eu/README.md.

Pure functions only (no PDF library, no file access), so the scorer is tested on hand-built tables:

- ground truth: `reg_xml_to_regions` and `str_xml_to_cells` read the competition's XML (bytes in), and
  `ground_truth_to_tables` joins them into `Table`s in the same top-left frame the systems report in;
- predictions: `rows_to_cells` turns a system's `rows: list[list[str]]` into 1x1 cells;
- (a) detection: `tables_to_page_boxes` -> `page_boxes_to_counts` (greedy one-to-one IoU >= 0.5 per page);
- (b) structure: `tables_to_relations` -> `relations_to_counts` (multiset of adjacency relations per document);
- `document_to_score` applies both, choosing per measure the better ground-truth variant (eu-009a / eu-009b).

Units: every `Box` is `(x0, top, x1, bottom)` in PDF points, origin at the top left of the page as displayed
(pdfplumber's frame); pages count from 1; rows and columns from 0. Counts are summed over pages and documents
before P/R/F1 are taken (micro-average), so a document weighs by its number of tables (detection) or relations
(structure), as the README states.
"""

from __future__ import annotations

import re
import unicodedata
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

Box = tuple[float, float, float, float]
"""(x0, top, x1, bottom) in PDF points, top-left origin, page as displayed."""

PdfBox = tuple[float, float, float, float]
"""(x1, y1, x2, y2) in PDF user space points, origin at the bottom left, y growing upwards (the XML's frame)."""

Relation = tuple[str, str, str]
"""(norm(a), norm(b), "right" | "below"): cell b is a's nearest non-empty neighbour in that direction."""

IOU_THRESHOLD = 0.5


@dataclass(frozen=True)
class Cell:
    """A grid cell covering rows row0..row1 and columns col0..col1 (inclusive; equal for a 1x1 cell)."""

    row0: int
    col0: int
    row1: int
    col1: int
    text: str


@dataclass(frozen=True)
class Region:
    """The part of a table on one page (1-based) and its box there (top-left frame, points)."""

    page: int
    box: Box


@dataclass(frozen=True)
class Table:
    """One table: a region per page it covers and its cells on one grid (the same type for truth and prediction)."""

    regions: tuple[Region, ...]
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Counts:
    """True positives, predicted and ground-truth totals; P/R/F1 are 0.0 when their denominator is 0."""

    tp: int
    pred: int
    gt: int

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.tp + other.tp, self.pred + other.pred, self.gt + other.gt)

    @property
    def precision(self) -> float:
        return self.tp / self.pred if self.pred else 0.0

    @property
    def recall(self) -> float:
        return self.tp / self.gt if self.gt else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass(frozen=True)
class DocumentScore:
    """Both measures for one document, with the ground-truth variant each measure used (by name)."""

    detection: Counts
    structure: Counts
    detection_variant: str
    structure_variant: str
    predicted_tables: int
    truth_tables: int


def norm(text: str) -> str:
    """The README's normalisation: NFKC, lower-cased, every whitespace character removed."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).lower())


def pdf_box_to_box(pdf_box: PdfBox, page_height: float) -> Box:
    """Bottom-left `(x1, y1, x2, y2)` -> top-left `(x1, H - y2, x2, H - y1)`, H = displayed page height (points)."""
    x1, y1, x2, y2 = pdf_box
    return (x1, page_height - y2, x2, page_height - y1)


def element_to_pdf_box(element: ET.Element) -> PdfBox:
    """The `<bounding-box x1 y1 x2 y2>` child of a region or cell, as floats (bottom-left frame)."""
    bb = element.find("bounding-box")
    if bb is None:
        raise ValueError(f"<{element.tag} id={element.get('id')}> has no <bounding-box>")
    return (float(bb.get("x1")), float(bb.get("y1")), float(bb.get("x2")), float(bb.get("y2")))


def reg_xml_to_regions(xml: bytes) -> dict[str, list[tuple[int, PdfBox]]]:
    """`-reg.xml` -> table id -> [(page, bottom-left box)] in document order; one entry per `<region>`."""
    root = ET.fromstring(xml)
    return {
        table.get("id"): [(int(region.get("page")), element_to_pdf_box(region)) for region in table.findall("region")]
        for table in root.findall("table")
    }


def str_xml_to_cells(xml: bytes) -> dict[str, tuple[Cell, ...]]:
    """`-str.xml` -> table id -> cells on one grid: indices plus the region's row/col increments; an absent
    end-row/end-col equals the start (README). Cell boxes are ignored: no measure uses them (wrong in eu-015)."""
    root = ET.fromstring(xml)
    tables: dict[str, tuple[Cell, ...]] = {}
    for table in root.findall("table"):
        cells: list[Cell] = []
        for region in table.findall("region"):
            dr, dc = int(region.get("row-increment", 0)), int(region.get("col-increment", 0))
            for cell in region.findall("cell"):
                r0, c0 = int(cell.get("start-row")), int(cell.get("start-col"))
                r1, c1 = int(cell.get("end-row", r0)), int(cell.get("end-col", c0))
                content = cell.findtext("content") or ""
                cells.append(Cell(r0 + dr, c0 + dc, r1 + dr, c1 + dc, content))
        tables[table.get("id")] = tuple(cells)
    return tables


def ground_truth_to_tables(
    regions: Mapping[str, list[tuple[int, PdfBox]]],
    cells: Mapping[str, tuple[Cell, ...]],
    page_heights: Mapping[int, float],
) -> list[Table]:
    """Join the region and structure files by table id; boxes move to the top-left frame with each page's
    displayed height (so eu-015's `/Rotate 90` pages use H = 595, as the README says)."""
    if set(regions) != set(cells):
        raise ValueError(f"table ids differ: regions {sorted(regions)} vs structure {sorted(cells)}")
    return [
        Table(
            tuple(Region(page, pdf_box_to_box(box, page_heights[page])) for page, box in regions[table_id]),
            cells[table_id],
        )
        for table_id in regions
    ]


def rows_to_cells(rows: Sequence[Sequence[str | None]]) -> tuple[Cell, ...]:
    """A predicted table given as rows of strings: `rows[i][j]` is a 1x1 cell at (i, j); None counts as ""."""
    return tuple(Cell(i, j, i, j, text or "") for i, row in enumerate(rows) for j, text in enumerate(row))


def iou(a: Box, b: Box) -> float:
    """Intersection area / union area of two boxes (0.0 when both are degenerate)."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def boxes_to_matches(predicted: Sequence[Box], truth: Sequence[Box], threshold: float = IOU_THRESHOLD) -> int:
    """Matched pairs on one page: one-to-one, greedily by decreasing IoU, a pair accepted only if IoU >= threshold.
    Ties go to the earlier box (stable order), so the count does not depend on set iteration."""
    pairs = sorted(
        ((iou(p, t), i, j) for i, p in enumerate(predicted) for j, t in enumerate(truth)),
        key=lambda pair: (-pair[0], pair[1], pair[2]),
    )
    used_p: set[int] = set()
    used_t: set[int] = set()
    for overlap, i, j in pairs:
        if overlap < threshold:
            break
        if i not in used_p and j not in used_t:
            used_p.add(i)
            used_t.add(j)
    return len(used_p)


def tables_to_page_boxes(tables: Iterable[Table]) -> dict[int, list[Box]]:
    """Page -> boxes: one per table and page it covers (a continued table gives a box on each page)."""
    pages: dict[int, list[Box]] = defaultdict(list)
    for table in tables:
        for region in table.regions:
            pages[region.page].append(region.box)
    return dict(pages)


def page_boxes_to_counts(predicted: Mapping[int, list[Box]], truth: Mapping[int, list[Box]]) -> Counts:
    """Measure (a) for one document: matches page by page; TP, predicted and ground-truth boxes summed."""
    tp = sum(boxes_to_matches(predicted.get(page, []), truth.get(page, [])) for page in set(predicted) | set(truth))
    return Counts(tp, sum(map(len, predicted.values())), sum(map(len, truth.values())))


def lines_to_pairs(lines: Mapping[int, list[int]], order: Sequence[tuple[int, int]]) -> set[tuple[int, int]]:
    """Consecutive (a, b) cell indices along each grid line, cells sorted by `order[index]` (their start, then end).
    A set: the same two cells met on several lines (both span them) make one relation (README, step 3)."""
    pairs: set[tuple[int, int]] = set()
    for members in lines.values():
        ordered = sorted(members, key=lambda index: order[index])
        pairs.update(pairwise(ordered))
    return pairs


def cells_to_relations(cells: Sequence[Cell]) -> Counter[Relation]:
    """Measure (b)'s relations of one table: along every grid row the non-empty cells covering it, left to right
    (a spanning cell once), give (a, b, "right") for each consecutive pair; along every column, top to bottom,
    (a, b, "below"). Empty cells (norm == "") are dropped first, so a cell relates to its nearest non-empty
    neighbour. Returned as a multiset of normalised-text tuples (identical tuples from different cells all count)."""
    kept = [cell for cell in cells if norm(cell.text)]
    rows: dict[int, list[int]] = defaultdict(list)
    cols: dict[int, list[int]] = defaultdict(list)
    for index, cell in enumerate(kept):
        for r in range(cell.row0, cell.row1 + 1):
            rows[r].append(index)
        for c in range(cell.col0, cell.col1 + 1):
            cols[c].append(index)
    right = lines_to_pairs(rows, [(cell.col0, cell.col1) for cell in kept])
    below = lines_to_pairs(cols, [(cell.row0, cell.row1) for cell in kept])
    texts = [norm(cell.text) for cell in kept]
    return Counter(
        [(texts[a], texts[b], "right") for a, b in right] + [(texts[a], texts[b], "below") for a, b in below]
    )


def tables_to_relations(tables: Iterable[Table]) -> Counter[Relation]:
    """A document's relations: the multiset union over its tables, on any page (no table-to-table matching:
    a table found where the truth has none only adds to the predicted total)."""
    total: Counter[Relation] = Counter()
    for table in tables:
        total.update(cells_to_relations(table.cells))
    return total


def relations_to_counts(predicted: Counter[Relation], truth: Counter[Relation]) -> Counts:
    """Measure (b) for one document: TP = size of the multiset intersection (per tuple, the smaller count)."""
    return Counts(sum((predicted & truth).values()), sum(predicted.values()), sum(truth.values()))


def counts_to_best_index(candidates: Sequence[Counts]) -> int:
    """The ground-truth variant to use: higher document F1, on a tie more TP, then the first (README: `a`)."""
    return min(range(len(candidates)), key=lambda i: (-candidates[i].f1, -candidates[i].tp, i))


def document_to_score(predicted: Sequence[Table], variants: Mapping[str, Sequence[Table]]) -> DocumentScore:
    """Both measures for one document against each ground-truth variant (name -> tables, in preference order),
    each measure keeping its own best variant, as the README's eu-009a/eu-009b rule says."""
    names = list(variants)
    pred_boxes, pred_relations = tables_to_page_boxes(predicted), tables_to_relations(predicted)
    detection = [page_boxes_to_counts(pred_boxes, tables_to_page_boxes(variants[name])) for name in names]
    structure = [relations_to_counts(pred_relations, tables_to_relations(variants[name])) for name in names]
    d, s = counts_to_best_index(detection), counts_to_best_index(structure)
    return DocumentScore(detection[d], structure[s], names[d], names[s], len(predicted), len(variants[names[d]]))
