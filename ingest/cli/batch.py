"""Commands that write: `run` (the nightly batch), `reprocess`, and the run history `runs`, `unlock`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer
from rich import box
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

if TYPE_CHECKING:
    from ingest import api

from ingest.cli.common import (
    EXIT_FAILED_DOCUMENTS,
    ConfigOption,
    DbOption,
    Executor,
    OcrLangOption,
    OcrMode,
    add_literal_row,
    app,
    call,
    console,
    literal_table,
    say,
)


@app.command()
def run(
    paths: list[Path] = typer.Argument(..., help="PDF files or folders (searched recursively for *.pdf)."),
    db: Optional[str] = DbOption,
    config: Optional[Path] = ConfigOption,
    force: bool = typer.Option(False, "--force", help="Reprocess every file even if unchanged."),
    workers: Optional[int] = typer.Option(
        None, "--workers", "-w", min=0, help="Worker processes (default: the CPU count); 0 = in this process."
    ),
    timeout: Optional[float] = typer.Option(
        None, "--timeout", min=1, help="Seconds one document may take before it is failed (default: 600)."
    ),
    ocr: Optional[OcrMode] = typer.Option(
        None, "--ocr", help="When to OCR pages (default: auto, the pages without a usable text layer)."
    ),
    ocr_lang: Optional[str] = OcrLangOption,
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    executor: Executor = typer.Option(
        Executor.process,
        "--executor",
        help="Where documents are parsed: the local process pool, or a Ray cluster (pip install 'pdf-ingest[ray]').",
    ),
    ray_address: Optional[str] = typer.Option(
        None, "--ray-address", help="Ray cluster to join, e.g. auto (default: start a local Ray with --workers CPUs)."
    ),
) -> None:
    """Nightly batch: ingest new and changed PDFs, skip unchanged ones, mark removed ones.

    Idempotent: a second run over unchanged files parses nothing. Each document is replaced in
    one transaction; a failing file is recorded (see `ingest runs`) and the run goes on.
    Exit code 1 while any file under PATHS is failed, in this run or unchanged since an earlier
    failure (so a cron alert repeats until the file is fixed, replaced or removed).
    """
    with _progress(quiet) as observer:
        from ingest import api  # here, not at the top: `ingest --help` loads no library

        db = call(api.resolve_db, db, config)

        summary = call(
            api.run,
            [str(path) for path in paths],
            db=db,
            config=config,
            force=force,
            observer=observer,
            workers=workers,
            timeout=timeout,
            ocr=ocr.value if ocr else None,
            ocr_lang=ocr_lang,
            executor=executor.value,
            ray_address=ray_address,
        )
    _print_summary(summary)
    still = summary.counts.get("still_failed", 0)
    if summary.failed or still:
        # still-failed files keep the exit code at 1, so a cron alert repeats until they are fixed
        say(
            f"error: {len(summary.failed)} document(s) failed in this run, {still} still failed from earlier "
            f"runs; details: `ingest runs --db {db}`",
            stderr=True,
        )
        raise typer.Exit(EXIT_FAILED_DOCUMENTS)


class _progress:
    """Rich progress bars on stderr fed by the pipeline's observer callback: documents, and the
    pages read of the documents started so far (its total grows as documents start: a page
    count is known from a document's first page report). No bar for what is not happening:
    none while nothing is parsed, no pages bar before a page is read."""

    def __init__(self, quiet: bool):
        self.bar = (
            None
            if quiet
            else Progress(
                TextColumn("{task.description}", markup=False),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                TextColumn("{task.fields[last]}", markup=False),
                console=console(stderr=True),
                transient=False,
            )
        )
        self.task = None
        self.pages_task = None
        self.pages: dict[str, tuple[int, int]] = {}  # source path -> (pages read, page count)

    def __enter__(self):
        if self.bar is None:
            return None
        self.bar.start()
        return self.observe

    def observe(self, event: str, value: Any) -> None:
        if event == "discover":
            self.task = self.bar.add_task("finding and hashing PDFs", total=None, last="")
        elif event == "start":
            if self.task is not None:
                self.bar.remove_task(self.task)
            # nothing to parse (every file unchanged): no "0/0" bar, the summary says it all
            self.task = self.bar.add_task("ingesting", total=value, last="") if value else None
        elif event == "pages":
            done, total = self.pages.get(value.path, (0, 0))
            self.pages[value.path] = (max(done, value.done), value.total)
            self._show_pages(last=Path(value.path).name)
        elif event == "item" and self.task is not None:
            if value.path in self.pages:  # read, or given up on: its pages are finished either way
                total = self.pages[value.path][1]
                self.pages[value.path] = (total, total)
                self._show_pages(last="")
            self.bar.update(self.task, advance=1, last=f"{value.outcome}: {Path(value.path).name}")

    def _show_pages(self, last: str) -> None:
        done = sum(read for read, _count in self.pages.values())
        total = sum(count for _read, count in self.pages.values())
        if self.pages_task is None:
            self.pages_task = self.bar.add_task("pages read", total=total, last="")
        self.bar.update(self.pages_task, completed=done, total=total, last=last)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()


def _print_summary(summary: api.RunSummary) -> None:
    table = Table(
        title=f"run {summary.run_id}: {summary.seconds:.1f} s", title_justify="left", box=box.SIMPLE, show_header=False
    )
    table.add_column("what")
    table.add_column("count", justify="right")
    counts = summary.counts
    for label, key in (
        ("new", "new"),
        ("changed", "changed"),
        ("unchanged", "unchanged"),
        ("removed", "removed"),
        ("failed", "failed"),
        ("still failed (not retried)", "still_failed"),
    ):
        table.add_row(label, str(counts.get(key, 0)))
    table.add_row("chunks written", str(summary.chunks_written))
    table.add_row("chunks over the embedding limit", str(summary.over_limit_chunks))
    console().print(table)
    if summary.over_limit_chunks:
        say(
            f"warning: {summary.over_limit_chunks} chunk(s) exceed the embedding-model limit "
            "(chunks.over_embedding_limit = 1)"
        )
    for item in summary.failed:
        say(f"failed: {item.path}: [{item.stage}] {item.message}")
    if counts.get("still_failed"):
        say(
            f"{counts['still_failed']} file(s) unchanged since they failed were not retried "
            "(fix them, or use --force / `ingest reprocess`)"
        )


@app.command()
def reprocess(
    document: str = typer.Argument(..., help="Document id (or unique prefix) or source path."),
    db: Optional[str] = DbOption,
    config: Optional[Path] = ConfigOption,
    timeout: Optional[float] = typer.Option(None, "--timeout", min=1, help="Seconds before the document is failed."),
    ocr: Optional[OcrMode] = typer.Option(None, "--ocr", help="When to OCR pages."),
    ocr_lang: Optional[str] = OcrLangOption,
    unpin: bool = typer.Option(
        False, "--unpin", help="Clear the settings pinned by earlier reprocess options; start from the defaults."
    ),
) -> None:
    """Parse and chunk one document again, atomically, even if unchanged; print chunk counts before/after.

    Uses the settings stored with the document, then --config, then the options given here.
    --ocr and --ocr-lang stay pinned to the document: nightly runs keep them (and do not count
    them as a change) until `ingest reprocess DOC --unpin`. `ingest show` lists them.
    """
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = call(api.resolve_db, db, config)

    result = call(
        api.reprocess,
        document,
        db=db,
        config=config,
        timeout=timeout,
        ocr=ocr.value if ocr else None,
        ocr_lang=ocr_lang,
        unpin=unpin,
    )
    item = result.item
    if item.outcome == "failed":
        say(f"error: {item.path}: [{item.stage}] {item.message} (recorded in run {result.run_id})", stderr=True)
        raise typer.Exit(EXIT_FAILED_DOCUMENTS)
    say(
        f"{item.document_id}  {item.path}\nchunks: {item.chunks_before} -> {item.chunks_after}"
        f"  ({item.seconds or 0:.1f} s, run {result.run_id})"
    )
    if item.over_limit_chunks:
        say(f"warning: {item.over_limit_chunks} chunk(s) exceed the embedding-model limit")


@app.command()
def runs(
    db: Optional[str] = DbOption,
    limit: int = typer.Option(10, "--limit", "-n", min=1, help="How many recent runs to list."),
    run_id: Optional[int] = typer.Option(None, "--run", help="Show the problems of this run instead of the last."),
    as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
) -> None:
    """Run history (newest first) and the failures of the last run, with stage and message."""
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = api.resolve_db(db)

    history = call(api.runs, db, limit, run_id)
    if as_json:
        sys.stdout.write(history.model_dump_json(indent=2) + "\n")
        return
    table = literal_table(
        "run", "command", "started", "status", "new", "changed", "unchanged", "removed", "failed", "chunks", "seconds"
    )
    for info in history.runs:
        add_literal_row(
            table,
            (
                str(info.id),
                info.command,
                info.started_at[:19],
                info.status,
                str(info.new),
                str(info.changed),
                str(info.unchanged),
                str(info.removed),
                str(info.failed),
                str(info.chunks_written),
                "" if info.seconds is None else f"{info.seconds:.1f}",
            ),
        )
    console().print(table)
    for item in history.last_run_problems:
        detail = f"[{item.stage}] {item.message}" if item.stage else (item.message or "")
        say(f"{item.outcome}: {item.document_id or '-'}  {item.source_path}: {detail}")


@app.command()
def unlock(db: Optional[str] = DbOption) -> None:
    """Clear the writer lock left by a crashed run on ANOTHER host (same-host stale locks clear themselves)."""
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = api.resolve_db(db)

    holder = call(api.unlock, db)
    say(
        "no lock was held"
        if holder is None
        else f"cleared the lock of pid {holder.pid} on {holder.hostname} (run {holder.run_id})"
    )
