"""Late chunking: embed a section once, then pool each chunk's vector from the section's token
embeddings, so a chunk's vector carries what the rest of its section says (Günther et al.,
"Late Chunking", 2024). The chunks are the `structure` strategy's; only their vectors differ.

For each section (consecutive child chunks with the same `metadata["section"]`):

    window text = heading path + blank line + the section's chunk bodies (each canonical span
    once, however much neighbours overlap; a serialized table piece as it is indexed)
    -> one model pass -> each chunk's vector = mean of the token embeddings of the special
    tokens, the heading path and the chunk's own span, scaled to length 1

The pooled tokens are exactly those the ordinary embedding of the chunk's `text` averages, so
a chunk alone in its window gets the ordinary vector. The packaged model reads at most
`max_tokens` (256) tokens: a longer section falls back to windows of at most that size, each
holding whole consecutive chunks and the heading path (a chunk then sees its neighbours in the
window, not its whole section); a chunk longer than a window alone is embedded from its first
tokens, like `ingest embed` does. `LateVectors` counts each case, and `ingest eval` says them.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from ingest.contracts.chunks import HEADING_PATH_SEPARATOR, Chunk

if TYPE_CHECKING:
    import numpy as np

#: Window texts sent to the model per batch.
BATCH = 16


@dataclass(frozen=True)
class TokenVectors:
    """One text's last hidden state: a row per model token (special tokens included, padding
    not), each token's character span in the text ((0, 0) for special tokens), whether it is
    special, and whether the text was cut at the model's limit."""

    vectors: np.ndarray
    offsets: list[tuple[int, int]]
    special: list[bool]
    truncated: bool


class TokenEmbedder(Protocol):
    """What late chunking needs of a model (`ingest.integrations.embed.Embedder` has it)."""

    @property
    def max_tokens(self) -> int: ...

    def token_offsets(self, text: str) -> list[tuple[int, int]]: ...

    def token_vectors(self, texts: Sequence[str]) -> list[TokenVectors]: ...


@dataclass
class LateVectors:
    """One unit vector per chunk (input order) and how the sections met the model's limit."""

    vectors: list[list[float]] = field(default_factory=list)
    sections: int = 0
    whole_sections: int = 0
    windows: int = 0
    truncated_chunks: int = 0

    def add_counts(self, other: LateVectors) -> None:
        """Add `other`'s counts to these (a report over several documents); vectors are not kept."""
        self.sections += other.sections
        self.whole_sections += other.whole_sections
        self.windows += other.windows
        self.truncated_chunks += other.truncated_chunks

    def describe(self, max_tokens: int) -> str:
        split = self.sections - self.whole_sections
        return (
            f"{self.whole_sections} of {self.sections} sections embedded whole in one pass; "
            f"{split} longer than the model's {max_tokens} tokens fell back to windows of at most "
            f"{max_tokens} tokens ({self.windows} passes in all); {self.truncated_chunks} chunks longer "
            "than a window embedded from their first tokens"
        )


@dataclass
class _Window:
    text: str
    path_end: int
    spans: list[tuple[int, int, int]]  # (chunk position, start, end) in `text`
    whole_section: bool


def late_chunk_vectors(canonical: str, chunks: Sequence[Chunk], embedder: TokenEmbedder) -> LateVectors:
    """Vectors for `chunks` (the children of one document, in order) pooled from section windows."""
    windows: list[_Window] = []
    result = LateVectors()
    for group in _sections(chunks):
        section_windows = _section_windows(canonical, chunks, group, embedder)
        result.sections += 1
        result.whole_sections += section_windows[0].whole_section
        windows.extend(section_windows)
    result.windows = len(windows)
    vectors: list[list[float]] = [[] for _ in chunks]
    for at in range(0, len(windows), BATCH):
        part = windows[at : at + BATCH]
        for window, tokens in zip(part, embedder.token_vectors([w.text for w in part])):
            for position, start, end in window.spans:
                vectors[position] = _pool(tokens, window.path_end, start, end)
                result.truncated_chunks += tokens.truncated and len(window.spans) == 1
    result.vectors = vectors
    return result


def _sections(chunks: Sequence[Chunk]) -> list[list[int]]:
    """Positions of consecutive chunks of one section (a chunk without `section` is alone)."""
    groups: list[list[int]] = []
    previous = object()
    for position, chunk in enumerate(chunks):
        section = chunk.metadata.get("section", object())
        if groups and section == previous:
            groups[-1].append(position)
        else:
            groups.append([position])
        previous = section
    return groups


def _section_windows(canonical: str, chunks: Sequence[Chunk], group: list[int], embedder: TokenEmbedder):
    path = HEADING_PATH_SEPARATOR.join(_common_path([chunks[p].heading_path for p in group]))
    prefix = f"{path}\n\n" if path else ""
    body, spans = _section_body(canonical, [chunks[p] for p in group])
    text = prefix + body
    offsets = embedder.token_offsets(text)
    if len(offsets) + 2 <= embedder.max_tokens:
        shifted = [(p, s + len(prefix), e + len(prefix)) for p, (s, e) in zip(group, spans)]
        return [_Window(text, len(path), shifted, whole_section=True)]
    starts = [offset[0] for offset in offsets]
    ends = [offset[1] for offset in offsets]
    path_tokens = bisect_left(starts, len(path)) if path else 0
    room = max(1, embedder.max_tokens - 2 - path_tokens)
    windows: list[_Window] = []
    members: list[tuple[int, int, int]] = []
    first_token = 0
    for position, (start, end) in zip(group, spans):
        start, end = start + len(prefix), end + len(prefix)
        low, high = bisect_left(starts, start), bisect_right(ends, end)  # the chunk's tokens: [low, high)
        if members and high - first_token > room:
            windows.append(_window(text, prefix, path, members))
            members = []
        if not members:
            first_token = low
        members.append((position, start, end))
    windows.append(_window(text, prefix, path, members))
    return windows


def _window(text: str, prefix: str, path: str, members: list[tuple[int, int, int]]) -> _Window:
    """Heading path, then the text from the first member's start to the last member's end."""
    low, high = members[0][1], max(end for _, _, end in members)
    shift = len(prefix) - low
    spans = [(position, start + shift, end + shift) for position, start, end in members]
    return _Window(prefix + text[low:high], len(path), spans, whole_section=False)


def _section_body(canonical: str, chunks: Sequence[Chunk]) -> tuple[str, list[tuple[int, int]]]:
    """The chunks' bodies as one text, each canonical span once, and each chunk's span in it.

    A chunk whose body is its canonical slice continues the previous slice when the two
    overlap or touch; any other body (a serialized table piece) is appended whole."""
    body = ""
    spans: list[tuple[int, int]] = []
    run: tuple[int, int, int] | None = None  # canonical start, canonical end, start in body
    for chunk in chunks:
        is_slice = canonical[chunk.char_start : chunk.char_end] == chunk.body
        if is_slice and run is not None and run[0] <= chunk.char_start <= run[1]:
            if chunk.char_end > run[1]:
                body += canonical[run[1] : chunk.char_end]
                run = (run[0], chunk.char_end, run[2])
            spans.append((run[2] + chunk.char_start - run[0], run[2] + chunk.char_end - run[0]))
            continue
        body += "\n\n" if body else ""
        spans.append((len(body), len(body) + len(chunk.body)))
        run = (chunk.char_start, chunk.char_end, len(body)) if is_slice else None
        body += chunk.body
    return body, spans


def _common_path(paths: list[list[str]]) -> list[str]:
    """The longest heading path every chunk starts with (a list's lead-in entry is in the body)."""
    common = list(paths[0])
    for path in paths[1:]:
        while path[: len(common)] != common:
            common.pop()
    return common


def _pool(tokens: TokenVectors, path_end: int, start: int, end: int) -> list[float]:
    """Mean of the special, heading-path and [start, end) tokens, scaled to length 1."""
    import numpy as np

    chosen = [
        row
        for row, ((low, high), special) in enumerate(zip(tokens.offsets, tokens.special))
        if special or high <= path_end and high > low or start <= low and high <= end and high > low
    ]
    pooled = tokens.vectors[chosen].mean(axis=0)
    return (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32).tolist()
