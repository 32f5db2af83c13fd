"""The orchestrator: discover -> parse (OCR inside) -> chunk -> enrich -> store.

`process_document` is the per-document work (no database); it runs in a worker process.
`run_pipeline` classifies the files, fans the work out to a process pool (`ingest.pipeline.workers`),
and alone writes to the database: one transaction per document, so a crash at any moment
leaves every document at its old or its new version, and the next run finishes the job.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Literal

from pydantic import BaseModel, ConfigDict, Field

from ingest.contracts.errors import DocumentNotFoundError, IngestError, StorageError
from ingest.pipeline.discover import Classified, check_input_paths, classify
from ingest.pipeline.enrich import check_languages
from ingest.pipeline.processed import ProcessedDocument
from ingest.pipeline.settings import PIPELINE_VERSION, PipelineSettings
from ingest.pipeline.split import execute_splitting
from ingest.pipeline.workers import Failure, Job, TaskResult, execute
from storage import DEFAULT_DB, Database, document_rows, open_database
from storage.runs import add_run_item, finish_run, run_lock
from storage.store import (
    DocumentInfo,
    assign_document_id,
    mark_removed,
    normalise_source_path,
    save_document,
    save_failure,
)


class ItemResult(BaseModel):
    """What a run did to one file (also a `run_items` row)."""

    model_config = ConfigDict(extra="forbid")

    path: str
    document_id: str | None = None
    outcome: Literal["new", "changed", "unchanged", "still_failed", "removed", "failed", "reprocessed"]
    stage: str | None = None
    message: str | None = None
    chunks_before: int | None = None
    chunks_after: int | None = None
    over_limit_chunks: int = 0
    seconds: float | None = None


class RunSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    run_id: int
    counts: dict[str, int] = Field(default_factory=dict, description="outcome -> number of files")
    chunks_written: int = 0
    over_limit_chunks: int = 0
    seconds: float = 0.0
    items: list[ItemResult] = Field(default_factory=list)

    @property
    def failed(self) -> list[ItemResult]:
        return [item for item in self.items if item.outcome == "failed"]


#: Called with ("discover", None) before files are hashed, ("start", number of documents to
#: process), then ("item", ItemResult) per processed document and, between them,
#: ("pages", PageProgress) as workers read the pages of the documents in flight (throttled to a
#: few per second per document, best effort: a lost one is never a failure).
Observer = Callable[[str, object], None]


def check_ocr(settings: PipelineSettings) -> None:
    """Fail in seconds, before any work, when OCR may run and Tesseract or a language pack is missing.
    One `tesseract --list-langs` subprocess; the OCR code itself (pytesseract, pandas) is not imported."""
    if settings.parse.ocr.mode == "never":
        return
    from parsers.ocr.availability import check_ocr_available

    check_ocr_available(settings.parse.ocr)


def stored_settings(settings: PipelineSettings) -> dict:
    """Settings kept with each document: enough to reprocess it the same way (rules included)."""
    return settings.model_dump(mode="json", exclude={"workers", "timeout", "memory_limit_mb", "split_pages", "store"})


def run_info(settings: PipelineSettings, run_id: int) -> DocumentInfo:
    """What every document a run stores shares: its settings are dumped and hashed once per run."""
    return DocumentInfo(
        pipeline_version=PIPELINE_VERSION,
        settings=stored_settings(settings),
        settings_hash=settings.settings_hash(),
        run_id=run_id,
    )


def _info(
    run: DocumentInfo, item: Classified, mtime: float | None, title: str | None = None, metadata: dict | None = None
) -> DocumentInfo:
    update = {"title": title, "metadata": metadata or {}, "mtime": mtime, "rules_hash": item.rules_hash}
    if item.settings is not None:  # pinned settings: stored (and hashed) as this document's own
        update |= {"settings": stored_settings(item.settings), "settings_hash": item.settings.settings_hash()}
    return run.model_copy(update=update)


def _job(item: Classified) -> Job:
    return Job(item.path, item.file.sha256 if item.file else None, item.settings)


def store_result(db: Database, item: Classified, result: TaskResult, run: DocumentInfo, outcome: str) -> ItemResult:
    """One transaction: the document's new version (or its failure) and its run_items row.
    `run`: `run_info(...)` of this run."""
    file = item.file
    mtime = file.mtime if file else None
    run_id = run.run_id
    with db.transaction() as session:
        document_id = item.document_id or assign_document_id(session, item.path)
        if isinstance(result.value, Failure):
            failure = result.value
            before = save_failure(
                session,
                document_id,
                item.path,
                f"[{failure.stage}] {failure.message}",
                content_sha256=file.sha256 if file else None,
                size_bytes=file.size_bytes if file else None,
                mtime=mtime,
                info=_info(run, item, mtime),
            )
            done = ItemResult(
                path=item.path,
                document_id=document_id,
                outcome="failed",
                stage=failure.stage,
                message=failure.message,
                chunks_before=before,
                chunks_after=0,
                seconds=result.seconds,
            )
        else:
            processed: ProcessedDocument = result.value
            info = _info(run, item, mtime, processed.title, processed.metadata)
            before, after = save_document(session, document_id, processed.document, processed.chunks, info)
            # the chunker's flag is the one decision (storage writes the same flag to the column)
            over = sum(1 for chunk in processed.chunks if chunk.metadata.get("over_embedding_limit"))
            message = item.reason
            if over:
                limit = run.settings["chunk"]["embedding_limit"]
                message = "; ".join(
                    filter(
                        None,
                        [
                            message,
                            f"{over} chunk(s) over the embedding limit of {limit} "
                            "tokens (chunks.over_embedding_limit = 1)",
                        ],
                    )
                )
            warnings = warnings_by_weight(processed.document.warnings)
            losses = [p for p in processed.document.pages if p.lost_chars and p.lost_chars > 0]
            if losses:  # the parser's conservation count, named first: it is the one a reader must not miss
                pages = ", ".join(f"page {p.page_no} ({p.lost_chars} chars)" for p in losses[:5])
                more = f" and {len(losses) - 5} more" if len(losses) > 5 else ""
                message = "; ".join(filter(None, [message, f"text lost on {pages}{more}"]))
            if warnings:
                message = "; ".join(filter(None, [message, f"{len(warnings)} {WARNINGS_LABEL} {warnings[0]}"]))
            done = ItemResult(
                path=item.path,
                document_id=document_id,
                outcome=outcome,
                message=message,
                chunks_before=before,
                chunks_after=after,
                over_limit_chunks=over,
                seconds=result.seconds,
            )
        _add_item(session, run_id, done)
    return done


#: How a run item's message introduces the document's warnings (`ingest runs` lists such items).
WARNINGS_LABEL = "warning(s):"


def warnings_by_weight(warnings: list[str]) -> list[str]:
    """`warnings` with the ones about the text itself first (an OCR page read at low confidence,
    `parsers.ocr.script`), the rest in their order: a run item's message quotes only the first."""
    from parsers.ocr.script import LOW_CONFIDENCE_MARK

    return sorted(warnings, key=lambda warning: LOW_CONFIDENCE_MARK not in warning)


def reports_warnings(message: str | None) -> bool:
    """A run item's message quotes warnings (see `store_result`)."""
    return bool(message) and WARNINGS_LABEL in message


def store_or_fail(db: Database, item: Classified, result: TaskResult, run: DocumentInfo, outcome: str) -> ItemResult:
    """store_result; if writing this document fails (its transaction is rolled back), record it as
    failed at stage "store" so one bad document cannot stop the batch. Lock and connection errors
    (StorageError) still stop the run: every later write would fail the same way."""
    try:
        return store_result(db, item, result, run, outcome)
    except StorageError:
        raise
    except Exception as error:  # noqa: BLE001 - e.g. a value the database cannot encode
        failure = TaskResult(
            value=Failure(
                stage="store", message=f"cannot store: {type(error).__name__}: {str(error).splitlines()[0][:300]}"
            ),
            seconds=result.seconds,
        )
        return store_result(db, item, failure, run, outcome)


def _add_item(session, run_id: int, item: ItemResult) -> None:
    add_run_item(
        session,
        run_id,
        item.path,
        item.outcome,
        document_id=item.document_id,
        stage=item.stage,
        message=item.message,
        chunks_before=item.chunks_before,
        chunks_after=item.chunks_after,
        over_limit_chunks=item.over_limit_chunks,
        seconds=item.seconds,
    )


def _record_skips(db: Database, run_id: int, items: list[Classified]) -> list[ItemResult]:
    """Unchanged, still-failed and removed files, and entries discover could not read: one
    transaction for the skips and discover failures, one per removal. A discover failure is a
    run item only: the stored document (if any) keeps its version."""
    results: list[ItemResult] = []
    skips = [item for item in items if item.outcome in ("unchanged", "still_failed", "failed")]
    with db.transaction() as session:
        for item in skips:
            stage = "discover" if item.outcome == "failed" else None
            done = ItemResult(
                path=item.path, document_id=item.document_id, outcome=item.outcome, stage=stage, message=item.reason
            )
            _add_item(session, run_id, done)
            results.append(done)
    for item in items:
        if item.outcome == "removed":
            with db.transaction() as session:
                before = mark_removed(session, item.document_id, run_id)
                done = ItemResult(
                    path=item.path,
                    document_id=item.document_id,
                    outcome="removed",
                    message="file no longer exists; pages, elements and chunks deleted",
                    chunks_before=before,
                    chunks_after=0,
                )
                _add_item(session, run_id, done)
            results.append(done)
    return results


def run_pipeline(
    paths: list[str | os.PathLike],
    settings: PipelineSettings | dict | None = None,
    *,
    db: str | Database | None = None,
    force: bool = False,
    observer: Observer | None = None,
    executor: Literal["process", "ray"] = "process",
    ray_address: str | None = None,
) -> RunSummary:
    """The nightly batch over `paths` (folders searched recursively for *.pdf, or files).

    `executor`: where documents are parsed and chunked: "process" (the local process pool) or
    "ray" (`ingest.pipeline.ray_executor`; `ray_address` None = a local Ray, "auto" = this
    machine's cluster). Either way this process alone writes to the database.

    Raises ConfigError (bad path/settings), OcrUnavailableError (before any work),
    RunLockedError (another run holds the database). Document failures do not raise: they
    are recorded and counted in the summary (`summary.failed`).
    """
    settings = PipelineSettings.resolve(settings)
    started = time.monotonic()
    check_setup(settings)
    check_input_paths(paths)
    names = [normalise_source_path(path) for path in paths]
    with _database(db, settings.store.db) as database, _locked_run(database, "run", names, settings) as run_id:
        if observer:
            observer("discover", None)
        classified = classify(list(paths), document_rows(database), settings, force=force)
        results = _record_skips(database, run_id, classified)
        todo = [item for item in classified if item.outcome in ("new", "changed")]
        if observer:
            observer("start", len(todo))
        run = run_info(settings, run_id)
        on_pages = (lambda progress: observer("pages", progress)) if observer else None
        jobs = [_job(item) for item in todo]
        for item, result in _executor(executor, ray_address)(jobs, todo, settings, on_pages=on_pages):
            done = store_or_fail(database, item, result, run, item.outcome)
            results.append(done)
            if observer:
                observer("item", done)
        summary = _summarise(run_id, results, time.monotonic() - started)
        finish_run(
            database,
            run_id,
            _run_counts(summary),
            summary.seconds,
            message=f"{len(summary.failed)} document(s) failed" if summary.failed else None,
        )
        return summary


def _executor(name: str, ray_address: str | None) -> Callable[..., Iterator[tuple[Classified, TaskResult]]]:
    """`execute_splitting` (the process pool; long documents read as page ranges by every worker),
    or Ray's counterpart, imported only when asked for. Both are called as (jobs, tags, settings,
    on_pages=...)."""
    if name == "ray":
        from ingest.pipeline.ray_executor import execute_ray

        return lambda jobs, tags, settings, on_pages=None: execute_ray(
            jobs, tags, settings, address=ray_address, on_pages=on_pages
        )
    if name != "process":
        raise ValueError(f"unknown executor {name!r}: process or ray")
    return execute_splitting


def check_setup(settings: PipelineSettings) -> None:
    """Everything that must fail in seconds, before any work: OCR (Tesseract, language packs)
    when OCR may run, and the language codes of language detection."""
    check_ocr(settings)
    check_languages(settings.enrich)


@contextmanager
def _database(db: str | Database | None, default: str) -> Iterator[Database]:
    """`db` itself when it is an open Database (left open for the caller), else the database at
    that path or URL (`default` when None), opened here and closed when the block ends."""
    if isinstance(db, Database):
        yield db
        return
    with open_database(db or default) as database:
        yield database


@contextmanager
def _locked_run(database: Database, command: str, paths: list[str], settings: PipelineSettings) -> Iterator[int]:
    """Hold the writer lock for one run of `command` over `paths` (normalised); yields the run id.
    The run row keeps the settings (`stored_settings`) and the pipeline version."""
    with run_lock(database, command, paths, stored_settings(settings), PIPELINE_VERSION) as run_id:
        yield run_id


def _summarise(run_id: int, results: list[ItemResult], seconds: float) -> RunSummary:
    counts = Counter(item.outcome for item in results)
    return RunSummary(
        run_id=run_id,
        counts={
            name: counts.get(name, 0)
            for name in ("new", "changed", "unchanged", "still_failed", "removed", "failed", "reprocessed")
        },
        chunks_written=sum(
            item.chunks_after or 0 for item in results if item.outcome in ("new", "changed", "reprocessed")
        ),
        over_limit_chunks=sum(item.over_limit_chunks for item in results),
        seconds=round(seconds, 3),
        items=results,
    )


def _run_counts(summary: RunSummary) -> dict[str, int]:
    counts = {name: summary.counts.get(name, 0) for name in ("new", "changed", "removed", "failed")}
    counts["unchanged"] = summary.counts.get("unchanged", 0) + summary.counts.get("still_failed", 0)
    counts["changed"] += summary.counts.get("reprocessed", 0)
    counts["chunks_written"] = summary.chunks_written
    counts["over_limit_chunks"] = summary.over_limit_chunks
    return counts


class ReprocessResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    run_id: int
    item: ItemResult
    source_path: str


def reprocess_document(
    id_or_path: str,
    *,
    db: str | Database | None = None,
    config: str | None = None,
    overrides: dict | None = None,
    unpin: bool = False,
) -> ReprocessResult:
    """Parse, chunk and store one document again, atomically, even if unchanged.

    Settings: those stored with the document, then `config`, then `overrides`. The output
    settings among `overrides` (e.g. OCR mode) are pinned to the document: every later run
    applies them on top of its own, so a nightly run neither counts them as a change nor undoes
    them. `unpin`: clear the pins and start from the defaults (then `config`, then `overrides`,
    this once); the next run then brings the document to its own settings. Raises
    DocumentNotFoundError for an unknown id/path, IngestError(stage="discover") when the source
    file is gone, RunLockedError while a run holds the database. A failure of the document is
    recorded (status failed) and returned in `item`, not raised.
    """
    from ingest.pipeline.discover import fingerprint
    from ingest.pipeline.enrich import rules_hash
    from ingest.pipeline.settings import load_settings, merge_settings, pins_from

    with _database(db, DEFAULT_DB) as database:
        path, row = _reprocess_target(database, id_or_path)
        base = row.settings if row and row.settings and not unpin else None
        settings = load_settings(config, overrides, base=base)
        pins = {} if unpin else merge_settings((row.pinned_settings if row else None) or {}, pins_from(overrides or {}))
        check_setup(settings)
        with _locked_run(database, "reprocess", [path], settings) as run_id:
            item = Classified(
                outcome="changed",
                path=path,
                document_id=row.id if row else None,
                file=fingerprint(path),
                rules_hash=rules_hash(path, settings.enrich),
                reason="reprocess",
            )
            [(_tag, result)] = list(
                execute([_job(item)], [item], settings.model_copy(update={"workers": min(settings.worker_count, 1)}))
            )
            info = run_info(settings, run_id).model_copy(update={"pinned_settings": pins})
            done = store_or_fail(database, item, result, info, "reprocessed")
            summary = _summarise(run_id, [done], 0.0)
            finish_run(
                database,
                run_id,
                _run_counts(summary),
                done.seconds or 0.0,
                message=f"failed: [{done.stage}] {done.message}" if done.outcome == "failed" else None,
            )
            return ReprocessResult(run_id=run_id, item=done, source_path=path)


def _reprocess_target(database: Database, id_or_path: str) -> tuple[str, Any]:
    """(normalised source path, stored `documents` row or None) of what `reprocess` names: a
    path (stored or not: a new file is simply ingested) or a stored id/path. Raises
    DocumentNotFoundError for an unknown id, IngestError(stage="discover") when the file is gone."""
    from storage import find_document

    if Path(id_or_path).is_file():
        path = normalise_source_path(id_or_path)
        try:
            row = find_document(database, path)
        except DocumentNotFoundError:
            row = None
    else:
        row = find_document(database, id_or_path)
        path = row.source_path
    if not Path(path).is_file():
        raise IngestError(
            "source file no longer exists; restore it or let `ingest run` mark it removed", path=path, stage="discover"
        )
    return path, row
