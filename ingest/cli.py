"""The `ingest` command line: parse arguments, make ONE library call (ingest.api), print the result.

The CLI builds no SQL except the user's own in `query`. Our exceptions become a one-line
message on stderr and an exit code:

    0  ok
    1  the run finished but a file under the given paths is failed: it failed in this run, or it
       failed earlier and is unchanged since (not retried); 0 only when every file is stored
    2  usage or configuration error (bad option, config file, missing path, OCR not installed)
    3  the database is locked by another running `ingest run`/`reprocess`
    4  the database cannot be opened, or its schema version is not this program's
    5  no document with that id or path
    6  `ingest query`: SQL error, or a write attempt refused by the read-only connection
"""

from __future__ import annotations

import json
import os
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional

import typer
from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from ingest.contracts.errors import (
    ConfigError,
    DocumentNotFoundError,
    IngestError,
    OcrUnavailableError,
    QueryError,
    RunLockedError,
    StorageError,
)

if TYPE_CHECKING:
    from ingest import api

EXIT_OK, EXIT_FAILED_DOCUMENTS, EXIT_USAGE, EXIT_LOCKED, EXIT_DATABASE, EXIT_NOT_FOUND, EXIT_QUERY = 0, 1, 2, 3, 4, 5, 6

app = typer.Typer(
    help="Turn folders of PDFs into retrieval-ready chunks in one SQLite file, and read them with SQL.\n\n"
    "Exit codes: 0 ok; 1 a file under the paths is failed (now or still); 2 usage/config error; "
    "3 database locked by another run; 4 database/schema error; 5 document not found; 6 query error or write refused.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

#: Width of tables written to a pipe or a log file (no terminal, no COLUMNS): rich would
#: squeeze them into 80 columns and wrap every path and heading; a nightly log wants one
#: line per row.
PIPE_WIDTH = 240


def _console(stderr: bool = False) -> Console:
    """A console that prints every string literally: no markup, no emoji codes, no highlighting.

    Cells hold stored text and user SQL results, where `[b]`, `[bold]x[/bold]` or `:memo:` are
    data (a clause "54954.3[b]", a snippet marker), so rich must not read them as markup.
    Built per call so COLUMNS and the current sys.stdout/sys.stderr are honoured (tests, pipes).
    """
    stream = sys.stderr if stderr else sys.stdout
    piped = not (hasattr(stream, "isatty") and stream.isatty()) and "COLUMNS" not in os.environ
    return Console(stderr=stderr, width=PIPE_WIDTH if piped else None, markup=False, emoji=False, highlight=False)


def say(text: str, *, stderr: bool = False) -> None:
    """One plain line (no rich markup, no hard wrapping: paths and messages stay greppable)."""
    _console(stderr).print(text, markup=False, highlight=False, soft_wrap=True)


def literal_table(*columns: str, title: str | None = None, **options: Any) -> Table:
    """A rich Table whose title and headers are printed as given. Cells go in through
    `add_literal_row`: rich reads a plain `str` as markup, so `[b]`, `[bold]x[/bold]` or the
    `[`...`]` of an FTS5 snippet would vanish from what the user sees."""
    table = Table(title=Text(title) if title else None, **options)
    for name in columns:
        table.add_column(Text(name))
    return table


def add_literal_row(table: Table, values: Iterable[str]) -> None:
    table.add_row(*(Text(value) for value in values))


DbOption = typer.Option(
    "ingest.db", "--db", envvar="INGEST_DB", help="Database file path or SQLAlchemy URL (env INGEST_DB)."
)
ConfigOption = typer.Option(
    None,
    "--config",
    "-c",
    exists=True,
    dir_okay=False,
    help="TOML or JSON settings file (format in the README, 'Configuration file'); unknown keys are an error.",
)


class OcrMode(str, Enum):
    auto = "auto"
    always = "always"
    never = "never"


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


def exit_code_for(error: IngestError) -> int:
    if isinstance(error, (ConfigError, OcrUnavailableError)):
        return EXIT_USAGE
    if isinstance(error, RunLockedError):
        return EXIT_LOCKED
    if isinstance(error, DocumentNotFoundError):
        return EXIT_NOT_FOUND
    if isinstance(error, QueryError):
        return EXIT_QUERY
    if isinstance(error, StorageError):
        return EXIT_DATABASE
    return EXIT_FAILED_DOCUMENTS


def call(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """One library call; our exceptions become `error: ...` on stderr and the matching exit code."""
    try:
        return function(*args, **kwargs)
    except IngestError as error:
        say(f"error: {error}", stderr=True)
        raise typer.Exit(exit_code_for(error)) from None
    except KeyboardInterrupt:
        say("interrupted: documents already stored are complete; the next run finishes the job", stderr=True)
        raise typer.Exit(130) from None


@app.command()
def run(
    paths: list[Path] = typer.Argument(..., help="PDF files or folders (searched recursively for *.pdf)."),
    db: str = DbOption,
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
    ocr_lang: Optional[str] = typer.Option(None, "--ocr-lang", help="Tesseract languages, e.g. eng+hin+mar."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Nightly batch: ingest new and changed PDFs, skip unchanged ones, mark removed ones.

    Idempotent: a second run over unchanged files parses nothing. Each document is replaced in
    one transaction; a failing file is recorded (see `ingest runs`) and the run goes on.
    Exit code 1 while any file under PATHS is failed, in this run or unchanged since an earlier
    failure (so a cron alert repeats until the file is fixed, replaced or removed).
    """
    with _progress(quiet) as observer:
        from ingest import api  # here, not at the top: `ingest --help` loads no library

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
    """A rich progress bar on stderr fed by the pipeline's observer callback."""

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
                console=_console(stderr=True),
                transient=False,
            )
        )
        self.task = None

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
        elif event == "item" and self.task is not None:
            self.bar.update(self.task, advance=1, last=f"{value.outcome}: {Path(value.path).name}")

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
    _console().print(table)
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
    db: str = DbOption,
    config: Optional[Path] = ConfigOption,
    timeout: Optional[float] = typer.Option(None, "--timeout", min=1, help="Seconds before the document is failed."),
    ocr: Optional[OcrMode] = typer.Option(None, "--ocr", help="When to OCR pages."),
    ocr_lang: Optional[str] = typer.Option(None, "--ocr-lang", help="Tesseract languages, e.g. eng+hin+mar."),
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
def query(
    sql: str = typer.Argument(..., help='One SQL statement, e.g. "select id, title from documents".'),
    db: str = DbOption,
    output: Format = typer.Option(Format.table, "--format", "-f", help="Output format."),
) -> None:
    """Run read-only SQL: the connection cannot write (INSERT, UPDATE, DELETE, DROP, ATTACH fail).

    Tables: documents, pages, elements, chunks, chunks_fts (FTS5), runs, run_items, eval_runs.
    Example: ingest query "select c.id, bm25(chunks_fts) from chunks_fts join chunks c on c.id =
    chunks_fts.rowid where chunks_fts match 'whitefly' order by 2 limit 5"
    """
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    result = call(api.query, db, sql)
    if output is Format.json:
        from storage.query import result_to_json

        sys.stdout.write(result_to_json(result) + "\n")
    elif output is Format.csv:
        from storage.query import result_to_csv

        sys.stdout.write(result_to_csv(result))
    else:
        table = literal_table(*result.columns, show_lines=False)
        for row in result.rows:
            add_literal_row(table, ("NULL" if value is None else str(value) for value in row))
        _console().print(table)
        say(f"{len(result.rows)} row(s)", stderr=True)


@app.command()
def show(
    document: str = typer.Argument(..., help="Document id (or unique prefix) or source path."),
    db: str = DbOption,
    as_json: bool = typer.Option(False, "--json", help="Print the whole view as JSON."),
    width: int = typer.Option(70, "--width", min=10, help="Characters of each text shown in tables."),
) -> None:
    """Show a document's elements and chunks, and where each chunk's cuts fell between elements."""
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    view = call(api.show, db, document)
    if as_json:
        sys.stdout.write(view.model_dump_json(indent=2) + "\n")
        return
    say(
        f"{view.id}  {view.source_path}\nstatus {view.status}, {view.page_count} page(s), "
        f"title: {view.title!r}, pipeline {view.pipeline_version}, ingested {view.ingested_at}"
    )
    if view.error:
        say(f"error: {view.error}")
    say(f"metadata: {json.dumps(view.metadata, ensure_ascii=False)}")
    if view.pinned_settings:
        say(
            f"pinned settings (from `ingest reprocess`; clear with --unpin): "
            f"{json.dumps(view.pinned_settings, ensure_ascii=False)}"
        )
    for warning in view.warnings:
        say(f"warning: {warning}")
    elements = literal_table("#", "page", "type", "chars", "text", title="elements", title_justify="left")
    for element in view.elements:
        kind = element.type + (f" h{element.heading_level}" if element.heading_level else "")
        span = "-" if element.char_start is None else f"{element.char_start}-{element.char_end}"
        add_literal_row(elements, (str(element.seq), str(element.page), kind, span, _clip(element.text, width)))
    _console().print(elements)
    chunks = literal_table(
        "#",
        "kind",
        "parent",
        "pages",
        "tokens",
        "lang",
        "elements",
        "cut at start",
        "cut at end",
        "body",
        title="chunks",
        title_justify="left",
    )
    for chunk in view.chunks:
        add_literal_row(
            chunks,
            (
                str(chunk.seq),
                chunk.kind,
                "" if chunk.parent_seq is None else str(chunk.parent_seq),
                chunk.pages,
                f"{chunk.token_count}{' !' if chunk.over_embedding_limit else ''}",
                chunk.language or "",
                _span_list(chunk.element_seqs),
                chunk.starts,
                chunk.ends,
                _clip(chunk.body, width),
            ),
        )
    _console().print(chunks)


def _clip(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _span_list(seqs: list[int]) -> str:
    return "" if not seqs else (f"#{seqs[0]}" if len(seqs) == 1 else f"#{seqs[0]}-#{seqs[-1]}")


@app.command()
def runs(
    db: str = DbOption,
    limit: int = typer.Option(10, "--limit", "-n", min=1, help="How many recent runs to list."),
    run_id: Optional[int] = typer.Option(None, "--run", help="Show the problems of this run instead of the last."),
    as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
) -> None:
    """Run history (newest first) and the failures of the last run, with stage and message."""
    from ingest import api  # here, not at the top: `ingest --help` loads no library

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
    _console().print(table)
    for item in history.last_run_problems:
        detail = f"[{item.stage}] {item.message}" if item.stage else (item.message or "")
        say(f"{item.outcome}: {item.document_id or '-'}  {item.source_path}: {detail}")


@app.command()
def unlock(db: str = DbOption) -> None:
    """Clear the writer lock left by a crashed run on ANOTHER host (same-host stale locks clear themselves)."""
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    holder = call(api.unlock, db)
    say(
        "no lock was held"
        if holder is None
        else f"cleared the lock of pid {holder.pid} on {holder.hostname} (run {holder.run_id})"
    )


# ---------------------------------------------------------------------------------------------
# EVAL COMMAND (the library side is ingest/evaluation/evaluate.py).
# ---------------------------------------------------------------------------------------------


@app.command("eval")
def eval_command(
    golden: Path = typer.Argument(..., help="Golden set: JSONL lines {question, must_contain, doc?, kind?}."),
    db: str = DbOption,
    config: Optional[Path] = ConfigOption,
    strategies: str = typer.Option(
        "structure,recursive,fixed", "--strategies", help="Comma-separated chunking strategies to compare."
    ),
    k: str = typer.Option("1,4,10", "--k", help="Comma-separated cut-offs for hit@k."),
    budget: int = typer.Option(1200, "--budget", help="Prompt budget in tokens for the budget hit."),
    chunk_set: list[str] = typer.Option(
        [], "--set", help="Chunk setting KEY=VALUE for every strategy, e.g. child_max_tokens=200 (repeatable)."
    ),
    output: str = typer.Option("table", "--format", "-f", help="table or json."),
) -> None:
    """Re-chunk the stored documents with each strategy and measure how often BM25 brings the answer to the top.

    Prints hit@k, parent-expanded hit@k, budget hit, chunk counts and mean tokens, per kind,
    and the misses with the top chunk retrieved; stores one row per strategy in `eval_runs`.
    """
    from ingest.evaluation.report import format_report

    if output not in ("table", "json"):
        raise typer.BadParameter(f"must be 'table' or 'json', not {output!r}", param_hint="--format")
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    report = call(
        api.evaluate,
        golden,
        db=db,
        config=config,
        strategies=comma_list(strategies, "--strategies"),
        ks=[number(value, "--k") for value in comma_list(k, "--k")],
        budget=budget,
        chunk_settings=key_values(chunk_set, "--set"),
    )
    sys.stdout.write(format_report(report, output))


def comma_list(value: str, option: str) -> list[str]:
    """'1,4,10' -> ['1', '4', '10']; an empty list is a usage error."""
    parts = [part.strip() for part in value.split(",") if part.strip()]
    if not parts:
        raise typer.BadParameter("needs at least one value, e.g. 1,4,10", param_hint=option)
    return parts


def number(value: str, option: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise typer.BadParameter(
            f"takes comma-separated integers such as 1,4,10, not {value!r}", param_hint=option
        ) from None


def key_values(pairs: list[str], option: str) -> dict[str, str]:
    """['child_max_tokens=200'] -> {'child_max_tokens': '200'}; ChunkSettings validates the values."""
    found = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(
                f"takes KEY=VALUE (a chunk setting such as child_max_tokens=200), not {pair!r}", param_hint=option
            )
        found[key.strip()] = value.strip()
    return found


# ---------------------------------------------------------------------------------------------
# RENDER AND REPORT (the library side is ingest/views/).
# ---------------------------------------------------------------------------------------------


class What(str, Enum):
    elements = "elements"
    chunks = "chunks"
    both = "both"


@app.command()
def render(
    document: str = typer.Argument(..., help="Document id (or unique prefix) or source path."),
    db: str = DbOption,
    pages: Optional[str] = typer.Option(None, "--pages", "-p", help="Pages to draw, e.g. 1,3-5 (default: all)."),
    out: Path = typer.Option(Path("."), "--out", "-o", help="Folder for the PNGs (<id>-p<N>.png)."),
    what: What = typer.Option(What.both, "--what", help="Draw elements, chunk spans, or both."),
    dpi: int = typer.Option(100, "--dpi", min=36, max=600, help="Pixels per inch (72 = one pixel per point)."),
) -> None:
    """Draw page pictures: elements boxed and coloured by type, each child chunk outlined and numbered."""
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    drawn = call(api.render, db, document, pages=pages, what=what.value, dpi=dpi, out=out)
    for page in drawn:
        say(f"{page.path}  page {page.page_no}: {len(page.element_boxes)} boxes, {len(page.chunk_labels)} chunks")
    for warning in sorted({warning for page in drawn for warning in page.warnings}):
        say(f"warning: {warning}", stderr=True)


@app.command()
def report(
    document: str = typer.Argument(..., help="Document id (or unique prefix) or source path."),
    db: str = DbOption,
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="HTML file to write (default: <id>.html)."),
    dpi: int = typer.Option(100, "--dpi", min=36, max=300, help="Resolution of the embedded page pictures."),
) -> None:
    """Write one self-contained HTML page: page pictures beside the chunks; click a chunk to see its boxes."""
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    result = call(api.report, db, document, out=out, dpi=dpi)
    say(f"{result.path}  {result.pages} page(s), {result.chunks} chunk(s), {len(result.warnings)} warning(s)")


if __name__ == "__main__":  # `python -m ingest.cli ...`, same as the `ingest` script
    app()
