"""Page progress from the workers to the parent: best effort, throttled, never a document's failure.

The parser reports each page it has read (`parsers.pdf.PageCounter`). In a worker process a
`PageReporter` turns that into `PageProgress` messages on a pipe the parent drains between its
waits (`ProgressChannel`); with `workers = 0` the reporter calls the parent's callback
directly. Rules:

- throttled: at most one message per `PROGRESS_INTERVAL` seconds per document, plus its first
  page (the parent learns the page count) and its last;
- best effort: a message that cannot be sent or read is dropped; a document never fails
  because of progress (only the soft time limit, a BaseException, passes through);
- workers never wait for the parent: the workers' end of the pipe is non-blocking, so a full
  pipe (a parent busy storing a large document) drops the message instead of stalling the parse;
- whole messages only: each message is one write of at most `PIPE_BUF` bytes, which the kernel
  writes entirely or not at all, so workers need no lock between them and a worker killed at
  any moment cannot leave half a message (a longer message, i.e. an absurdly long path, is dropped);
- in order: a message is in the pipe before the worker returns the document's result, so the
  parent, which drains before it handles results, sees a document's pages before its end;
- one pipe per process pool, closed with it.
"""

from __future__ import annotations

import functools
import os
import pickle
import select
import time
from typing import Any, Callable, NamedTuple

#: Seconds between two progress messages of one document (its first and last page always go).
#: Also how often the parent drains the pipes while it waits for results.
PROGRESS_INTERVAL = 0.25


class PageProgress(NamedTuple):
    """`done` of the `total` pages of the PDF at `path` read so far (see `parsers.pdf.PageCounter`)."""

    path: str
    done: int
    total: int


#: The parent's callback for page progress.
ProgressCallback = Callable[[PageProgress], None]


class PageReporter:
    """The parser's `on_page` hook for one document: sends throttled `PageProgress` messages
    through `send` and swallows any error of `send` (progress is never worth a document)."""

    def __init__(self, path: str, send: ProgressCallback):
        self.path, self.send = path, send
        self.last_sent = float("-inf")  # time.monotonic() of the last message

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done not in (1, total) and now - self.last_sent < PROGRESS_INTERVAL:
            return
        self.last_sent = now
        try:
            self.send(PageProgress(self.path, done, total))
        except Exception:  # noqa: BLE001 - a lost progress message must not fail the document
            pass


#: Where this process sends page progress: set in a worker by `receive_in_worker`, in the parent
#: while a `workers = 0` batch runs in-process (`in_process`). None: no progress wanted.
_sink: ProgressCallback | None = None


def reporter_for(path: str) -> PageReporter | None:
    """The `on_page` hook for the document at `path`, or None when nobody listens (no cost)."""
    return PageReporter(path, _sink) if _sink is not None else None


def receive_in_worker(writer: Any) -> None:
    """In a worker process (the pool's initializer): send progress to `writer`, the sending
    end of a `ProgressChannel` pipe (None: no progress wanted)."""
    global _sink
    if writer is None:
        return
    os.set_blocking(writer.fileno(), False)
    _sink = functools.partial(send_whole, writer)


def send_whole(writer: Any, message: PageProgress) -> None:
    """One atomic write of `message` (see the module docstring); raises BlockingIOError when
    the pipe is full and ValueError when the message is too long for one atomic write."""
    data = pickle.dumps(tuple(message))
    if len(data) + 4 > select.PIPE_BUF:  # + the length header `send_bytes` puts in front
        raise ValueError("progress message longer than one atomic pipe write")
    writer.send_bytes(data)


class in_process:
    """While the block runs, progress of tasks run in this process goes to `callback` (workers = 0)."""

    def __init__(self, callback: ProgressCallback | None):
        self.callback = callback
        self.previous: ProgressCallback | None = None

    def __enter__(self) -> None:
        global _sink
        self.previous, _sink = _sink, self.callback

    def __exit__(self, *_exc) -> None:
        global _sink
        _sink = self.previous


class ProgressChannel:
    """The parent's side: one pipe per process pool, drained into `callback`."""

    def __init__(self, context: Any, callback: ProgressCallback):
        self.context, self.callback = context, callback
        self.pipes: dict[object, tuple[Any, Any]] = {}  # pool -> (receiving end, sending end)

    def new_pipe(self) -> tuple[Any, Any]:
        """(receiving end, sending end) for a pool about to be created: pass the sending end
        to the workers' initializer, then `attach` both to the pool."""
        return self.context.Pipe(duplex=False)

    def attach(self, pool: object, pipe: tuple[Any, Any]) -> None:
        self.pipes[pool] = pipe

    def discard(self, pool: object) -> None:
        """Forget `pool`'s pipe (its workers were killed or have exited): unread messages are lost."""
        for end in self.pipes.pop(pool, ()):
            end.close()

    def drain(self) -> None:
        """Hand every message waiting now to the callback, without blocking (messages are
        whole, so a read never waits for the rest of one). A pipe that cannot be read is discarded."""
        for pool, (reader, _writer) in list(self.pipes.items()):
            try:
                while reader.poll(0):
                    message = PageProgress(*pickle.loads(reader.recv_bytes()))
                    self.callback(message)
            except (OSError, EOFError, pickle.UnpicklingError, TypeError, ValueError):
                self.discard(pool)  # lost progress, nothing else

    def close(self) -> None:
        for pool in list(self.pipes):
            self.discard(pool)
