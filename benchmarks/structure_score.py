"""Structure score: headings, tables and figures found, against ground truth nobody here tuned to.

Ground truth (GT), pooled:
- `fixtures/*.truth.json` (our generated PDFs): the document title (level 0) and every heading
  (levels 1-3), every table (pages + cells; no boxes). No figures: the fixtures draw none.
- `../shared/bench/docling-gt/*.json` (Docling's published layout annotations): `title` and
  `section_header` texts as headings, `tables[]` (page, box, cells), `pictures[]` as figures.

Predictions (one adapter per system, same `Structure` shape):
- `project`: `parsers.parse_pdf` elements; `title` = heading, `table`, `figure`.
- `unstructured`: `partition_pdf(strategy="fast")`; `Title` = heading, `Table`, `Image`/`Figure`.

Rules (why):
- Headings match after `normalise` (NFKC, lower case, punctuation to spaces, whitespace collapsed)
  when equal, when the same words in another order (Docling writes some section numbers after the
  title), or when difflib's ratio > 0.85 (a dropped accent or hyphen is still the heading; a
  different heading with a shared prefix is not). This is the rule stated in docling-gt/README.md.
- Matching is one-to-one and greedy by similarity (ties: nearer page first): one GT heading never
  counts twice, so a heading repeated on every page is one hit plus false positives.
- Recall = matched / GT, precision = matched / predicted, F1 their harmonic mean; totals are micro
  averages (counts pooled over documents), so a 60-heading manual weighs more than a 1-heading page.
- A table is found when a predicted table shares a page with it and either its box overlaps the GT
  box (IoU >= 0.5; only Docling has boxes) or it holds >= half of the GT's distinct non-empty cells
  (content, for fixtures and for tables cut differently). A figure is found by page + IoU >= 0.5.
  Also one-to-one. Extra predicted tables/figures are reported as counts, not scored: the GT
  does not say what is *not* a table as clearly as it says what is a heading.

    python benchmarks/structure_score.py                       # project, overall only
    python benchmarks/structure_score.py --systems project,unstructured --per-doc
    python benchmarks/structure_score.py --misses 15 --docs crop,right_to_left   # diagnose
    python benchmarks/structure_score.py --json /tmp/structure.json --ocr never
    python benchmarks/structure_score.py --languages eng+hin+mar   # Hindi/Marathi scans OCRed as such

Run from the worktree with `PYTHONPATH=.` so the checked-out parser is the one measured.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
DOCLING_GT = ROOT.parent / "shared" / "bench" / "docling-gt"
HEADING_RATIO = 0.85  # docling-gt/README.md: "a difflib ratio above 0.85"
REGION_IOU = 0.5  # the usual detection threshold (PASCAL VOC / ICDAR region overlap)
CELL_SHARE = 0.5  # more than half the GT cells in one predicted table = that table was found

BBox = tuple[float, float, float, float]  # x0, top, x1, bottom; PDF points, top-left origin


@dataclass(frozen=True)
class Heading:
    text: str
    page: int
    level: int | None = None


@dataclass(frozen=True)
class Region:
    """A table or figure: pages it spans, its box on the first page (if known), its cell texts."""

    page: int
    page_end: int
    bbox: BBox | None = None
    cells: tuple[str, ...] = ()


@dataclass(frozen=True)
class Structure:
    headings: tuple[Heading, ...] = ()
    tables: tuple[Region, ...] = ()
    figures: tuple[Region, ...] = ()


@dataclass
class DocScore:
    """Counts for one document (or a pooled group) and, per document, what was missed."""

    name: str
    gt_headings: int = 0
    pred_headings: int = 0
    matched_headings: int = 0
    gt_tables: int = 0
    pred_tables: int = 0
    found_tables: int = 0
    gt_figures: int = 0
    pred_figures: int = 0
    found_figures: int = 0
    missed: list[str] = field(default_factory=list)
    false_positives: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float | None:
        return self.matched_headings / self.pred_headings if self.pred_headings else None

    @property
    def recall(self) -> float | None:
        return self.matched_headings / self.gt_headings if self.gt_headings else None

    @property
    def f1(self) -> float | None:
        p, r = self.precision, self.recall
        if p is None or r is None:
            return None
        return 2 * p * r / (p + r) if p + r else 0.0


# --- text and geometry -------------------------------------------------------------------------


def normalise(text: str) -> str:
    """NFKC, lower case, every punctuation character (Unicode category P*) to a space, spaces collapsed."""
    folded = unicodedata.normalize("NFKC", text).lower()
    spaced = "".join(" " if unicodedata.category(ch).startswith("P") else ch for ch in folded)
    return " ".join(spaced.split())


def heading_similarity(gt_text: str, pred_text: str) -> float:
    """1.0 equal, 0.99 same words reordered, else difflib ratio if > 0.85, else 0.0 (no match).

    Reordered words rank just below equal so that, for a GT heading with two candidates, the exact
    one wins. An empty normalised text (a heading of dashes) matches nothing.
    """
    a, b = normalise(gt_text), normalise(pred_text)
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    if sorted(a.split()) == sorted(b.split()):
        return 0.99
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() <= HEADING_RATIO or matcher.quick_ratio() <= HEADING_RATIO:
        return 0.0
    ratio = matcher.ratio()
    return ratio if ratio > HEADING_RATIO else 0.0


def bbox_iou(a: BBox, b: BBox) -> float:
    """Intersection over union of two boxes; 0.0 for disjoint or degenerate boxes."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    if width <= 0 or height <= 0:
        return 0.0
    inter = width * height
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def cells_share(gt_cells: Sequence[str], pred_cells: Sequence[str]) -> float:
    """Share of the GT's distinct non-empty normalised cells found as whole words in the predicted table.

    Whole-word containment (not cell-for-cell equality) so that a table whose cells were merged or
    split differently still counts when its content is there; a cell of only punctuation ("*") is
    no evidence either way and is ignored.
    """
    wanted = {normalise(cell) for cell in gt_cells} - {""}
    if not wanted:
        return 0.0
    haystack = " " + " ".join(normalise(cell) for cell in pred_cells) + " "
    return sum(f" {cell} " in haystack for cell in wanted) / len(wanted)


def region_similarity(gt: Region, pred: Region, use_cells: bool) -> float:
    """max(IoU on the shared first page, cell share) when pages overlap and one passes its threshold; else 0."""
    if pred.page > gt.page_end or gt.page > pred.page_end:
        return 0.0
    iou = bbox_iou(gt.bbox, pred.bbox) if gt.bbox and pred.bbox and gt.page == pred.page else 0.0
    share = cells_share(gt.cells, pred.cells) if use_cells else 0.0
    score = max(iou if iou >= REGION_IOU else 0.0, share if share >= CELL_SHARE else 0.0)
    return score


# --- one-to-one matching -----------------------------------------------------------------------


def scores_to_pairs(scores: dict[tuple[int, int], tuple[float, float]]) -> list[tuple[int, int]]:
    """Greedy one-to-one assignment: best (score, then smallest tie-break) first; each side used once.

    `scores[(gt, pred)] = (similarity, tie_break)`; only pairs with similarity > 0 are candidates.
    Greedy rather than optimal: with a 0.85 floor two candidates rarely compete, and greedy is
    what a reader checks by hand.
    """
    ranked = sorted(
        (key for key, value in scores.items() if value[0] > 0), key=lambda k: (-scores[k][0], scores[k][1], k)
    )
    used_gt: set[int] = set()
    used_pred: set[int] = set()
    pairs = []
    for gt_index, pred_index in ranked:
        if gt_index not in used_gt and pred_index not in used_pred:
            used_gt.add(gt_index)
            used_pred.add(pred_index)
            pairs.append((gt_index, pred_index))
    return sorted(pairs)


def headings_to_pairs(gt: Sequence[Heading], pred: Sequence[Heading]) -> list[tuple[int, int]]:
    """Match headings one-to-one by `heading_similarity`; nearer pages win ties (repeated titles)."""
    scores = {}
    for i, g in enumerate(gt):
        for j, p in enumerate(pred):
            similarity = heading_similarity(g.text, p.text)
            if similarity:
                scores[(i, j)] = (similarity, abs(g.page - p.page))
    return scores_to_pairs(scores)


def regions_to_pairs(gt: Sequence[Region], pred: Sequence[Region], use_cells: bool) -> list[tuple[int, int]]:
    """Match tables (use_cells=True) or figures (box only) one-to-one by `region_similarity`."""
    scores = {}
    for i, g in enumerate(gt):
        for j, p in enumerate(pred):
            similarity = region_similarity(g, p, use_cells)
            if similarity:
                scores[(i, j)] = (similarity, abs(g.page - p.page))
    return scores_to_pairs(scores)


def structures_to_score(name: str, gt: Structure, pred: Structure) -> DocScore:
    """Score one document: heading matches, tables and figures found, and the missed / extra headings."""
    heading_pairs = headings_to_pairs(gt.headings, pred.headings)
    hit_gt = {i for i, _ in heading_pairs}
    hit_pred = {j for _, j in heading_pairs}
    return DocScore(
        name=name,
        gt_headings=len(gt.headings),
        pred_headings=len(pred.headings),
        matched_headings=len(heading_pairs),
        gt_tables=len(gt.tables),
        pred_tables=len(pred.tables),
        found_tables=len(regions_to_pairs(gt.tables, pred.tables, use_cells=True)),
        gt_figures=len(gt.figures),
        pred_figures=len(pred.figures),
        found_figures=len(regions_to_pairs(gt.figures, pred.figures, use_cells=False)),
        missed=[f"p{h.page} {h.text}" for i, h in enumerate(gt.headings) if i not in hit_gt],
        false_positives=[f"p{h.page} {h.text}" for j, h in enumerate(pred.headings) if j not in hit_pred],
    )


def scores_to_total(name: str, scores: Sequence[DocScore]) -> DocScore:
    """Pool counts (micro average): the group's P/R are over all its headings, not a mean of ratios."""
    total = DocScore(name=name)
    for score in scores:
        for key in COUNTS:
            setattr(total, key, getattr(total, key) + getattr(score, key))
    return total


COUNTS = tuple(f"{side}_{what}" for what in ("headings", "tables", "figures") for side in ("gt", "pred")) + (
    "matched_headings",
    "found_tables",
    "found_figures",
)


# --- ground-truth loaders ----------------------------------------------------------------------


def docling_bbox_to_bbox(box: dict[str, Any], page_height: float) -> BBox:
    """Docling `{l, t, r, b, coord_origin}` to (x0, top, x1, bottom) with a top-left origin."""
    if box.get("coord_origin", "TOPLEFT").upper() == "BOTTOMLEFT":
        return (box["l"], page_height - box["t"], box["r"], page_height - box["b"])
    return (box["l"], box["t"], box["r"], box["b"])


def docling_json_to_structure(data: dict[str, Any]) -> Structure:
    """Docling `title`/`section_header` texts = headings (level: 0 for title), tables with cells, pictures."""
    heights = {int(no): page["size"]["height"] for no, page in data.get("pages", {}).items()}

    def region(item: dict[str, Any], cells: tuple[str, ...] = ()) -> Region:
        prov = item["prov"][0]
        pages = [p["page_no"] for p in item["prov"]]
        bbox = docling_bbox_to_bbox(prov["bbox"], heights.get(prov["page_no"], 0.0))
        return Region(page=min(pages), page_end=max(pages), bbox=bbox, cells=cells)

    headings = tuple(
        Heading(text=t["text"], page=t["prov"][0]["page_no"], level=0 if t["label"] == "title" else t.get("level"))
        for t in data.get("texts", [])
        if t["label"] in ("title", "section_header") and t.get("prov")
    )
    tables = tuple(
        region(t, tuple(c["text"] for c in t.get("data", {}).get("table_cells", [])))
        for t in data.get("tables", [])
        if t.get("prov")
    )
    figures = tuple(region(p) for p in data.get("pictures", []) if p.get("prov"))
    return Structure(headings=headings, tables=tables, figures=figures)


def truth_json_to_structure(data: dict[str, Any]) -> Structure:
    """Fixture truth: the `title` block (level 0) plus `headings` (levels 1-3); tables by pages and cells.

    The title is counted because the parser emits it as a heading and Docling's GT labels titles
    too; leaving it out would charge every correct title as a false positive.
    """
    title = [Heading(b["text"], b["page"], 0) for b in data.get("blocks", []) if b["type"] == "title"]
    headings = title + [Heading(h["text"], h["page"], h.get("level")) for h in data.get("headings", [])]
    tables = tuple(
        Region(
            page=min(t["pages"]),
            page_end=max(t["pages"]),
            cells=tuple(cell for row in t.get("header", []) + t.get("rows", []) for cell in row),
        )
        for t in data.get("tables", [])
    )
    return Structure(headings=tuple(headings), tables=tables)


# --- prediction adapters -----------------------------------------------------------------------


def elements_to_structure(elements: Sequence[Any]) -> Structure:
    """Project `Element`s: `title` = heading, `table` (rows as cells, page..page_end), `figure`."""
    headings, tables, figures = [], [], []
    for e in elements:
        kind = e.type.value
        if kind == "title":
            headings.append(Heading(e.text, e.page, e.heading_level))
        elif kind == "table":
            cells = tuple(cell for row in (e.rows or []) for cell in row) or (e.text,)
            tables.append(Region(e.page, getattr(e, "page_end", None) or e.page, tuple(e.bbox), cells))
        elif kind == "figure":
            figures.append(Region(e.page, e.page, tuple(e.bbox), (e.text,)))
    return Structure(tuple(headings), tuple(tables), tuple(figures))


def unstructured_bbox(element: Any) -> BBox | None:
    """unstructured's corner points as a box. For text-layer PDFs ("fast") its PixelSpace is the page
    in PDF points with a top-left origin (checked: system size = page size), so no scaling."""
    coords = getattr(element.metadata, "coordinates", None)
    if coords is None or not coords.points:
        return None
    xs = [p[0] for p in coords.points]
    ys = [p[1] for p in coords.points]
    return (min(xs), min(ys), max(xs), max(ys))


def unstructured_to_structure(parts: Sequence[Any]) -> Structure:
    """unstructured elements: `Title` = heading, `Table`, `Image`/`Figure` (its own category names)."""
    headings, tables, figures = [], [], []
    for part in parts:
        page = getattr(part.metadata, "page_number", None) or 1
        category = getattr(part, "category", "")
        if category == "Title":
            headings.append(Heading(part.text, page))
        elif category == "Table":
            tables.append(Region(page, page, unstructured_bbox(part), (part.text,)))
        elif category in ("Image", "Figure"):
            figures.append(Region(page, page, unstructured_bbox(part), (part.text,)))
    return Structure(tuple(headings), tuple(tables), tuple(figures))


def project_system(ocr: str, languages: str) -> Callable[[Path], Structure]:
    """parse_pdf with its defaults unless told: `ocr` mode and Tesseract `languages` (default "eng")."""
    from parsers import parse_pdf

    options = {"mode": ocr} if ocr != "default" else {}
    options |= {"languages": languages} if languages else {}
    settings = {"ocr": options} if options else None
    return lambda path: elements_to_structure(parse_pdf(path, settings).elements)


def unstructured_system() -> Callable[[Path], Structure] | str:
    """The `partition_pdf(strategy="fast")` adapter, or the reason it is unavailable (a string)."""
    try:
        from unstructured.partition.pdf import partition_pdf
    except Exception as error:  # noqa: BLE001 - ImportError or a broken dependency: either way, unavailable
        return f"{type(error).__name__}: {error}"
    return lambda path: unstructured_to_structure(partition_pdf(filename=str(path), strategy="fast"))


# --- CLI ---------------------------------------------------------------------------------------


def ground_truth_files() -> list[tuple[str, str, Path, Structure]]:
    """(group, name, pdf, GT) for every fixture with a truth file and every docling-gt JSON with its PDF."""
    found = []
    for truth in sorted(FIXTURES.glob("*.truth.json")):
        pdf = truth.with_name(truth.name.replace(".truth.json", ".pdf"))
        if pdf.exists():
            found.append(("fixtures", pdf.stem, pdf, truth_json_to_structure(json.loads(truth.read_text()))))
    for gt in sorted(DOCLING_GT.glob("*.json")):
        pdf = gt.with_suffix(".pdf")
        if pdf.exists():
            found.append(("docling-gt", pdf.stem, pdf, docling_json_to_structure(json.loads(gt.read_text()))))
    return found


def score_to_cells(score: DocScore) -> str:
    """One system's columns: heading P R F1 (matched/GT/pred), tables and figures found/GT (+pred)."""

    def ratio(value: float | None) -> str:
        return "  -  " if value is None else f"{value:5.2f}"

    return (
        f"{ratio(score.precision)} {ratio(score.recall)} {ratio(score.f1)} "
        f"{score.matched_headings:>3}/{score.gt_headings:<3}({score.pred_headings:>3}) "
        f"T {score.found_tables:>2}/{score.gt_tables:<2}({score.pred_tables:>2}) "
        f"F {score.found_figures:>1}/{score.gt_figures:<1}({score.pred_figures:>2})"
    )


def print_table(systems: list[str], rows: list[tuple[str, dict[str, DocScore]]]) -> None:
    header = f"{'document':<28}" + "".join(
        f" | {name + ': P     R     F1    hit/GT (pred) tables found/GT (pred) figures':<63}" for name in systems
    )
    print(header)
    print("-" * len(header))
    for label, by_system in rows:
        print(f"{label:<28}" + "".join(f" | {score_to_cells(by_system[name]):<63}" for name in systems))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", default="project", help="comma list: project,unstructured")
    parser.add_argument("--per-doc", action="store_true", help="a row per document, not only the totals")
    parser.add_argument("--json", type=Path, help="write every score (and the missed / extra headings) here")
    parser.add_argument("--misses", type=int, default=0, help="list up to N missed and N false-positive headings")
    parser.add_argument("--docs", default="", help="comma list of substrings: score only matching documents")
    parser.add_argument("--ocr", default="default", choices=["default", "never", "auto", "always"])
    parser.add_argument("--languages", default="", help="project OCR languages, e.g. eng+hin+mar (default: eng)")
    args = parser.parse_args(argv)

    wanted = [s for s in args.docs.split(",") if s]
    files = [f for f in ground_truth_files() if not wanted or any(w in f[1] for w in wanted)]
    runners: dict[str, Callable[[Path], Structure]] = {}
    for name in [s.strip() for s in args.systems.split(",") if s.strip()]:
        runner = project_system(args.ocr, args.languages) if name == "project" else unstructured_system()
        if isinstance(runner, str):
            print(f"{name}: unavailable ({runner})", file=sys.stderr)
        else:
            runners[name] = runner
    if not runners:
        return 1

    per_doc: dict[str, list[tuple[str, DocScore]]] = {name: [] for name in runners}
    seconds: dict[str, float] = {name: 0.0 for name in runners}
    for group, doc, pdf, gt in files:
        for name, run in runners.items():
            start = time.perf_counter()
            per_doc[name].append((group, structures_to_score(doc, gt, run(pdf))))
            seconds[name] += time.perf_counter() - start

    systems = list(runners)
    rows: list[tuple[str, dict[str, DocScore]]] = []
    if args.per_doc:
        rows += [(per_doc[systems[0]][i][1].name, {s: per_doc[s][i][1] for s in systems}) for i in range(len(files))]
    for group in ("fixtures", "docling-gt", None):
        members = [i for i, f in enumerate(files) if group is None or f[0] == group]
        label = f"{group or 'ALL'} ({len(members)} docs)"
        rows.append((label, {s: scores_to_total(label, [per_doc[s][i][1] for i in members]) for s in systems}))
    print_table(systems, rows)
    print("seconds: " + ", ".join(f"{name} {value:.1f}" for name, value in seconds.items()))

    if args.misses:
        for name in systems:
            for _, score in per_doc[name]:
                if score.missed or score.false_positives:
                    print(f"\n[{name}] {score.name}")
                    for line in score.missed[: args.misses]:
                        print(f"  MISS {line[:110]}")
                    for line in score.false_positives[: args.misses]:
                        print(f"  FP   {line[:110]}")
    if args.json:
        out = {
            name: {
                "documents": [dict(asdict(s), group=g, precision=s.precision, recall=s.recall) for g, s in docs],
                "total": asdict(scores_to_total("ALL", [s for _, s in docs])),
            }
            for name, docs in per_doc.items()
        }
        args.json.write_text(json.dumps(out, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
