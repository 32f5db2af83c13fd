"""What the `contextual` strategy costs: tokens per 1,000 child chunks, with and without a model.

    python benchmarks/context_cost.py --db DB [--set child_max_tokens=300 ...]

Loads the stored documents, chunks them with `structure` and `contextual` (default settings), and
prints per 1,000 children: the tokens the model-free context line adds (cl100k_base), and for the
model-written context (`ingest.integrations.context_writer`) the prompt's input tokens (system and
user message contents counted with cl100k_base; the few framing tokens a chat template adds per
message are not counted) and the output cap (`max_tokens`). No request is sent: the prompts are
built and counted. docs/chunking.md states the figures and an example price. Measurement only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ingest.chunker import chunk_document  # noqa: E402
from ingest.chunking.settings import ChunkSettings  # noqa: E402
from ingest.integrations.context_writer import ContextWriterSettings, context_prompt  # noqa: E402
from ingest.tokens import tiktoken_counter  # noqa: E402
from storage.evals import load_stored_documents  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--set", action="append", default=[], help="chunk setting KEY=VALUE")
    args = parser.parse_args(argv)
    base = ChunkSettings.model_validate(dict(pair.split("=", 1) for pair in args.set))
    counter = tiktoken_counter(base.encoding)
    writer = ContextWriterSettings(url="http://unused.invalid/v1", model="any")
    children = added = prompt_tokens = 0
    for document in load_stored_documents(args.db).values():
        structure = chunk_document(document, base.model_copy(update={"strategy": "structure"}), counter)
        contextual = chunk_document(document, base.model_copy(update={"strategy": "contextual"}), counter)
        for bare, chunk in zip(structure, contextual):
            if bare.kind != "child":
                continue
            children += 1
            added += chunk.token_count - bare.token_count
            parent = structure[bare.parent] if bare.parent is not None else None
            messages = context_prompt(document, bare, parent, writer)
            prompt_tokens += sum(counter.count(message["content"]) for message in messages)
    per_thousand = 1000 / max(children, 1)
    print(f"child chunks: {children}")
    print(f"model-free context line: {added * per_thousand:,.0f} tokens added per 1,000 children")
    print(f"model-written context: {prompt_tokens * per_thousand:,.0f} input tokens per 1,000 children")
    print(f"                       at most {writer.max_tokens * 1000:,} output tokens per 1,000 children (max_tokens)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
