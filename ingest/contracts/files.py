"""Files every layer names: the default database, and file fingerprints (discover, the parser, evaluation)."""

from __future__ import annotations

import hashlib
import os

#: The database `--db` means when not given: `ingest.db` in the working directory.
DEFAULT_DB = "ingest.db"


def file_sha256(path: str | os.PathLike) -> str:
    """Hex SHA-256 of the file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
