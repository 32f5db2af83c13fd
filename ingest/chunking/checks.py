"""The chunker's invariants as a pure check: a list of violations, empty when all hold.

Used by the property and fixture tests, and usable by a pipeline that wants to verify
a chunk list before storing it. Each message names the chunk index.
"""

from __future__ import annotations

import re

from ingest.chunking.context import CONTEXT_SEPARATOR
from ingest.chunking.merge import sections_to_chunk
from ingest.chunking.packing import Context
from ingest.chunking.prose import sentence_boundaries
from ingest.chunking.sections import ListBlock, ProseBlock, TableBlock
from ingest.chunking.settings import ChunkSettings
from ingest.contracts.chunks import HEADING_PATH_SEPARATOR, Chunk
from ingest.contracts.elements import Document
from ingest.tokens import TokenCounter


def chunk_violations(
    document: Document, chunks: list[Chunk], settings: ChunkSettings, counter: TokenCounter
) -> list[str]:
    """Check a `structure` chunk list against the contract in the README (Chunking)."""
    problems: list[str] = []
    canonical = document.canonical_text()
    sections = sections_to_chunk(document, Context(canonical, counter), settings)
    section_of = {i: s.index for s in sections for i in s.element_indexes}
    furniture = [e.text.strip() for e in document.elements if e.is_furniture and e.text.strip()]
    for position, chunk in enumerate(chunks):
        where = f"chunk {position}"
        if chunk.index != position:
            problems.append(f"{where}: index {chunk.index}")
        path = HEADING_PATH_SEPARATOR.join(chunk.heading_path)
        if chunk.text != (f"{path}\n\n{chunk.body}" if path else chunk.body):
            problems.append(f"{where}: text is not heading path + blank line + body")
        if chunk.token_count != counter.count(chunk.text):
            problems.append(f"{where}: token_count {chunk.token_count} != {counter.count(chunk.text)}")
        limit = settings.child_max_tokens if chunk.kind == "child" else settings.parent_max_tokens
        if chunk.token_count > limit and not chunk.metadata.get("oversize"):
            problems.append(f"{where}: {chunk.token_count} tokens over the {chunk.kind} limit {limit}, not flagged")
        if (
            chunk.kind == "child"
            and "table_element" in chunk.metadata
            and chunk.token_count > settings.table_limit
            and not chunk.metadata.get("oversize")
        ):
            problems.append(f"{where}: table piece of {chunk.token_count} tokens over table_max_tokens")
        if chunk.metadata.get("oversize") and not set(chunk.element_types) & {"table", "caption"}:
            problems.append(f"{where}: oversize outside a table")
        if (chunk.token_count > settings.embedding_limit) != bool(chunk.metadata.get("over_embedding_limit")):
            problems.append(f"{where}: over_embedding_limit flag wrong")
        is_table = (
            "table_element" in chunk.metadata
            or "table_elements" in chunk.metadata
            or (chunk.kind == "parent" and "table" in chunk.element_types)
        )
        if not is_table and canonical[chunk.char_start : chunk.char_end] != chunk.body:
            problems.append(f"{where}: body is not canonical[{chunk.char_start}:{chunk.char_end}]")
        owners = {section_of.get(i) for i in chunk.element_indexes}
        if len(owners) != 1 or None in owners:
            problems.append(f"{where}: elements from sections {owners}")
        else:
            section = sections[owners.pop()]
            if chunk.heading_path[: len(section.heading_path)] != section.heading_path and not chunk.metadata.get(
                "heading_path_truncated"
            ):
                problems.append(f"{where}: heading path {chunk.heading_path} not its section's {section.heading_path}")
            if chunk.metadata.get("section") != section.index:
                problems.append(f"{where}: metadata section {chunk.metadata.get('section')} != {section.index}")
        for text in furniture:
            if text in chunk.text and text not in canonical:
                problems.append(f"{where}: furniture text {text!r} in chunk text")
        if chunk.metadata.get("overlap_tokens", 0) > settings.overlap_tokens:
            problems.append(f"{where}: overlap {chunk.metadata['overlap_tokens']} > {settings.overlap_tokens}")
        if chunk.kind == "parent":
            if chunk.parent is not None:
                problems.append(f"{where}: a parent with a parent")
            continue
        problems.extend(_child_problems(chunk, chunks, where))
    problems.extend(_coverage_problems(document, sections, chunks, canonical))
    return problems


def contextual_violations(
    document: Document, chunks: list[Chunk], settings: ChunkSettings, counter: TokenCounter
) -> list[str]:
    """Check a `contextual` chunk list: each child's text is heading path, " — " and its
    `metadata.context` (when it has one), a blank line, then body; the context adds at most
    `context_max_tokens`; and with the context taken out, every `structure` invariant holds."""
    problems: list[str] = []
    structure = []
    for position, chunk in enumerate(chunks):
        path = HEADING_PATH_SEPARATOR.join(chunk.heading_path)
        context = chunk.metadata.get("context")
        bare = f"{path}\n\n{chunk.body}" if path else chunk.body
        if context is None:
            structure.append(chunk)
            continue
        where = f"chunk {position}"
        line = CONTEXT_SEPARATOR.join(part for part in (path, context) if part)
        if chunk.kind != "child":
            problems.append(f"{where}: a {chunk.kind} with a context line")
        if chunk.text != f"{line}\n\n{chunk.body}":
            problems.append(f"{where}: text is not heading path + context + blank line + body")
        if chunk.token_count != counter.count(chunk.text):
            problems.append(f"{where}: token_count {chunk.token_count} != {counter.count(chunk.text)}")
        if (chunk.token_count > settings.embedding_limit) != bool(chunk.metadata.get("over_embedding_limit")):
            problems.append(f"{where}: over_embedding_limit flag wrong")
        bare_tokens = counter.count(bare)
        if chunk.token_count - bare_tokens > settings.context_max_tokens:
            problems.append(f"{where}: context adds {chunk.token_count - bare_tokens} > {settings.context_max_tokens}")
        metadata = {k: v for k, v in chunk.metadata.items() if k not in ("context", "context_truncated")}
        metadata.pop("over_embedding_limit", None)
        if bare_tokens > settings.embedding_limit:
            metadata["over_embedding_limit"] = True
        structure.append(chunk.model_copy(update={"text": bare, "token_count": bare_tokens, "metadata": metadata}))
    return problems + chunk_violations(document, structure, settings, counter)


def _child_problems(chunk: Chunk, chunks: list[Chunk], where: str) -> list[str]:
    problems = []
    if chunk.parent is None:
        return []  # a section that fits in one child: it stands for itself (no twin parent)
    if not 0 <= chunk.parent < chunk.index or chunks[chunk.parent].kind != "parent":
        return [f"{where}: parent {chunk.parent} is not an earlier parent"]
    parent = chunks[chunk.parent]
    if any(c.kind == "parent" for c in chunks[chunk.parent + 1 : chunk.index]):
        problems.append(f"{where}: not right after its parent's other children")
    if not parent.char_start <= chunk.char_start <= chunk.char_end <= parent.char_end:
        problems.append(f"{where}: span outside parent {parent.index}")
    if "table_element" in chunk.metadata:
        lines = chunk.body.split("\n")
        header = [line for line in lines if line.startswith("| ---") or line.startswith("|---")]
        if len(header) > 1:
            problems.append(f"{where}: table header {len(header)} times")
        for line in lines:
            if (
                line.startswith("|")
                and not line.startswith("| ---")
                and line not in parent.body
                and "table_columns" not in chunk.metadata
            ):
                problems.append(f"{where}: row {line[:40]!r} not in parent {parent.index}")
    elif "table_elements" in chunk.metadata and chunk.body != parent.body:
        problems.append(f"{where}: a child with tables and prose is not its whole parent {parent.index}")
    elif chunk.body not in parent.body:
        problems.append(f"{where}: body not inside parent {parent.index}")
    return problems


def _coverage_problems(document: Document, sections, chunks: list[Chunk], canonical: str) -> list[str]:
    """Nothing of the body lost: child spans cover every non-space character of prose and
    lists; every table cell and caption appears in a child of its table."""
    problems = []
    covered = bytearray(len(canonical))
    table_text: dict[int, str] = {}
    whole: list[Chunk] = []
    for chunk in chunks:
        if chunk.kind != "child":
            continue
        if "table_element" in chunk.metadata:
            key = chunk.metadata["table_element"]
            table_text[key] = table_text.get(key, "") + "\n" + chunk.body
        elif "table_elements" in chunk.metadata:
            whole.append(chunk)
            for key in chunk.metadata["table_elements"]:
                table_text[key] = table_text.get(key, "") + "\n" + chunk.body
        else:
            covered[chunk.char_start : chunk.char_end] = b"\x01" * (chunk.char_end - chunk.char_start)
    for section in sections:
        for block in section.blocks:
            if isinstance(block, (ProseBlock, ListBlock)):
                for chunk in whole:  # a whole-parent child holds its prose verbatim
                    start, end = max(block.start, chunk.char_start), min(block.end, chunk.char_end)
                    if start < end and canonical[start:end] in chunk.body:
                        covered[start:end] = b"\x01" * (end - start)
                lost = [i for i in range(block.start, block.end) if not covered[i] and not canonical[i].isspace()]
                if lost:
                    problems.append(f"section {section.index}: characters {lost[0]}..{lost[-1]} in no child")
            elif isinstance(block, TableBlock):
                text = table_text.get(block.element, "")
                if block.caption and block.caption not in text:
                    problems.append(f"table {block.element}: caption in no child")
                words = {w for row in block.rows for cell in row for w in cell.split()}
                missing = [w for w in words if not _word_in(w.replace("|", "\\|"), text)]
                if missing:  # a word too long for a piece is hard-cut between pieces, in order
                    streams = (_cell_stream(text), _cell_stream(text, without_labels=True))
                    missing = [w for w in missing if not any(re.sub(r"\s+", "", w) in s for s in streams)]
                if missing:
                    problems.append(f"table {block.element}: cell words {missing[:3]} in no child")
    return problems


def _cell_stream(text: str, without_labels: bool = False) -> str:
    """The table pieces' cell text in order with no markup, header rows or spaces: a word that
    alone outgrows a piece (long unspaced CJK cells at small sizes) is cut between pieces, and
    its parts then run on in this stream. Each piece repeats its header row, the line right
    above a `| --- |` separator; both are left out. Each piece also keeps its row's label (the
    first cell, `tables.py`), which stands between the parts of a cell cut there: with
    `without_labels` the first cells are left out too (normal_4pages p2's "장출혈성대장균감" /
    "염증," under the label "대상질병")."""
    lines = text.split("\n")
    header = {i - 1 for i, line in enumerate(lines) if line.startswith("| ---")}
    separators = {i + 1 for i in header}
    cells = [line for i, line in enumerate(lines) if line.startswith("|") and i not in header | separators]
    if without_labels:
        cells = ["|".join(line.split("|")[2:]) for line in cells]
    return re.sub(r"[\s|]+", "", "".join(cells))


def _word_in(word: str, text: str) -> bool:
    """A cell word is kept when it is in the text whole, or in parts cut at its sentence
    ends: a long cell is split like prose, and CJK sentences end with no space after them."""
    if word in text:
        return True
    cuts = [0, *sentence_boundaries(word, 0, len(word)), len(word)]
    parts = [word[a:b] for a, b in zip(cuts, cuts[1:])]
    return len(parts) > 1 and all(part in text for part in parts)
