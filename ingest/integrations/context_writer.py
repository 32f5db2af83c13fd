"""An LLM writes each child's context line: the pluggable generator of the `contextual` strategy.

Off by default and never needed: without it the `contextual` strategy builds its context line
with no model (`ingest.chunking.context`: title, table caption, the section's first sentence).
With `ContextWriterSettings`, each child's context is instead a blurb written by a model behind
an OpenAI-compatible HTTP endpoint (`POST {url}/chat/completions`: OpenAI, vLLM, llama.cpp's
server, Ollama's `/v1`, ...), one request per child, standard library only (`urllib`).

The prompt (`context_prompt`) gives the model the document title, the child's heading path,
the start of its section (its parent's body, at most `section_max_chars` characters; a child
that is its whole section has none) and the child's body; the answer, whitespace collapsed,
goes where the model-free context would (`chunk_with_context`: after the heading path, at most
`context_max_tokens` tokens added). So `body`, offsets and pages stay the structure chunk's.

Cost: one request per child chunk, input about the prompt's tokens, output at most
`max_tokens`; docs/chunking.md gives the figures per 1,000 chunks measured on the fixtures.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence

from pydantic import Field

from ingest.chunking.context import chunk_with_context
from ingest.chunking.settings import ChunkSettings
from ingest.contracts.chunks import HEADING_PATH_SEPARATOR, Chunk
from ingest.contracts.elements import Document
from ingest.contracts.errors import ContextWriterError
from ingest.contracts.settings import StageSettings
from ingest.tokens import TokenCounter

#: A chat message list in, the model's answer out (`request_context` over HTTP; tests pass a function).
Messages = list[dict[str, str]]
AskModel = Callable[[Messages], str]

SYSTEM_PROMPT = (
    "You situate one chunk of a document for search. Reply with one or two short sentences that say "
    "what the chunk is about and where it belongs in the document (the document, the section, the table "
    "or topic), using the document's own terms. Do not repeat the chunk's figures. Reply with the "
    "sentences only."
)


class ContextWriterSettings(StageSettings):
    """Where and how to ask. `url` is the API base (`.../v1`); `/chat/completions` is appended
    unless it is already there. The key is read from the environment variable `api_key_env`
    (sent as `Authorization: Bearer`), never from a file or the command line."""

    url: str = Field(min_length=1, description="OpenAI-compatible API base, e.g. http://127.0.0.1:8000/v1")
    model: str = Field(min_length=1, description="model name sent in the request")
    api_key_env: str | None = Field(default=None, description="environment variable holding the API key")
    timeout_s: float = Field(default=30.0, gt=0, description="seconds to wait for one answer")
    max_tokens: int = Field(default=80, ge=1, description="output cap per chunk, in the model's tokens")
    section_max_chars: int = Field(default=2000, ge=0, description="characters of the section's start in the prompt")

    @property
    def endpoint(self) -> str:
        base = self.url.rstrip("/")
        return base if base.endswith("/chat/completions") else base + "/chat/completions"


def write_contexts(
    document: Document,
    chunks: Sequence[Chunk],
    writer: ContextWriterSettings,
    settings: ChunkSettings,
    counter: TokenCounter,
    ask: AskModel | None = None,
) -> list[Chunk]:
    """The structure `chunks` of `document` with each child's context written by the model (new
    chunks; parents unchanged). `ask` defaults to `request_context` with `writer`; ContextWriterError
    (naming the URL) when a request fails."""
    ask = ask or (lambda messages: request_context(messages, writer))
    written = []
    for chunk in chunks:
        if chunk.kind != "child":
            written.append(chunk)
            continue
        parent = chunks[chunk.parent] if chunk.parent is not None else None
        blurb = ask(context_prompt(document, chunk, parent, writer))
        written.append(chunk_with_context(chunk, blurb, settings, counter))
    return written


def context_prompt(document: Document, chunk: Chunk, parent: Chunk | None, writer: ContextWriterSettings) -> Messages:
    """The chat messages for one child (pure): system instruction, then title, path, section start, chunk."""
    title = (document.title or "").strip() or os.path.basename(document.source_path)
    lines = [f"Document: {title}"]
    if chunk.heading_path:
        lines.append(f"Section: {HEADING_PATH_SEPARATOR.join(chunk.heading_path)}")
    if parent is not None and writer.section_max_chars:
        lines += ["", "Start of the section:", parent.body[: writer.section_max_chars]]
    lines += ["", "Chunk:", chunk.body]
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n".join(lines)}]


def request_context(messages: Messages, writer: ContextWriterSettings) -> str:
    """One chat completion: the answer's text. ContextWriterError, naming the endpoint, on a
    connection failure, timeout, HTTP error status, or an answer with no text."""
    payload = {"model": writer.model, "messages": messages, "max_tokens": writer.max_tokens, "temperature": 0}
    headers = {"Content-Type": "application/json"}
    if writer.api_key_env:
        key = os.environ.get(writer.api_key_env)
        if not key:
            raise ContextWriterError(
                f"the environment variable {writer.api_key_env} (the API key for {writer.endpoint}) is not set"
            )
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(
        writer.endpoint, data=json.dumps(payload).encode("utf-8"), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=writer.timeout_s) as response:
            answer = json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        detail = error.read()[:200].decode("utf-8", "replace")
        raise ContextWriterError(f"{writer.endpoint} answered HTTP {error.code}: {detail}") from error
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise ContextWriterError(
            f"cannot reach {writer.endpoint} ({reason}); check the URL and that the server runs"
        ) from error
    except ValueError as error:
        raise ContextWriterError(f"{writer.endpoint} answered something that is not JSON: {error}") from error
    try:
        text = answer["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        text = None
    if not isinstance(text, str) or not text.strip():
        raise ContextWriterError(f"{writer.endpoint} answered no text (choices[0].message.content): {answer!r:.200}")
    return " ".join(text.split())
