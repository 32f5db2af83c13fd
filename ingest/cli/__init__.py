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

Commands live by concern: `batch` (run, reprocess, runs, unlock), `read` (query, show,
search), `evaluate` (eval), `views` (render, report), `integrations` (export, embed); shared
options, exit codes and printing in `common`. Importing this package registers them all on
`app`; the library (ingest.api) is imported inside each command, so `ingest --help` loads none.

Python's cyclic garbage collector runs in this process after every 100,000 net allocations of
container objects instead of every 700 (`COLLECTOR_THRESHOLD`). Why: starting up
(typer, pydantic, SQLAlchemy, the parser, the tokenizer) creates ~150,000 objects that live as
long as the process, and with the default the collector walked them again and again: 180 young,
16 middle and 1 full pass, 0.15-0.18 s of CPU, a tenth of `ingest run` on one small PDF, for
nothing to free (docs/benchmarks.md). Reference counting still frees every object that
is not in a cycle at once, so at most 100,000 objects of cyclic garbage wait for a pass. A
document's own work runs with the collector paused anyway (`ingest.pipeline.document`). Library
users (`ingest.api`) keep their own settings: only the command line sets this.
"""

import gc

#: Net container allocations between two young-generation passes of the collector (default 700).
COLLECTOR_THRESHOLD = 100_000
gc.set_threshold(COLLECTOR_THRESHOLD, *gc.get_threshold()[1:])

from ingest.cli import batch, evaluate, integrations, read, views  # noqa: E402, F401 - registers the commands
from ingest.cli.common import (  # noqa: E402 - after the collector's threshold
    EXIT_DATABASE,
    EXIT_FAILED_DOCUMENTS,
    EXIT_LOCKED,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_QUERY,
    EXIT_USAGE,
    app,
)

__all__ = [
    "EXIT_DATABASE",
    "EXIT_FAILED_DOCUMENTS",
    "EXIT_LOCKED",
    "EXIT_NOT_FOUND",
    "EXIT_OK",
    "EXIT_QUERY",
    "EXIT_USAGE",
    "app",
]
