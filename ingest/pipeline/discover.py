"""discover: walk the input paths, fingerprint each PDF, and classify it against what is stored.

A file is `new` (no row), `changed` (SHA-256, settings, pipeline version or its metadata
rules differ; the reason is kept), `unchanged` (skipped, never parsed), `still_failed`
(unchanged since it failed: not retried until it changes, `--force` or `ingest reprocess`),
`removed` (stored under one of the input folders, no longer on disk), or `failed` (an entry
that cannot be read as a PDF file: a symlink loop or dangling link, no read permission, a FIFO
or device, a folder that cannot be listed; recorded at stage `discover` and the run goes on).

A failed entry never changes what is stored: a document whose file is unreadable today keeps
its stored version, and no document under a folder that could not be listed is marked removed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from ingest.contracts.errors import ConfigError, IngestError
from ingest.contracts.files import regular_file_fingerprint
from ingest.pipeline.enrich import rules_hash
from ingest.pipeline.settings import PIPELINE_VERSION, PipelineSettings, with_pins
from storage.schema import DocumentRow
from storage.store import normalise_source_path

Outcome = Literal["new", "changed", "unchanged", "still_failed", "removed", "failed"]


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


class Found(BaseModel):
    """What walking the input paths found: PDF entries (normalised paths, not yet opened) and the
    folders that could not be listed, with the reason."""

    model_config = ConfigDict(extra="forbid")

    files: list[str]
    unlisted: dict[str, str]


def find_pdfs(paths: list[str | os.PathLike]) -> list[str]:
    """Every `*.pdf` (any case) under the given folders, plus the given files whatever their name;
    normalised, de-duplicated, sorted. ConfigError for a path that does not exist."""
    return walk_inputs(paths).files


def walk_inputs(paths: list[str | os.PathLike]) -> Found:
    """`find_pdfs`, also naming the folders that could not be listed (unreadable, vanished).

    Symlinked folders are not followed (no loops); a `*.pdf` entry of any kind (link, FIFO,
    device) is listed and judged when it is fingerprinted. A given path that is not a folder
    is an entry whatever it is; ConfigError only for one that does not exist at all."""
    found: set[str] = set()
    unlisted: dict[str, str] = {}

    def on_error(error: OSError) -> None:
        folder = safe_normalise(error.filename or "")
        unlisted[folder] = f"folder cannot be listed: {error.strerror or error}"

    for root in paths:
        root_path = Path(root).expanduser()
        if root_path.is_dir():
            for folder, _dirs, files in os.walk(root_path, onerror=on_error):
                found.update(safe_normalise(Path(folder) / name) for name in files if name.lower().endswith(".pdf"))
        elif os.path.lexists(root_path):
            found.add(safe_normalise(root_path))
        else:
            raise ConfigError("input path does not exist (nothing was changed)", path=str(root))
    return Found(files=sorted(found), unlisted=unlisted)


def safe_normalise(path: str | os.PathLike) -> str:
    """`normalise_source_path` (links resolved); for a link that does not lead to a regular file
    (a loop, a dangling link, a link to a device) the link itself in its resolved folder, so the
    failure names the entry an operator sees in the folder."""
    entry = Path(path).expanduser()
    try:
        resolved = normalise_source_path(entry)
        if os.path.isfile(resolved) or not os.path.islink(entry):
            return resolved
    except (OSError, RuntimeError):
        pass
    return (Path(os.path.realpath(entry.parent)) / entry.name).as_posix()


def fingerprint(path: str) -> SourceFile:
    """Size, mtime and SHA-256 of a regular file; DiscoverError for any other entry (never blocks)."""
    info, sha256 = regular_file_fingerprint(path)
    return SourceFile(path=path, size_bytes=info.st_size, mtime=info.st_mtime, sha256=sha256)


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
    walked = walk_inputs(paths)
    found = walked.files
    settings_hash = settings.settings_hash()  # once per run, not per file
    items: list[Classified] = [
        Classified(outcome="failed", path=folder, reason=f"{reason}; documents stored under it are kept")
        for folder, reason in sorted(walked.unlisted.items())
    ]
    for path in found:
        row = stored.get(path)
        try:
            file = fingerprint(path)
            rules = rules_hash(path, settings.enrich)
        except (IngestError, OSError) as error:
            reason = error.reason if isinstance(error, IngestError) else f"cannot read its sidecar: {error}"
            items.append(Classified(outcome="failed", path=path, document_id=row.id if row else None, reason=reason))
            continue
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
    roots = [safe_normalise(root) for root in paths]
    present = set(found)
    for path, row in sorted(stored.items()):
        if (
            row.status != "removed"
            and path not in present
            and _under(path, roots)
            and not _under(path, list(walked.unlisted))
        ):
            items.append(Classified(outcome="removed", path=path, document_id=row.id, reason="file no longer exists"))
    return items
