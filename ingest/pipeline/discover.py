"""discover: walk the input paths, fingerprint each PDF, and classify it against what is stored.

A file is `new` (no row), `changed` (SHA-256, settings, pipeline version or its metadata
rules differ; the reason is kept), `unchanged` (skipped, never parsed), `still_failed`
(unchanged since it failed: not retried until it changes, `--force` or `ingest reprocess`),
or `removed` (stored under one of the input folders, no longer on disk).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from ingest.contracts.errors import ConfigError
from ingest.contracts.files import file_sha256
from ingest.pipeline.enrich import rules_hash
from ingest.pipeline.settings import PIPELINE_VERSION, PipelineSettings, with_pins
from storage.schema import DocumentRow
from storage.store import normalise_source_path

Outcome = Literal["new", "changed", "unchanged", "still_failed", "removed"]


class SourceFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str  # normalised: absolute, resolved, POSIX
    size_bytes: int
    mtime: float
    sha256: str


class Classified(BaseModel):
    model_config = ConfigDict(extra="forbid")

    outcome: Outcome
    path: str
    document_id: str | None = None
    reason: str | None = None
    file: SourceFile | None = None
    rules_hash: str | None = None
    settings: PipelineSettings | None = None  # the run's settings with this document's pins on top


def check_input_paths(paths: list[str | os.PathLike]) -> None:
    """ConfigError for the first path that does not exist: called before the database is opened,
    so a mistyped path writes nothing (no database file, no run row)."""
    for root in paths:
        if not Path(root).expanduser().exists():
            raise ConfigError("input path does not exist (nothing was changed)", path=str(root))


def find_pdfs(paths: list[str | os.PathLike]) -> list[str]:
    """Every `*.pdf` (any case) under the given folders, plus the given files whatever their name;
    normalised, de-duplicated, sorted. ConfigError for a path that does not exist."""
    found: set[str] = set()
    for root in paths:
        root_path = Path(root).expanduser()
        if root_path.is_file():
            found.add(normalise_source_path(root_path))
        elif root_path.is_dir():
            for folder, _dirs, files in os.walk(root_path):
                found.update(
                    normalise_source_path(Path(folder) / name) for name in files if name.lower().endswith(".pdf")
                )
        else:
            raise ConfigError("input path does not exist (nothing was changed)", path=str(root))
    return sorted(found)


def fingerprint(path: str) -> SourceFile:
    stat = os.stat(path)
    return SourceFile(path=path, size_bytes=stat.st_size, mtime=stat.st_mtime, sha256=file_sha256(path))


def change_reason(row: DocumentRow, file: SourceFile, settings_hash: str, rules: str) -> str | None:
    """Why a stored document must be processed again, or None when it is up to date.
    `settings_hash`: `PipelineSettings.settings_hash()` of this run."""
    if row.status == "removed":
        return "file is back after being removed"
    if row.content_sha256 != file.sha256:
        return "content changed (SHA-256 differs)"
    if row.pipeline_version != PIPELINE_VERSION:
        return f"pipeline version {row.pipeline_version} -> {PIPELINE_VERSION}"
    if row.settings_hash != settings_hash:
        return "parse/chunk settings changed"
    if row.rules_hash != rules:
        return "metadata rules or sidecar file changed"
    return None


def _under(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def classify(
    paths: list[str | os.PathLike], stored: dict[str, DocumentRow], settings: PipelineSettings, force: bool = False
) -> list[Classified]:
    """Classify every PDF under `paths`, and every stored document under them that is gone.

    `stored` maps normalised source path -> documents row. Nothing is parsed here; files are
    hashed (one read each; the hash goes on to the parser, which does not read the file for it).
    """
    found = find_pdfs(paths)
    settings_hash = settings.settings_hash()  # once per run, not per file
    items: list[Classified] = []
    for path in found:
        file = fingerprint(path)
        rules = rules_hash(path, settings.enrich)
        row = stored.get(path)
        if row is None:
            items.append(Classified(outcome="new", path=path, file=file, rules_hash=rules))
            continue
        own = None
        if row.pinned_settings:  # pinned by `ingest reprocess`: not a change, the document's own settings
            own = with_pins(settings, row.pinned_settings)
            rules = rules_hash(path, own.enrich)
        reason = change_reason(row, file, own.settings_hash() if own else settings_hash, rules)
        if reason is None and force:
            reason = "--force"
        if reason is None and row.status == "failed":
            items.append(
                Classified(
                    outcome="still_failed",
                    path=path,
                    document_id=row.id,
                    file=file,
                    rules_hash=rules,
                    reason=f"unchanged since it failed: {row.error}",
                    settings=own,
                )
            )
        elif reason is None:
            items.append(
                Classified(
                    outcome="unchanged", path=path, document_id=row.id, file=file, rules_hash=rules, settings=own
                )
            )
        else:
            outcome = "new" if row.status == "removed" else "changed"
            items.append(
                Classified(
                    outcome=outcome,
                    path=path,
                    document_id=row.id,
                    file=file,
                    rules_hash=rules,
                    reason=reason,
                    settings=own,
                )
            )
    roots = [normalise_source_path(root) for root in paths]
    present = set(found)
    for path, row in sorted(stored.items()):
        if row.status != "removed" and path not in present and _under(path, roots):
            items.append(Classified(outcome="removed", path=path, document_id=row.id, reason="file no longer exists"))
    return items
