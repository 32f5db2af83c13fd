"""The project's one exception hierarchy.

It lives in the contracts, the bottom layer, so every layer (parsers, chunker, storage,
pipeline, CLI) raises and catches the same classes. Every message names the file,
the page where there is one, and the stage, and says how to recover.
"""

from __future__ import annotations


class IngestError(Exception):
    """Base of every error this project raises on purpose."""

    stage: str = "pipeline"

    def __init__(self, message: str, *, path: str | None = None, page: int | None = None, stage: str | None = None):
        self.path = path
        self.page = page
        if stage is not None:
            self.stage = stage
        self.reason = message
        where = ", ".join(part for part in (path, f"page {page}" if page else None) if part)
        super().__init__(f"[{self.stage}] {where + ': ' if where else ''}{message}")


class ConfigError(IngestError):
    """Settings, a config file or a command-line option are invalid."""

    stage = "config"


class DiscoverError(IngestError):
    """An input entry cannot be read as a PDF file: a symlink loop or dangling link, no read
    permission, a FIFO or device, or a folder that cannot be listed."""

    stage = "discover"


class MissingExtraError(ConfigError):
    """An optional extra (langchain, llamaindex, embed) is needed and not installed; says what to pip install."""

    def __init__(self, extra: str, package: str):
        super().__init__(f"this needs {package}, which is not installed: pip install 'pdf-ingest[{extra}]'")


class ParseError(IngestError):
    """A PDF could not be parsed: not a PDF, encrypted, empty, truncated, or every page failed."""

    stage = "parse"


class OcrError(IngestError):
    """OCR could not run on a page: render failure or Tesseract failure."""

    stage = "ocr"


class OcrUnavailableError(OcrError):
    """Tesseract or a requested language pack is not installed; raised before any work starts."""


class ChunkingError(IngestError):
    """The chunker was given settings or elements it cannot honour."""

    stage = "chunk"


class ContextWriterError(IngestError):
    """The contextual strategy's model endpoint failed or answered nothing usable (the message names the URL)."""

    stage = "context"


class StorageError(IngestError):
    """The database cannot be opened, migrated or written."""

    stage = "store"


class SchemaVersionError(StorageError):
    """The database file was written by another schema version and cannot be migrated."""


class RunLockedError(StorageError):
    """Another `ingest run` holds the database; two runs would interleave."""


class DocumentNotFoundError(StorageError):
    """No stored document has that id or path."""


class QueryError(StorageError):
    """A user's SQL failed or tried to write through the read-only query connection."""

    stage = "query"


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived: handled exactly like Ctrl-C (a KeyboardInterrupt), so the lock
    is released and the run closed as `interrupted`. `signal_number` gives the exit code 128+N."""

    def __init__(self, signal_number: int, name: str) -> None:
        super().__init__(f"{name} received")
        self.signal_number = signal_number


class SoftTimeout(BaseException):
    """The soft time limit expired. A BaseException (like KeyboardInterrupt), so the
    `except Exception` with which parsers record one bad page cannot swallow it and go on
    parsing past the limit. `stage` names the stage that was running (innermost first)."""

    def __init__(self) -> None:
        super().__init__("soft time limit expired")
        self.stage: str | None = None
