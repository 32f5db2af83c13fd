"""FinanceBench questions -> the golden format of `ingest eval` (evidence pages, no phrases).

    python benchmarks/financebench.py [QUESTIONS_JSONL | FOLDER] [-o OUT_JSONL]
    python benchmarks/financebench.py ../shared/bench/financebench-val -o val_golden.jsonl

Reads ../shared/bench/financebench-dev/questions.jsonl by default, or FOLDER/questions.jsonl
for a folder (the validation folder has the same format; see its README), and
writes one golden item per question: `question` verbatim, `doc` the PDF's file name (so
retrieval is restricted to that document, as the README's measure says: one index per
document), `pages` the 1-based evidence pages, `kind` `financebench`, and the FinanceBench id
in `note`. FinanceBench's answers are often computed figures, not phrases of the PDF, so
`must_contain` stays empty: the measure is evidence-page hit@k and its 1,200-token budget
variant, which `ingest eval` reports for items with `pages`.

Then, with the 12 filings ingested into a database:

    ingest run ../shared/bench/financebench-dev --db /tmp/fb.db
    ingest eval financebench_golden.jsonl --db /tmp/fb.db
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

DEFAULT_QUESTIONS = Path(__file__).resolve().parents[2] / "shared" / "bench" / "financebench-dev" / "questions.jsonl"


def question_to_golden(record: dict) -> dict:
    """One FinanceBench record -> one golden item (pages only; see the module docstring)."""
    pages = sorted({int(page) for page in record["evidence_pages"]})
    if not pages or pages[0] < 1:
        raise ValueError(f"{record.get('id')}: evidence_pages must be 1-based page numbers, got {pages}")
    return {
        "question": record["question"],
        "pages": pages,
        "doc": record["doc"],
        "kind": "financebench",
        "note": record["id"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "questions", nargs="?", type=Path, default=DEFAULT_QUESTIONS, help="questions.jsonl, or a folder holding one"
    )
    parser.add_argument("-o", "--output", type=Path, default=None, help="output JSONL (default: stdout)")
    args = parser.parse_args(argv)
    if args.questions.is_dir():
        args.questions = args.questions / "questions.jsonl"
    lines = [
        json.dumps(question_to_golden(json.loads(line)), ensure_ascii=False)
        for line in args.questions.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    text = "\n".join(lines) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
        print(f"{len(lines)} questions -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
