"""Chunking throughput: our strategies against LangChain's RecursiveCharacterTextSplitter.

    python benchmarks/bench_chunk.py [PDF ...] [--child 300] [--overlap 50] [--repeat 5]

Parses each PDF once (default: ../shared/corpus/chelsea_pdta.pdf), then times, on the
same document, `chunk_document` with each strategy and LangChain's splitter on the
document's canonical text with the same size in tokens (its `length_function` is our
offline cl100k counter, so nothing is downloaded). Prints a Markdown table: input
tokens per second (best of --repeat runs), chunks produced, mean tokens per child.
Measurement only: no assertion, no timing in tests.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ingest.chunker import chunk_document  # noqa: E402
from ingest.chunking.settings import ChunkSettings
from ingest.tokens import tiktoken_counter  # noqa: E402
from parsers.pdf import parse_pdf  # noqa: E402

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def best_time(function, repeat: int):
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return min(times), statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdfs", nargs="*", type=Path, default=[CORPUS / "chelsea_pdta.pdf"])
    parser.add_argument("--child", type=int, default=300)
    parser.add_argument("--overlap", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    from langchain_text_splitters import RecursiveCharacterTextSplitter

    counter = tiktoken_counter("cl100k_base")
    print(
        "| document | splitter | input tokens | tokens/s (best) | tokens/s (median) | chunks "
        "| mean / max child tokens |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for pdf in args.pdfs:
        started = time.perf_counter()
        document = parse_pdf(pdf, None)
        parse_seconds = time.perf_counter() - started
        text = document.canonical_text()
        tokens = counter.count(text)
        runs = {}
        for strategy in ("structure", "recursive", "fixed"):
            config = ChunkSettings(strategy=strategy, child_max_tokens=args.child, overlap_tokens=args.overlap)
            # a fresh counter cache each run: tiktoken_counter is shared, our span cache lives per call
            runs[f"ours: {strategy}"] = best_time(lambda: chunk_document(document, config, counter), args.repeat)  # noqa: B023 - timed at once, in this iteration
        splitter = RecursiveCharacterTextSplitter(
            chunk_size=args.child, chunk_overlap=args.overlap, length_function=counter.count
        )
        runs["LangChain RecursiveCharacterTextSplitter"] = best_time(lambda: splitter.split_text(text), args.repeat)  # noqa: B023 - timed at once, in this iteration
        for name, (best, median, result) in runs.items():
            if name.startswith("ours"):
                children = [c for c in result if c.kind == "child"]
                sizes = [c.token_count for c in children]
                count = f"{len(children)} children" + (
                    f" + {len(result) - len(children)} parents" if len(result) > len(children) else ""
                )
            else:
                sizes = [counter.count(chunk) for chunk in result]
                count = f"{len(result)}"
            print(
                f"| {pdf.name} ({document.page_count} p) | {name} | {tokens:,} | {tokens / best:,.0f} | "
                f"{tokens / median:,.0f} | {count} | {statistics.mean(sizes):.0f} / {max(sizes)} |"
            )
        print(
            f"\n(parse: {parse_seconds:.1f} s for {document.page_count} pages; child {args.child} tokens, "
            f"overlap {args.overlap}; best and median of {args.repeat} runs)",
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()
