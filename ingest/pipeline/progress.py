"""Page progress from the workers to the parent: best effort, throttled, never a document's failure.

The parser reports each page it has read (`parsers.pdf.PageCounter`). In a worker process a
`PageReporter` turns that into `PageProgress` messages on a queue the parent drains between
its waits (`ProgressChannel`); with `workers = 0` the reporter calls the parent's callback
directly. Rules:

- throttled: at most one message per `PROGRESS_INTERVAL` seconds per document, plus its first
  page (the parent learns the page count) and its last;
- best effort: a message that cannot be sent or read is dropped; a document never fails
  because of progress (only the soft time limit, a BaseException, passes through);
- one queue per process pool: a pool whose workers are killed (hard time limit, a crash) may
  leave its queue half-written, so its queue is closed with it and the new pool gets a new one;
- workers never wait for the parent: `cancel_join_thread`, so a worker exits even when its
  last messages were never read.
"""

from __future__ import annotations

import queue
import time
from typing import Any, Callable, NamedTuple

#: Seconds between two progress messages of one document (its first and last page always go).
#: Also how often the parent drains the queues while it waits for results.
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


def receive_in_worker(channel: Any) -> None:
    """In a worker process (the pool's initializer): send progress to `channel`, a
    multiprocessing queue from `ProgressChannel` (None: no progress wanted)."""
    global _sink
    if channel is None:
        return
    channel.cancel_join_thread()  # exiting never waits for the parent to read the last messages
    _sink = channel.put


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
    """The parent's side: one multiprocessing queue per process pool, drained into `callback`."""

    def __init__(self, context: Any, callback: ProgressCallback):
        self.context, self.callback = context, callback
        self.queues: dict[object, Any] = {}  # pool -> its queue

    def new_queue(self) -> Any:
        """A queue for a pool about to be created (pass it to the workers' initializer), then `attach` it."""
        return self.context.Queue()

    def attach(self, pool: object, channel: Any) -> None:
        self.queues[pool] = channel

    def discard(self, pool: object) -> None:
        """Forget `pool`'s queue (its workers were killed or have exited): unread messages are lost."""
        channel = self.queues.pop(pool, None)
        if channel is not None:
            channel.close()

    def drain(self) -> None:
        """Hand every message waiting now to the callback, without blocking. A queue that
        cannot be read (a worker killed mid-write) is discarded."""
        for key, channel in list(self.queues.items()):
            while True:
                try:
                    message = channel.get_nowait()
                except queue.Empty:
                    break
                except Exception:  # noqa: BLE001 - a damaged queue loses progress, nothing else
                    self.queues.pop(key, None)
                    break
                self.callback(PageProgress(*message))

    def close(self) -> None:
        for channel in self.queues.values():
            channel.close()
        self.queues.clear()
