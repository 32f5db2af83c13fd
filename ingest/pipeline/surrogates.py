"""Lone UTF-16 surrogates, the one kind of string SQLite cannot store as UTF-8, replaced before storing.

A worker's result (`ingest.pipeline.document.ProcessedDocument`) is checked in place, string by string;
only a document that holds one is dumped, scrubbed and rebuilt (U+FFFD has the same
length, so chunk offsets stay right).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, TypeVar

from pydantic import BaseModel

#: A `ProcessedDocument` (typed by duck: `document`, `metadata`, `title`), so this module need not
#: import the module that calls it.
Processed = TypeVar("Processed", bound=BaseModel)

_SURROGATE = re.compile("[\ud800-\udfff]")


def _scrub(value):
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_scrub(item) for item in value]
    if isinstance(value, dict):
        return {_scrub(key): _scrub(item) for key, item in value.items()}
    return value


def _strings(value: Any) -> Iterator[str]:
    """Every string in `value`: dict keys and values, list items, model fields, nested."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, BaseModel):
        for item in value.__dict__.values():
            yield from _strings(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _source_strings(processed: BaseModel) -> Iterator[str]:
    """The strings everything else in `processed` is made of: element texts, captions, table
    cells and extras, then every other string of the document, its metadata and title. Chunks
    are not read: their text, heading paths and metadata are pieces of these."""
    document = processed.document
    for element in document.elements:
        yield element.text
        if element.caption:
            yield element.caption
        for row in element.rows or ():
            yield from row
        if element.data:
            yield from _strings(element.data)
    for name, value in document.__dict__.items():
        if name != "elements":
            yield from _strings(value)
    yield from _strings(processed.metadata)
    yield processed.title


def replace_surrogates(processed: Processed) -> Processed:
    """Lone UTF-16 surrogates cannot be stored as UTF-8: replace them by U+FFFD (same length, so
    chunk offsets stay right) and say so in the document's warnings. The parser already pairs
    or replaces pdfium's surrogates; this safety net covers other sources (e.g. a `\\ud800`
    escape in a sidecar file, PDF info strings). The check reads the source strings in place
    (`_source_strings`; the warning counts the characters found there); only a document that
    has one is dumped, scrubbed everywhere (chunks included) and rebuilt."""
    found = sum(len(_SURROGATE.findall(text)) for text in _source_strings(processed) if not text.isascii())
    if not found:
        return processed
    cleaned = type(processed).model_validate(_scrub(processed.model_dump(mode="python")))
    cleaned.document.warnings.append(f"{found} invalid character(s) (lone surrogates) replaced by U+FFFD")
    return cleaned
