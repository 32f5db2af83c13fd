"""Print the title each PDF gets and where it came from, to compare titles before and after a change.

    python benchmarks/document_titles.py PDF_OR_FOLDER... [--ocr auto|never]

One Markdown row per PDF: file, display title (`ingest.pipeline.enrich.document_title`: what
`documents.title` stores), its source (`title_source`: filing_cover, outline, typographic,
pdf_info, first_heading) and the issuer, form and period read from a filing cover. Run it on a
checkout before and after a change and diff the output. Measurement only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ingest.pipeline.enrich import document_metadata, document_title  # noqa: E402
from ingest.pipeline.settings import EnrichSettings  # noqa: E402
from parsers import parse_pdf  # noqa: E402


def pdfs_in(paths: list[Path]) -> list[Path]:
    """The PDFs named, and those directly inside the folders named, sorted by name."""
    found: list[Path] = []
    for path in paths:
        found.extend(sorted(path.glob("*.pdf")) if path.is_dir() else [path])
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--ocr", choices=("auto", "never"), default="auto")
    args = parser.parse_args(argv)
    print("| file | title | source | issuer | kind | period |")
    print("|---|---|---|---|---|---|")
    for path in pdfs_in(args.paths):
        try:
            document = parse_pdf(path, {"ocr": {"mode": args.ocr}})
        except Exception as error:  # noqa: BLE001 - one unreadable file must not end the listing
            print(f"| {path.name} | (failed: {type(error).__name__}) | | | | |", flush=True)
            continue
        metadata = document_metadata(document, EnrichSettings())
        facts = [str(metadata.get(key, "")) for key in ("title_source", "issuer", "document_kind", "period")]
        print(f"| {path.name} | {document_title(document, metadata)} | {' | '.join(facts)} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
