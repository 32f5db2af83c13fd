"""Where derived copies of installed data live, and how one is written so no reader sees half a file.

Two stages keep such copies, each named after what it was made from, so a new version of the
source gets a new file and an old one is never read for it: the language model unpacked for
mapping (`ingest.pipeline.language_model`) and the tokenizer's parsed merge table
(`ingest.tokens`). Deleting the directory is always safe: the next run makes the copies again.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator


def cache_dir() -> Path:
    """`$INGEST_CACHE_DIR`, else `$XDG_CACHE_HOME/ingest`, else `~/.cache/ingest`."""
    if os.environ.get("INGEST_CACHE_DIR"):
        return Path(os.environ["INGEST_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "ingest"


@contextmanager
def written_atomically(path: Path) -> Iterator[BinaryIO]:
    """A binary file to write; when the block ends without an exception it becomes `path` in one
    rename (a reader, even another process, sees the old file or the whole new one, never a
    part), else it is removed. Creates `path`'s folder; OSError when it cannot be written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            yield out
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
