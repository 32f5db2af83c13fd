"""What every command shares: the typer app, options, exit codes, the one-call wrapper that turns
our exceptions into a message and an exit code, and printing that shows stored text literally."""

from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager
from enum import Enum
from typing import Any, Callable, Iterable, Iterator, Optional

import typer
from rich.console import Console
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


def console(stderr: bool = False) -> Console:
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
    console(stderr).print(text, markup=False, highlight=False, soft_wrap=True)


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


def clip(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def span_list(seqs: list[int]) -> str:
    return "" if not seqs else (f"#{seqs[0]}" if len(seqs) == 1 else f"#{seqs[0]}-#{seqs[-1]}")
