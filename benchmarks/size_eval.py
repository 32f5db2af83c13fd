"""Measure piece sizes (child size, overlap, table piece cap) with `ingest eval`'s own scoring.

    python benchmarks/size_eval.py GOLDEN --db DB --grid child_max_tokens=150,200,300 \
        --grid table_max_tokens=none,100 [--strategies structure,recursive,fixed]

Loads the stored documents once, then runs `evaluate_documents` (the code behind `ingest eval`:
it re-chunks the stored elements in memory and ranks with the same search as `ingest search`)
for every combination of the `--grid` values and prints one Markdown row per combination and
strategy: chunks, mean tokens, hit@1/4/10, parent@4, budget. `none` is None (the setting's
"unset"). The chosen defaults and the figures are in docs/search.md. Measurement only.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ingest.contracts.evaluation import load_golden  # noqa: E402
from ingest.evaluation.evaluate import evaluate_documents  # noqa: E402
from storage.evals import load_stored_documents, stored_fts_tokenize  # noqa: E402
from storage.schema import FTS_TOKENIZE  # noqa: E402


def _value(text: str) -> object:
    return None if text.lower() == "none" else text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("golden", type=Path)
    parser.add_argument("--db", required=True)
    parser.add_argument("--strategies", default="structure,recursive,fixed")
    parser.add_argument("--grid", action="append", default=[], help="KEY=V1,V2,... (repeatable; cross product)")
    args = parser.parse_args(argv)
    keys = [pair.split("=", 1)[0] for pair in args.grid]
    values = [[_value(v) for v in pair.split("=", 1)[1].split(",")] for pair in args.grid]
    documents = load_stored_documents(args.db)
    items = load_golden(args.golden)
    tokenize = stored_fts_tokenize(args.db, default=FTS_TOKENIZE)
    print(f"| {' | '.join(keys)} | strategy | chunks | mean tok | hit@1 | hit@4 | hit@10 | parent@4 | budget |")
    print("|" + "---:|" * len(keys) + "---|---:|---:|---:|---:|---:|---:|---:|")
    for combination in itertools.product(*values):
        settings = {key: value for key, value in zip(keys, combination) if value is not None}
        report = evaluate_documents(
            documents, items, strategies=args.strategies.split(","), chunk_settings=settings, fts_tokenize=tokenize
        )
        for r in report.strategies:
            o = r.overall
            shown = " | ".join("-" if v is None else str(v) for v in combination)
            print(
                f"| {shown} | {r.strategy} | {r.chunk_count} | {r.mean_tokens:.0f} | {o.hit_at_k[1]:.2f} | "
                f"{o.hit_at_k[4]:.2f} | {o.hit_at_k[10]:.2f} | {o.parent_hit_at_k[4]:.2f} | {o.budget_hit:.2f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
