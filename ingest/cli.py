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
import signal
import sys
import threading
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional

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
    None,
    "--db",
    envvar="INGEST_DB",
    help="Database file path or SQLAlchemy URL (default: env INGEST_DB, else the config's [store] db, else ingest.db).",
)


def _tesseract_languages(value: Optional[str]) -> Optional[str]:
    """--ocr-lang checked by the library's own rule (`OcrSettings.languages`): a usage error
    (exit 2) naming the option, before any file is read."""
    if value is None:
        return None
    from ingest import api

    problem = api.tesseract_languages_problem(value)
    if problem:
        raise typer.BadParameter(problem, param_hint="--ocr-lang")
    return value


OcrLangOption = typer.Option(
    None, "--ocr-lang", callback=_tesseract_languages, help="Tesseract languages, e.g. eng+hin+mar."
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


class Executor(str, Enum):
    process = "process"
    ray = "ray"


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
        with _signals_as_interrupt():
            return function(*args, **kwargs)
    except IngestError as error:
        say(f"error: {error}", stderr=True)
        raise typer.Exit(exit_code_for(error)) from None
    except KeyboardInterrupt as interrupt:
        number = getattr(interrupt, "signal_number", signal.SIGINT)
        say(
            f"interrupted ({signal.Signals(number).name}): documents already stored are complete; "
            "the next run finishes the job",
            stderr=True,
        )
        raise typer.Exit(128 + number) from None


@contextmanager
def _signals_as_interrupt() -> Iterator[None]:
    """SIGTERM (a service manager stopping the job) and SIGHUP (the terminal closed) raise
    `Terminated`, a KeyboardInterrupt, so they end a command the way Ctrl-C does: lock released,
    run marked interrupted, one line on stderr. Previous handlers come back afterwards."""
    from ingest.contracts.errors import Terminated

    def on_signal(number: int, _frame) -> None:
        raise Terminated(number, signal.Signals(number).name)

    if threading.current_thread() is not threading.main_thread():  # signal handlers: main thread only
        yield
        return
    previous = {number: signal.signal(number, on_signal) for number in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


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
def query(
    sql: str = typer.Argument(..., help='One SQL statement, e.g. "select id, title from documents".'),
    db: Optional[str] = DbOption,
    output: Format = typer.Option(Format.table, "--format", "-f", help="Output format."),
    timeout: float = typer.Option(
        60.0, "--timeout", help="Seconds the statement may run before it is stopped (a finite number > 0)."
    ),
) -> None:
    """Run read-only SQL: the connection cannot write (INSERT, UPDATE, DELETE, DROP, ATTACH fail).

    Rows are streamed as they come; the statement stops after --timeout seconds or on Ctrl-C.
    Blobs print as `blob(N bytes) base64:...`. The table format shows the first 1000 rows.
    Tables: documents, pages, elements, chunks, chunks_fts (FTS5), runs, run_items, eval_runs.
    Example: ingest query "select c.id, bm25(chunks_fts) from chunks_fts join chunks c on c.id =
    chunks_fts.rowid where chunks_fts match 'whitefly' order by 2 limit 5"
    """
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = api.resolve_db(db)

    if not 0 < timeout < float("inf"):
        say(f"error: [config] --timeout must be a finite number of seconds > 0, not {timeout}", stderr=True)
        raise typer.Exit(EXIT_USAGE)
    call(_print_query, api, db, sql, output, timeout)


#: Rows the table format prints (it must lay out all its rows at once); csv and json print every row.
TABLE_ROWS = 1000


def _print_query(api, db: str, sql: str, output: Format, timeout: float) -> None:
    from storage.query import value_to_text, write_csv, write_json

    with api.stream_query(db, sql, timeout=timeout) as stream:
        if output is Format.json:
            write_json(stream.columns, stream.rows, sys.stdout)
            return
        if output is Format.csv:
            write_csv(stream.columns, stream.rows, sys.stdout)
            return
        table = literal_table(*stream.columns, show_lines=False)
        shown, more = 0, False
        for row in stream.rows:
            if shown == TABLE_ROWS:
                more = True
                break
            add_literal_row(table, ("NULL" if value is None else str(value_to_text(value)) for value in row))
            shown += 1
    _console().print(table)
    if more:
        say(f"first {TABLE_ROWS} row(s) shown; use --format csv or json for all", stderr=True)
    else:
        say(f"{shown} row(s)", stderr=True)


@app.command()
def show(
    document: str = typer.Argument(..., help="Document id (or unique prefix) or source path."),
    db: Optional[str] = DbOption,
    as_json: bool = typer.Option(False, "--json", help="Print the whole view as JSON."),
    width: int = typer.Option(70, "--width", min=10, help="Characters of each text shown in tables."),
) -> None:
    """Show a document's elements and chunks, and where each chunk's cuts fell between elements."""
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = api.resolve_db(db)

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
    _console().print(table)
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


# ---------------------------------------------------------------------------------------------
# EVAL COMMAND (the library side is ingest/evaluation/evaluate.py).
# ---------------------------------------------------------------------------------------------


GOLDEN_HELP = (
    "Golden set: JSONL lines {question, must_contain?, pages?, doc?, kind?, note?}; must_contain "
    "and/or pages (evidence pages, 1-based) are required; with pages, a hit must cover one."
)


@app.command("eval")
def eval_command(
    golden: Path = typer.Argument(..., help=GOLDEN_HELP),
    db: Optional[str] = DbOption,
    config: Optional[Path] = ConfigOption,
    strategies: str = typer.Option(
        "structure,recursive,fixed", "--strategies", help="Comma-separated chunking strategies to compare."
    ),
    k: str = typer.Option("1,4,10", "--k", help="Comma-separated cut-offs for hit@k."),
    budget: int = typer.Option(1200, "--budget", help="Prompt budget in tokens for the budget hit."),
    chunk_set: list[str] = typer.Option(
        [], "--set", help="Chunk setting KEY=VALUE for every strategy, e.g. child_max_tokens=200 (repeatable)."
    ),
    retriever: str = typer.Option(
        "bm25", "--retriever", help="bm25, vector or hybrid (as ingest search; vector/hybrid embed re-chunked texts)."
    ),
    model: Optional[str] = typer.Option(None, "--model", "-m", help="Embedding model for vector/hybrid."),
    output: str = typer.Option("table", "--format", "-f", help="table or json."),
) -> None:
    """Re-chunk the stored documents with each strategy and measure how often search brings the answer to the top.

    Prints hit@k, parent-expanded hit@k, budget hit, chunk counts and mean tokens, per kind,
    and the misses with the top chunk retrieved; stores one row per strategy in `eval_runs`.
    """
    from ingest.evaluation.report import format_report

    if output not in ("table", "json"):
        raise typer.BadParameter(f"must be 'table' or 'json', not {output!r}", param_hint="--format")
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = call(api.resolve_db, db, config)

    report = call(
        api.evaluate,
        golden,
        db=db,
        config=config,
        strategies=comma_list(strategies, "--strategies"),
        ks=[number(value, "--k") for value in comma_list(k, "--k")],
        budget=budget,
        chunk_settings=key_values(chunk_set, "--set"),
        retriever=retriever,
        model=model,
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
    db: Optional[str] = DbOption,
    pages: Optional[str] = typer.Option(None, "--pages", "-p", help="Pages to draw, e.g. 1,3-5 (default: all)."),
    out: Path = typer.Option(Path("."), "--out", "-o", help="Folder for the PNGs (<id>-p<N>.png)."),
    what: What = typer.Option(What.both, "--what", help="Draw elements, chunk spans, or both."),
    dpi: int = typer.Option(100, "--dpi", min=36, max=600, help="Pixels per inch (72 = one pixel per point)."),
) -> None:
    """Draw page pictures: elements boxed and coloured by type, each child chunk outlined and numbered."""
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = api.resolve_db(db)

    drawn = call(api.render, db, document, pages=pages, what=what.value, dpi=dpi, out=out)
    for page in drawn:
        say(f"{page.path}  page {page.page_no}: {len(page.element_boxes)} boxes, {len(page.chunk_labels)} chunks")
    for warning in sorted({warning for page in drawn for warning in page.warnings}):
        say(f"warning: {warning}", stderr=True)


@app.command()
def report(
    document: str = typer.Argument(..., help="Document id (or unique prefix) or source path."),
    db: Optional[str] = DbOption,
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="HTML file to write (default: <id>.html)."),
    dpi: int = typer.Option(100, "--dpi", min=36, max=300, help="Resolution of the embedded page pictures."),
) -> None:
    """Write one self-contained HTML page: page pictures beside the chunks; click a chunk to see its boxes."""
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = api.resolve_db(db)

    result = call(api.report, db, document, out=out, dpi=dpi)
    say(f"{result.path}  {result.pages} page(s), {result.chunks} chunk(s), {len(result.warnings)} warning(s)")


# ---------------------------------------------------------------------------------------------
# SEARCH COMMAND (the library side is storage/search.py).
# ---------------------------------------------------------------------------------------------


@app.command()
def search(
    question: str = typer.Argument(..., help="The question, in the user's words (no FTS5 syntax needed)."),
    db: Optional[str] = DbOption,
    k: int = typer.Option(5, "--k", min=1, help="How many results."),
    doc: Optional[str] = typer.Option(None, "--doc", help="Only this document (id, id prefix or source path)."),
    where: Optional[str] = typer.Option(
        None, "--where", help="SQL condition over c (chunks) and d (documents), e.g. \"d.title LIKE '%cotton%'\"."
    ),
    parents: bool = typer.Option(False, "--parents", help="Return each hit's parent section (de-duplicated)."),
    vector: bool = typer.Option(False, "--vector", help="Rank by embedding similarity (needs `ingest embed`)."),
    hybrid: bool = typer.Option(
        False, "--hybrid", help="Fuse the BM25 and vector rankings (reciprocal rank fusion; needs `ingest embed`)."
    ),
    model: Optional[str] = typer.Option(
        None, "--model", "-m", help="Embedding model for --vector/--hybrid (default all-MiniLM-L6-v2-int8)."
    ),
    output: str = typer.Option("table", "--format", "-f", help="table or json."),
) -> None:
    """The chunks a bot would retrieve for a question, best first: BM25 (SQLite FTS5) over child
    chunks, or by vector (--vector), or both fused (--hybrid)."""
    if output not in ("table", "json"):
        raise typer.BadParameter(f"must be 'table' or 'json', not {output!r}", param_hint="--format")
    if doc and where:
        raise typer.BadParameter("give --doc or --where, not both (--where can say c.document_id = '...')")
    if vector and hybrid:
        raise typer.BadParameter("give --vector or --hybrid, not both")
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = api.resolve_db(db)
    retriever = "vector" if vector else "hybrid" if hybrid else "bm25"
    hits = call(api.search, db, question, k=k, doc=doc, where=where, parents=parents, retriever=retriever, model=model)
    if output == "json":
        sys.stdout.write(json.dumps([hit.model_dump() for hit in hits], ensure_ascii=False, indent=2) + "\n")
        return
    table = literal_table(
        "#", "score", "doc", "chunk", "kind", "pages", "tokens", "heading path", "text", show_lines=True
    )
    for hit in hits:
        pages = str(hit.page_start) if hit.page_start == hit.page_end else f"{hit.page_start}-{hit.page_end}"
        body = hit.text[len(hit.heading_path) :].strip() if hit.text.startswith(hit.heading_path) else hit.text
        add_literal_row(
            table,
            (
                str(hit.rank),
                f"{hit.score:.4f}" if retriever != "bm25" else f"{hit.score:.2f}",
                hit.document_id,
                str(hit.chunk_id),
                hit.kind,
                pages,
                str(hit.token_count),
                hit.heading_path,
                _clip(body, 200),
            ),
        )
    _console().print(table)
    say(f"{len(hits)} result(s)", stderr=True)


# ---------------------------------------------------------------------------------------------
# EXPORT AND EMBED (the library side is ingest/integrations/).
# ---------------------------------------------------------------------------------------------


class ExportFormat(str, Enum):
    jsonl = "jsonl"
    markdown = "markdown"


class ChunkKind(str, Enum):
    child = "child"
    parent = "parent"
    all = "all"


@app.command()
def export(
    document: Optional[str] = typer.Argument(None, help="Document id (or unique prefix) or source path (default all)."),
    db: Optional[str] = DbOption,
    where: Optional[str] = typer.Option(
        None, "--where", help="SQL condition on the chunk_context view, e.g. \"title like '%Cotton%'\" (read-only)."
    ),
    format: ExportFormat = typer.Option(ExportFormat.jsonl, "--format", "-f", help="jsonl (chunks) or markdown."),
    kind: ChunkKind = typer.Option(ChunkKind.child, "--kind", help="JSONL: child chunks, parents, or all."),
    out: Optional[Path] = typer.Option(
        None, "--out", "-o", help="JSONL: file (default stdout). Markdown: folder, one <id>.md per document."
    ),
) -> None:
    """Export chunks as JSONL ({"page_content", "metadata"} a line) or documents as Markdown."""
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = api.resolve_db(db)

    result = call(
        api.export, db, document, where=where, format=format.value, kind=kind.value, out=out, stream=sys.stdout
    )
    if out is not None:
        what = f"{result.chunks} chunk(s) from " if format == ExportFormat.jsonl else ""
        say(f"{what}{result.documents} document(s) -> {out}", stderr=True)


@app.command()
def embed(
    db: Optional[str] = DbOption,
    model: Optional[str] = typer.Option(
        None, "--model", "-m", help="Packaged embedding model (default all-MiniLM-L6-v2-int8; extra 'embed')."
    ),
    batch: int = typer.Option(32, "--batch", "-b", min=1, help="Chunks per model call."),
) -> None:
    """Compute vectors for child chunks that have none for the model (incremental; one commit per document)."""
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = api.resolve_db(db)

    result = call(api.embed, db, model=model, batch=batch)
    say(
        f"{result.model}: {result.chunks} chunk(s) embedded in {result.documents} document(s), "
        f"{result.seconds:.1f} s ({result.chunks_per_second:.1f} chunks/s); {result.stored_total} stored in total"
    )
    if result.truncated:
        say(
            f"warning: {result.truncated} chunk(s) longer than {result.max_tokens} model tokens were embedded from "
            "their first tokens (chunk_embeddings.truncated = 1)",
            stderr=True,
        )
    if result.purged:
        say(f"{result.purged} vector(s) of chunks deleted since the last run were purged", stderr=True)


if __name__ == "__main__":  # `python -m ingest.cli ...`, same as the `ingest` script
    app()
