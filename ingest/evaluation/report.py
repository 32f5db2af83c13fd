"""Rendering an `EvalReport`: Markdown-style tables for the terminal (and the README), or JSON for scripts."""

from __future__ import annotations

from collections.abc import Sequence

from ingest.contracts.evaluation import EvalReport, Scores, StrategyResult

MISS_PREVIEW_CHARS = 160


_RETRIEVERS = {
    "bm25": "BM25",
    "plain": "plain Okapi BM25 over the chunk text (k1 1.2, b 0.75; no stemming; FTS5 unused)",
    "vector": "vector (cosine; FTS5 unused)",
    "hybrid": "BM25 + vector fused (RRF)",
}


def format_report(report: EvalReport, output_format: str = "table") -> str:
    if output_format == "json":
        return report.model_dump_json(indent=2)
    return format_table(report)


def format_table(report: EvalReport) -> str:
    """The summary table, the per-kind table, then the misses of each strategy with the top chunk retrieved."""
    answered = report.question_count - len(report.skipped)
    lines = [
        f"Golden set {report.golden_path}: {answered} questions on {len(report.documents)} documents"
        + (f" ({len(report.skipped)} skipped)" if report.skipped else "")
        + f"; {_RETRIEVERS.get(report.retriever, report.retriever)}"
        + ("" if report.retriever == "plain" else f" (SQLite FTS5, {report.fts_tokenize!r})")
        + " "
        + f"over child chunks; budget {report.budget_tokens} tokens.",
        "",
    ]
    head = _score_headers(report.ks)
    rows = [
        [
            r.strategy,
            str(r.chunk_count),
            f"{r.mean_tokens:.0f}",
            str(r.parent_count),
            *_cost_cells(r),
            *_score_cells(r.overall, report.ks),
        ]
        for r in report.strategies
    ]
    lines += _markdown_table(["strategy", "chunks", "mean tok", "parents", *COST_HEADERS, *head], rows)
    lines += [f"{r.strategy}: {note}" for r in report.strategies for note in r.notes]
    lines += ["", "Per kind:", ""]
    kind_rows = []
    kinds = sorted({kind for r in report.strategies for kind in r.by_kind})
    for kind in kinds:
        for r in report.strategies:
            scores = r.by_kind.get(kind)
            if scores is not None:
                kind_rows.append([kind, str(scores.questions), r.strategy, *_score_cells(scores, report.ks)])
    lines += _markdown_table(["kind", "n", "strategy", *head], kind_rows)
    lines += _legend(report)
    for r in report.strategies:
        lines += _misses(r, max(report.ks))
    for skipped in report.skipped:
        lines.append(f"skipped line {skipped.line}: {skipped.question!r}: {skipped.reason}")
    return "\n".join(lines).rstrip() + "\n"


#: CPU seconds per page of the documents: chunking (semantic: with its sentence embeddings) and
#: embedding the children ("-" when the retriever embeds nothing).
COST_HEADERS = ["chunk s/page", "embed s/page"]


def _cost_cells(result: StrategyResult) -> list[str]:
    pages = max(result.pages, 1)
    embed = "-" if result.embed_cpu_seconds is None else f"{result.embed_cpu_seconds / pages:.3f}"
    return [f"{result.chunk_cpu_seconds / pages:.3f}", embed]


def _score_headers(ks: Sequence[int]) -> list[str]:
    return [*(f"hit@{k}" for k in ks), *(f"parent@{k}" for k in ks), "budget", "parent budget"]


def _score_cells(scores: Scores, ks: Sequence[int]) -> list[str]:
    return [
        *(f"{scores.hit_at_k[k]:.2f}" for k in ks),
        *(f"{scores.parent_hit_at_k[k]:.2f}" for k in ks),
        f"{scores.budget_hit:.2f}",
        f"{scores.parent_budget_hit:.2f}",
    ]


def _legend(report: EvalReport) -> list[str]:
    return [
        "",
        f"hit@k: a top-k child chunk holds every must_contain phrase (and covers an evidence page when the "
        f"golden item gives `pages`). parent@k: the same with each child "
        f"replaced by its parent section (parents de-duplicated). budget / parent budget: the top contexts "
        f"that fit in {report.budget_tokens} tokens hold the answer. chunks / mean tok: child chunks (the "
        f"indexed units) and their mean size in tokens; parents: parent sections (0 = no parent-child). "
        f"chunk s/page, embed s/page: CPU seconds per page chunking and embedding the children.",
    ]


def _misses(result: StrategyResult, k: int) -> list[str]:
    misses = result.misses(k)
    lines = ["", f"Misses of {result.strategy} (answer not in the top {k}): {len(misses)}"]
    for q in misses:
        where = f" in {q.doc}" if q.doc else ""
        needs = " and ".join(
            part
            for part in (str(q.must_contain) if q.must_contain else "", f"pages {q.pages}" if q.pages else "")
            if part
        )
        lines.append(f"  [{q.kind}] line {q.line}{where}: {q.question!r} needs {needs}")
        if not q.answer_in_text:
            lines.append("      answer not in the parsed text (a parse/OCR loss or a golden typo, not a chunking miss)")
        if q.top_chunk is None:
            lines.append("      top chunk: nothing retrieved")
        else:
            preview = " ".join(q.top_chunk.split())
            if len(preview) > MISS_PREVIEW_CHARS:
                preview = preview[:MISS_PREVIEW_CHARS] + "..."
            rank = f"answer at rank {q.child_rank}" if q.child_rank else "answer not retrieved"
            lines.append(f"      top chunk ({q.top_chunk_doc}; {rank}): {preview}")
    return lines


def _markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A pipe table aligned for the terminal that is also valid Markdown; numbers right-aligned."""
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows)]
    numeric = [all(_is_number(row[i]) for row in rows) and bool(rows) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.rjust(w) if n else c.ljust(w) for c, w, n in zip(cells, widths, numeric)) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if n else ("-" * (w + 2)) for w, n in zip(widths, numeric)) + "|"
    return [line(header), rule, *(line(row) for row in rows)]


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True
