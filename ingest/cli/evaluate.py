"""`ingest eval`: option strings parsed here; the library side is ingest/evaluation/evaluate.py."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from ingest.cli.common import (
    ConfigOption,
    DbOption,
    app,
    call,
)

# ---------------------------------------------------------------------------------------------
# EVAL COMMAND (the library side is ingest/evaluation/evaluate.py).
# ---------------------------------------------------------------------------------------------


GOLDEN_HELP = (
    "Golden set: JSONL lines {question, must_contain?, pages?, doc?, kind?, note?}; must_contain "
    "and/or pages (evidence pages, 1-based) are required; with pages, a hit must cover one."
)


@app.command("eval")
def eval_command(
    golden: Path = typer.Argument(..., help=GOLDEN_HELP),
    db: Optional[str] = DbOption,
    config: Optional[Path] = ConfigOption,
    strategies: Optional[str] = typer.Option(
        None,
        "--strategies",
        help="Comma-separated chunking strategies to compare: structure, recursive, fixed, contextual, semantic, "
        "late, naive (2,000-character windows, no overlap), langchain (LangChain's RecursiveCharacterTextSplitter, "
        "1,000/200 characters; needs langchain-text-splitters) (default: all but langchain; semantic, and late "
        "with vector/hybrid, load the --model).",
    ),
    k: str = typer.Option("1,4,10", "--k", help="Comma-separated cut-offs for hit@k."),
    budget: int = typer.Option(1200, "--budget", help="Prompt budget in tokens for the budget hit."),
    chunk_set: list[str] = typer.Option(
        [], "--set", help="Chunk setting KEY=VALUE for every strategy, e.g. child_max_tokens=200 (repeatable)."
    ),
    retriever: str = typer.Option(
        "bm25",
        "--retriever",
        help="bm25 (as ingest search), plain (a plain Okapi BM25 over each chunk's text: lowercase words, no "
        "stemming, k1 1.2, b 0.75, what a team's own index sees), vector or hybrid (as ingest search; they "
        "embed the re-chunked texts).",
    ),
    model: Optional[str] = typer.Option(
        None, "--model", "-m", help="Embedding model for vector/hybrid and for the semantic and late strategies."
    ),
    context_url: Optional[str] = typer.Option(
        None,
        "--context-url",
        help="contextual strategy: OpenAI-compatible API base (e.g. http://127.0.0.1:8000/v1) whose model writes "
        "each chunk's context line (default: built with no model). One request per child chunk.",
    ),
    context_model: Optional[str] = typer.Option(None, "--context-model", help="Model name for --context-url."),
    context_key_env: Optional[str] = typer.Option(
        None, "--context-key-env", help="Environment variable holding the API key for --context-url."
    ),
    vector_cache: Optional[Path] = typer.Option(
        None,
        "--vector-cache",
        help="vector/hybrid (and semantic's sentences): a file of text vectors kept between runs (created if missing); "
        "a text embedded once by the model is never embedded again.",
    ),
    output: str = typer.Option("table", "--format", "-f", help="table or json."),
) -> None:
    """Re-chunk the stored documents with each strategy and measure how often search brings the answer to the top.

    Prints hit@k, parent-expanded hit@k, budget hit, chunk counts, mean tokens and CPU seconds
    per page (chunking, embedding), per kind,
    and the misses with the top chunk retrieved; stores one row per strategy in `eval_runs`.
    """
    from ingest.evaluation.report import format_report

    if output not in ("table", "json"):
        raise typer.BadParameter(f"must be 'table' or 'json', not {output!r}", param_hint="--format")
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = call(api.resolve_db, db, config)
    writer = None
    if context_url:
        if not context_model:
            raise typer.BadParameter("--context-url needs --context-model", param_hint="--context-model")
        writer = {"url": context_url, "model": context_model, "api_key_env": context_key_env}

    report = call(
        api.evaluate,
        golden,
        db=db,
        config=config,
        strategies=comma_list(strategies, "--strategies") if strategies is not None else None,
        ks=[number(value, "--k") for value in comma_list(k, "--k")],
        budget=budget,
        chunk_settings=key_values(chunk_set, "--set"),
        retriever=retriever,
        model=model,
        context_writer=writer,
        vector_cache=vector_cache,
    )
    sys.stdout.write(format_report(report, output))


def comma_list(value: str, option: str) -> list[str]:
    """'1,4,10' -> ['1', '4', '10']; an empty list is a usage error."""
    parts = [part.strip() for part in value.split(",") if part.strip()]
    if not parts:
        raise typer.BadParameter("needs at least one value, e.g. 1,4,10", param_hint=option)
    return parts


def number(value: str, option: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise typer.BadParameter(
            f"takes comma-separated integers such as 1,4,10, not {value!r}", param_hint=option
        ) from None


def key_values(pairs: list[str], option: str) -> dict[str, str]:
    """['child_max_tokens=200'] -> {'child_max_tokens': '200'}; ChunkSettings validates the values."""
    found = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(
                f"takes KEY=VALUE (a chunk setting such as child_max_tokens=200), not {pair!r}", param_hint=option
            )
        found[key.strip()] = value.strip()
    return found
