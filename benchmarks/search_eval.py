"""Measure the search choices (FTS5 tokenizer, heading-path weight) with `ingest eval`'s own scoring.

    python benchmarks/search_eval.py GOLDEN --db DB [--strategies structure,recursive,fixed]

Loads the stored documents once, then runs `evaluate_documents` (the code behind `ingest eval`,
same query builder and bm25 ranking as `ingest search`) for each tokenizer x heading weight and
prints one Markdown row per variant and strategy: hit@1/4/10, parent@4, budget, parent budget.
The chosen defaults (storage.schema.FTS_TOKENIZE, storage.search.HEADING_WEIGHT) and the
figures are in docs/search.md. Measurement only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ingest.contracts.evaluation import load_golden  # noqa: E402
from ingest.evaluation.evaluate import evaluate_documents  # noqa: E402
from storage.evals import load_stored_documents  # noqa: E402

TOKENIZERS = ("unicode61 remove_diacritics 2", "porter unicode61 remove_diacritics 2")
HEADING_WEIGHTS = (1.0, 2.0, 4.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("golden", type=Path)
    parser.add_argument("--db", required=True)
    parser.add_argument("--strategies", default="structure,recursive,fixed")
    parser.add_argument("--tokenizers", default=",".join(TOKENIZERS))
    parser.add_argument("--weights", default=",".join(str(w) for w in HEADING_WEIGHTS))
    args = parser.parse_args(argv)
    documents = load_stored_documents(args.db)
    items = load_golden(args.golden)
    strategies = args.strategies.split(",")
    print(
        "| tokenizer | heading weight | strategy | chunks | mean tok | hit@1 | hit@4 | hit@10 | parent@4 "
        "| budget | parent budget |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for tokenize in args.tokenizers.split(","):
        for weight in (float(w) for w in args.weights.split(",")):
            report = evaluate_documents(
                documents, items, strategies=strategies, fts_tokenize=tokenize, weights=(weight, 1.0)
            )
            for r in report.strategies:
                o = r.overall
                print(
                    f"| {tokenize.split()[0]} | {weight:g} | {r.strategy} | {r.chunk_count} | {r.mean_tokens:.0f} | "
                    f"{o.hit_at_k[1]:.2f} | {o.hit_at_k[4]:.2f} | {o.hit_at_k[10]:.2f} | {o.parent_hit_at_k[4]:.2f} | "
                    f"{o.budget_hit:.2f} | {o.parent_budget_hit:.2f} |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
