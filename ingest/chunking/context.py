"""The `contextual` strategy: the structure chunks, each child with a short context line on top.

Retrieval misses a chunk whose words do not name its subject: the third paragraph of a
section ("it is applied at 2 ml per litre") or a table piece whose caption was left out
for room. The context line gives such a child what a reader would see around it, with no
model at all:

- the document title, when the heading path does not already start with it (the path lost
  its outer headings to the half-limit rule of `chunker._fit_path`);
- the caption of the child's table, when the child's body does not hold it;
- the first sentence of the child's section, when the child's body does not hold it.

A child's `text` is then `heading path + " — " + context`, a blank line, then `body`
(the heading path alone, as in `structure`, when nothing is missing), and `metadata.context`
is the added context. `body`, offsets, pages, parents and every other field are the
structure chunk's, so `canonical[char_start:char_end] == body` holds as before and the two
strategies index the same spans. Parents are unchanged (they hold their section's first
sentence already).

Size: the context may add at most `context_max_tokens` to a child (`count(text)` minus the
structure child's count); a longer one is cut at a word and ends with "…". So a child is
at most `child_max_tokens + context_max_tokens` tokens (unless flagged `oversize`).
`chunk_with_context` is the one assembly rule, also used by the LLM generator of
`ingest.integrations.context_writer`, which writes the context instead of these three facts.
"""

from __future__ import annotations

from ingest.chunking.document_line import document_line
from ingest.chunking.prose import sentence_boundaries
from ingest.chunking.settings import ChunkSettings
from ingest.contracts.chunks import HEADING_PATH_SEPARATOR, Chunk
from ingest.contracts.elements import Document, ElementType
from ingest.tokens import TokenCounter

#: Between the heading path and the context, and between the context's facts.
CONTEXT_SEPARATOR = " — "
ELLIPSIS = "…"
#: Element types whose first sentence can open a section (titles are in the path, tables have captions).
_SENTENCE_TYPES = frozenset({ElementType.paragraph, ElementType.list_item})


def chunks_to_contextual(
    document: Document, chunks: list[Chunk], settings: ChunkSettings, counter: TokenCounter
) -> list[Chunk]:
    """The structure `chunks` of `document` with each child's context line (new chunks; input untouched)."""
    openings = section_openings(document, chunks)
    contextual = []
    for chunk in chunks:
        if chunk.kind != "child":
            contextual.append(chunk)
            continue
        facts = context_facts(document, chunk, openings.get(chunk.metadata.get("section")), settings)
        contextual.append(chunk_with_context(chunk, CONTEXT_SEPARATOR.join(facts), settings, counter))
    return contextual


def context_facts(
    document: Document, chunk: Chunk, opening: str | None, settings: ChunkSettings | None = None
) -> list[str]:
    """What the child's own text does not say: document line (`chunking.document_line`), table
    caption, the section's first sentence."""
    carried = _folded(HEADING_PATH_SEPARATOR.join(chunk.heading_path) + "\n" + chunk.body)
    facts = []
    title = document_line(document, ChunkSettings.resolve(settings))
    if title and _folded(title) not in carried:
        facts.append(title)
    for index in _table_elements(chunk):
        caption = (document.elements[index].caption or "").strip()
        if caption and _folded(caption) not in carried and caption not in facts:
            facts.append(caption)
    if opening and _folded(opening) not in carried:
        facts.append(opening)
    return facts


def chunk_with_context(chunk: Chunk, context: str, settings: ChunkSettings, counter: TokenCounter) -> Chunk:
    """`chunk` (a structure child) with `context` after its heading path, cut so that it adds at
    most `settings.context_max_tokens` tokens. An empty context returns the chunk unchanged."""
    context = " ".join(context.split())
    if not context:
        return chunk
    path = HEADING_PATH_SEPARATOR.join(chunk.heading_path)
    words = context.split(" ")
    keep = len(words)
    text, tokens = _assembled(path, context, chunk.body, counter)
    if tokens - chunk.token_count > settings.context_max_tokens:
        low, high = 0, len(words) - 1  # the longest word prefix (plus "…") that fits
        while low < high:
            middle = (low + high + 1) // 2
            if _assembled(path, _cut(words, middle), chunk.body, counter)[1] - chunk.token_count <= (
                settings.context_max_tokens
            ):
                low = middle
            else:
                high = middle - 1
        keep = low
        if keep == 0:
            return chunk
        context = _cut(words, keep)
        text, tokens = _assembled(path, context, chunk.body, counter)
    metadata = {**chunk.metadata, "context": context}
    if keep < len(words):
        metadata["context_truncated"] = True
    if tokens > settings.embedding_limit:
        metadata["over_embedding_limit"] = True
    return chunk.model_copy(update={"text": text, "token_count": tokens, "metadata": metadata})


def context_line(chunk: Chunk) -> str:
    """The first line of a contextual child's text: heading path, then the context (if any)."""
    path = HEADING_PATH_SEPARATOR.join(chunk.heading_path)
    context = chunk.metadata.get("context", "")
    return CONTEXT_SEPARATOR.join(part for part in (path, context) if part)


def section_openings(document: Document, chunks: list[Chunk]) -> dict[int, str]:
    """Per section index (`metadata.section`): the first sentence of its first paragraph or list item."""
    elements_of: dict[int, set[int]] = {}
    for chunk in chunks:
        section = chunk.metadata.get("section")
        if section is not None:
            elements_of.setdefault(section, set()).update(chunk.element_indexes)
    openings = {}
    for section, indexes in elements_of.items():
        for index in sorted(indexes):
            element = document.elements[index]
            if element.type in _SENTENCE_TYPES and element.text.strip():
                openings[section] = first_sentence(element.text)
                break
    return openings


def first_sentence(text: str) -> str:
    """`text` up to its first sentence end (the prose splitter's rule: abbreviations and initials
    do not end one), on one line; the whole text when it has no sentence end."""
    ends = sentence_boundaries(text, 0, len(text))
    return " ".join(text[: ends[0] if ends else len(text)].split())


def _assembled(path: str, context: str, body: str, counter: TokenCounter) -> tuple[str, int]:
    line = CONTEXT_SEPARATOR.join(part for part in (path, context) if part)
    text = f"{line}\n\n{body}"
    return text, counter.count(text)


def _cut(words: list[str], keep: int) -> str:
    return " ".join(words[:keep]) + " " + ELLIPSIS


def _table_elements(chunk: Chunk) -> list[int]:
    if "table_element" in chunk.metadata:
        return [chunk.metadata["table_element"]]
    return list(chunk.metadata.get("table_elements", []))


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()
