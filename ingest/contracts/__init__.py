"""The shared contracts: what crosses a stage boundary. The bottom layer: imports nothing of ours.

`elements` (Element, Document, PageInfo: the parser's output), `chunks` (Chunk: the
chunker's output), `errors` (the one exception hierarchy), `settings` (the base of every
stage's settings), `evaluation` (golden set and eval report), `files` and `processes`
(hashing, process liveness).

    from ingest.contracts import Chunk, Document, Element, ElementType

The models are imported on first use, so `ingest.contracts.errors` alone (all the CLI needs
for `--help`) does not build pydantic models.
"""

_HOMES = {
    "HEADING_PATH_SEPARATOR": "chunks",
    "Chunk": "chunks",
    "Document": "elements",
    "Element": "elements",
    "ElementType": "elements",
    "PageInfo": "elements",
    "TextSource": "elements",
}

# The names come from `__getattr__`, which ruff cannot see.
__all__ = list(_HOMES)  # noqa: F822


def __getattr__(name: str):
    if name in _HOMES:
        import importlib

        return getattr(importlib.import_module(f"ingest.contracts.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'ingest.contracts' has no attribute {name!r}")
