"""Table detection and structure on the ICDAR 2013 Table Competition (EU half): the project beside its peers.

    cd /work/wt-icdar && PYTHONPATH=. python benchmarks/icdar2013.py              # every system, overall table
    python benchmarks/icdar2013.py --systems project,plumber-lines --per-doc       # chosen systems, per document
    python benchmarks/icdar2013.py --docs eu-015,eu-009a --json out.json           # chosen documents, JSON too

Data: ../shared/bench/icdar2013-eu (27 PDFs, 76 tables; README.md there defines the measures, implemented in
`icdar2013_scoring.py` beside this file). Measures, micro-averaged over every page / relation of the dataset:

- detection: one box per table and page; per page, predicted and true boxes matched one-to-one greedily by
  decreasing IoU, a pair counting only at IoU >= 0.5; P = TP / predicted boxes, R = TP / true boxes.
- adjacency: each table's cells give (norm(a), norm(b), right|below) relations to their nearest non-empty
  neighbours; per document the multisets of all predicted and all true tables are intersected (no table matching).
- eu-009a.pdf has two accepted truths (eu-009a, eu-009b); each measure uses the better one per document.

Systems (each sees the same PDFs, every page; boxes are converted to points, top-left origin, page as displayed):

- project: `parsers.parse_pdf(path)` with its default settings; every element whose type is "table".
- plumber-lines / plumber-text: pdfplumber `page.find_tables()` with both strategies "lines" / "text".
- camelot-lattice: camelot-py `read_pdf(flavor="lattice", backend="pdfium")`; camelot-stream: `flavor="stream"`.
  Benchmark-only dependency (`pip install camelot-py`), runs offline; its boxes are bottom-left, converted here.

A system whose library does not import is reported as unavailable; a document a system raises on counts as
"no tables predicted" (its error is printed), so a crash costs recall instead of hiding the document.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import re
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "bench" / "icdar2013-eu"


def load_scoring():
    """The pure scorer beside this file, loaded by path (benchmarks/ is not a package); reused if already loaded,
    so a test and this module share one set of record classes."""
    if "icdar2013_scoring" in sys.modules:
        return sys.modules["icdar2013_scoring"]
    spec = importlib.util.spec_from_file_location("icdar2013_scoring", HERE / "icdar2013_scoring.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


S = load_scoring()
Table, Region, Counts = S.Table, S.Region, S.Counts


@dataclass(frozen=True)
class Document:
    """One benchmark PDF and its ground-truth variants (name -> file stem prefix, in preference order)."""

    name: str
    pdf: Path
    variants: tuple[str, ...]


@dataclass(frozen=True)
class System:
    """A table extractor: the module it needs (to report it unavailable) and PDF -> predicted tables."""

    name: str
    module: str
    run: Callable[[Path], list]


@dataclass(frozen=True)
class SystemResult:
    """One system's run: per-document scores, failures (document -> error), summed counts, wall time (seconds)."""

    documents: dict
    errors: dict[str, str]
    detection: Counts
    structure: Counts
    seconds: float


def data_dir_to_documents(data: Path) -> list[Document]:
    """Every `eu-NNN[x].pdf`; its variants are the `eu-NNN[a-z]?-reg.xml` files (eu-009a.pdf -> eu-009a, eu-009b)."""
    documents = []
    for pdf in sorted(data.glob("eu-*.pdf")):
        key = re.match(r"eu-\d+", pdf.stem).group(0)
        stems = sorted(p.name[: -len("-reg.xml")] for p in data.glob(f"{key}*-reg.xml"))
        variants = tuple(stem for stem in stems if re.fullmatch(rf"{key}[a-z]?", stem))
        documents.append(Document(pdf.stem, pdf, variants))
    return documents


def pdf_to_page_heights(pdf: Path) -> dict[int, float]:
    """Page (1-based) -> displayed height in points, as pdfplumber reports it (rotation applied): the H that turns
    the competition's bottom-left boxes, and camelot's, into the top-left frame."""
    import pdfplumber

    with pdfplumber.open(pdf) as doc:
        return {page.page_number: float(page.height) for page in doc.pages}


def document_to_truth(document: Document, heights: dict[int, float]) -> dict[str, list]:
    """Variant name -> ground-truth tables (top-left boxes, cells on one grid)."""
    folder = document.pdf.parent
    return {
        name: S.ground_truth_to_tables(
            S.reg_xml_to_regions((folder / f"{name}-reg.xml").read_bytes()),
            S.str_xml_to_cells((folder / f"{name}-str.xml").read_bytes()),
            heights,
        )
        for name in document.variants
    }


def project_to_tables(pdf: Path) -> list:
    """The project's table elements; each element is one table on one page (its bbox is already top-left)."""
    from parsers import parse_pdf

    document = parse_pdf(pdf)
    return [
        Table((Region(e.page, tuple(e.bbox)),), S.rows_to_cells(e.rows))
        for e in document.elements
        if e.type.value == "table"
    ]


def plumber_to_tables(pdf: Path, strategy: str) -> list:
    """pdfplumber `find_tables` with both strategies set to `strategy`; `bbox` is top-left, None cells are ""."""
    import pdfplumber

    settings = {"vertical_strategy": strategy, "horizontal_strategy": strategy}
    tables = []
    with pdfplumber.open(pdf) as doc:
        for page in doc.pages:
            for found in page.find_tables(settings):
                tables.append(Table((Region(page.page_number, tuple(found.bbox)),), S.rows_to_cells(found.extract())))
            page.close()
    return tables


def camelot_to_tables(pdf: Path, flavor: str, **options) -> list:
    """camelot `read_pdf(pages="all")`; `table._bbox` is bottom-left (x1, y1, x2, y2) on the displayed page (checked
    against eu-015's rotated pages), converted with the page's displayed height; `df` cells become the rows."""
    import camelot

    heights = pdf_to_page_heights(pdf)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "No tables found on page-N" and similar, one per page
        found = camelot.read_pdf(str(pdf), pages="all", flavor=flavor, suppress_stdout=True, **options)
    tables = []
    for table in found:
        page = int(table.page)
        box = S.pdf_box_to_box(tuple(float(v) for v in table._bbox), heights[page])
        rows = [[str(value) for value in row] for row in table.df.values.tolist()]
        tables.append(Table((Region(page, box),), S.rows_to_cells(rows)))
    return tables


SYSTEMS = {
    "project": System("project", "parsers", project_to_tables),
    "plumber-lines": System("plumber-lines", "pdfplumber", lambda pdf: plumber_to_tables(pdf, "lines")),
    "plumber-text": System("plumber-text", "pdfplumber", lambda pdf: plumber_to_tables(pdf, "text")),
    "camelot-lattice": System(
        "camelot-lattice", "camelot", lambda pdf: camelot_to_tables(pdf, "lattice", backend="pdfium")
    ),
    "camelot-stream": System("camelot-stream", "camelot", lambda pdf: camelot_to_tables(pdf, "stream")),
}


def system_to_unavailable_reason(system: System) -> str | None:
    """None when the system's library imports, else the import error (the system is then skipped, not fatal)."""
    try:
        importlib.import_module(system.module)
    except Exception as error:  # noqa: BLE001 - an ImportError, or a broken install failing at import time
        return f"{type(error).__name__}: {error}"
    return None


def system_to_result(system: System, documents: list[Document], truths: dict[str, dict]) -> SystemResult:
    """Run one system over the documents; per-document scores, the summed counts and the wall time (seconds)."""
    per_doc, errors = {}, {}
    start = time.perf_counter()
    for document in documents:
        try:
            predicted = system.run(document.pdf)
        except Exception as error:  # noqa: BLE001 - one bad document must not hide the others
            errors[document.name] = f"{type(error).__name__}: {error}"
            predicted = []
        per_doc[document.name] = S.document_to_score(predicted, truths[document.name])
    seconds = time.perf_counter() - start
    detection = sum((score.detection for score in per_doc.values()), Counts(0, 0, 0))
    structure = sum((score.structure for score in per_doc.values()), Counts(0, 0, 0))
    return SystemResult(per_doc, errors, detection, structure, seconds)


def counts_to_cells(counts) -> list[str]:
    """P, R, F1 to three decimals."""
    return [f"{counts.precision:.3f}", f"{counts.recall:.3f}", f"{counts.f1:.3f}"]


def rows_to_markdown(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table (so the output pastes into benchmarks/ICDAR2013.md as is)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def results_to_summary(results: dict[str, SystemResult | str]) -> str:
    """Side by side: tables found, detection P/R/F1, adjacency P/R/F1, seconds; or why a system is unavailable."""
    header = ["system", "tables", "det P", "det R", "det F1", "adj P", "adj R", "adj F1", "seconds"]
    rows = []
    for name, result in results.items():
        if isinstance(result, str):
            rows.append([name, "unavailable: " + result] + [""] * (len(header) - 2))
            continue
        tables = sum(score.predicted_tables for score in result.documents.values())
        det, adj = result.detection, result.structure
        rows.append([name, str(tables)] + counts_to_cells(det) + counts_to_cells(adj) + [f"{result.seconds:.1f}"])
    return rows_to_markdown(header, rows)


def result_to_per_doc(result: SystemResult) -> str:
    """Per document: tables true/predicted, detection TP/pred/GT and F1, adjacency TP/pred/GT and F1, variants."""
    header = ["doc", "GT tables", "pred tables", "det TP/pred/GT", "det F1", "adj TP/pred/GT", "adj F1", "variant"]
    rows = []
    for name, score in result.documents.items():
        det, adj = score.detection, score.structure
        variant = (
            score.detection_variant
            if score.detection_variant == score.structure_variant
            else f"det {score.detection_variant}, adj {score.structure_variant}"
        )
        rows.append(
            [
                name,
                str(score.truth_tables),
                str(score.predicted_tables),
                f"{det.tp}/{det.pred}/{det.gt}",
                f"{det.f1:.3f}",
                f"{adj.tp}/{adj.pred}/{adj.gt}",
                f"{adj.f1:.3f}",
                variant + (" (error)" if name in result.errors else ""),
            ]
        )
    return rows_to_markdown(header, rows)


def result_to_json(result: SystemResult | str) -> dict:
    """JSON-ready: counts with their P/R/F1 added, per-document scores, errors."""

    def counts(c) -> dict:
        return {**asdict(c), "precision": c.precision, "recall": c.recall, "f1": c.f1}

    if isinstance(result, str):
        return {"unavailable": result}
    documents = {
        name: {**asdict(score), "detection": counts(score.detection), "structure": counts(score.structure)}
        for name, score in result.documents.items()
    }
    return {
        "detection": counts(result.detection),
        "structure": counts(result.structure),
        "seconds": result.seconds,
        "errors": result.errors,
        "documents": documents,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated, from: " + ", ".join(SYSTEMS))
    parser.add_argument("--docs", default="", help="comma-separated document names (e.g. eu-015); default all")
    parser.add_argument("--per-doc", action="store_true", help="also print a per-document table for each system")
    parser.add_argument("--json", type=Path, help="write every figure to this JSON file")
    parser.add_argument("--data", type=Path, default=DATA, help=f"dataset folder (default {DATA})")
    args = parser.parse_args(argv)
    names = [name.strip() for name in args.systems.split(",") if name.strip()]
    unknown = [name for name in names if name not in SYSTEMS]
    if unknown:
        parser.error(f"unknown system(s) {unknown}; choose from {list(SYSTEMS)}")
    documents = data_dir_to_documents(args.data)
    if args.docs:
        wanted = set(args.docs.split(","))
        documents = [document for document in documents if document.name in wanted]
    if not documents:
        parser.error(f"no documents found in {args.data}")
    truths = {document.name: document_to_truth(document, pdf_to_page_heights(document.pdf)) for document in documents}
    results: dict[str, SystemResult | str] = {}
    for name in names:
        system = SYSTEMS[name]
        reason = system_to_unavailable_reason(system)
        results[name] = reason if reason else system_to_result(system, documents, truths)
        for doc, error in ({} if reason else results[name].errors).items():
            print(f"{name}: {doc} failed ({error}); scored as no tables", file=sys.stderr)
    print(f"ICDAR 2013 EU: {len(documents)} documents\n")
    print(results_to_summary(results))
    if args.per_doc:
        for name, result in results.items():
            if not isinstance(result, str):
                print(f"\n{name}\n\n{result_to_per_doc(result)}")
    if args.json:
        args.json.write_text(json.dumps({name: result_to_json(r) for name, r in results.items()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
