"""A long document parsed by every worker at once: page ranges read in parallel, then assembled.

One task per document leaves a core idle while one long PDF parses (DA-619p: about 40 s alone).
So, with 2 or more workers, each document's task first asks how many pages it has
(`Job.split_above` = `PipelineSettings.split_pages`); a longer one comes back as `PageCount`
instead of being processed, and becomes:

1. one task per worker reading a page range (`parsers.pages.read_page_range_of_file`; reading
   a page looks at that page alone, so the parts are what one pass gives);
2. when every part is in, one task that parses from the pages read, in page order
   (`parse_pdf(..., pages_read=...)`: the document-wide passes - body size, running headers
   and footers, headings, cross-page tables - run once, over the whole document), then
   chunks and enriches it as any document. In a pool (`workers.execute`), the parts reach that
   task as files (`ingest.pipeline.spill`: the main process never holds the page layouts), and
   it is two tasks, each in a fresh worker: one parses and hands the document over as a file,
   the next chunks and enriches it (`document.process_part`; one worker doing all of it peaked
   at 170 MB on DA-619p, docs/benchmarks.md "Memory per process"). The files are removed when
   the document ends (and with the run's directory in any case).

The output is the same as without splitting (`benchmarks/same_output.py`; a test compares the
`Document`s). The parts go to the front of the queue, so the long document's passes start as
early as possible while the other workers take the short documents.

Limits stay per document: the time limit runs from the start of the first part; the assembling
task gets what is left of it, and a part or assembly that runs out fails the document with the
usual "timed out after N s" (N = the document's limit). A part that fails, crashes its worker
or passes the memory cap fails the document with that part's stage and message; the other parts'
results are dropped. `execute` keeps its isolation: a crash is retried alone, as for a document.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Iterator, TypeVar

from ingest.contracts.elements import Document
from ingest.pipeline.processed import PageCount
from ingest.pipeline.progress import ProgressCallback
from ingest.pipeline.settings import PipelineSettings
from ingest.pipeline.spill import Spilled
from ingest.pipeline.workers import Failure, Job, TaskResult, execute, timeout_message

T = TypeVar("T")


@dataclass(eq=False)
class _Document:
    """A split document while its parts run: the caller's tag and job, and the parts read so far."""

    tag: object
    job: Job
    parts: int
    started: float  # time.monotonic() when its parts were queued
    # part index -> parsers.pages.PagesRead, or the file a pool's worker wrote it to (`Spilled`)
    read: dict[int, object] = field(default_factory=dict)
    failed: bool = False
    files: list[Spilled] = field(default_factory=list)  # the parts' files, removed when the document ends

    def remove_files(self) -> None:
        for spilled in self.files:
            spilled.remove()
        self.files.clear()


@dataclass(frozen=True, eq=False)
class _Whole:
    """A document's first task (processed whole unless it answers PageCount)."""

    tag: object
    job: Job


@dataclass(frozen=True, eq=False)
class _Part:
    document: _Document
    index: int


@dataclass(frozen=True, eq=False)
class _Assembly:
    """The task parsing the document from its page ranges (read from their files, when spilled)."""

    document: _Document


@dataclass(frozen=True, eq=False)
class _Finish:
    """The task chunking and enriching the document the assembly parsed (handed over as a file)."""

    document: _Document


def execute_splitting(
    jobs: list[Job], tags: list[T], settings: PipelineSettings, on_pages: ProgressCallback | None = None
) -> Iterator[tuple[T, TaskResult]]:
    """`execute` (same contract: (tag, result) per job, completion order, never raises for a
    document), with documents over `settings.split_pages` pages read as ranges by all the
    workers. With fewer than 2 workers or `split_pages = 0` it is `execute` itself.
    `on_pages`: page progress as for `execute`; a split document's pages are reported once each,
    by its assembling task (the range reads report none), see `document.process_part`."""
    workers = settings.worker_count
    if workers < 2 or not settings.split_pages:
        yield from execute(jobs, tags, settings, on_pages=on_pages)
        return
    queue: deque = deque()
    asked = [job._replace(split_above=settings.split_pages) for job in jobs]
    wholes = [_Whole(tag, job) for job, tag in zip(asked, tags)]
    for tag, result in execute(asked, wholes, settings, on_pages=on_pages, queue=queue):
        if isinstance(tag, _Whole):
            if isinstance(result.value, PageCount):
                queue.extendleft(reversed(_parts(tag.tag, tag.job, result.value, workers)))
                continue
            yield tag.tag, result
        elif isinstance(tag, _Part):
            done = _part_done(tag, result, settings)
            if isinstance(done, TaskResult):
                yield tag.document.tag, done
            elif done is not None:
                queue.appendleft(done)
        elif isinstance(tag, _Assembly) and isinstance(result.value, (Spilled, Document)):  # parsed only
            if isinstance(result.value, Spilled):
                tag.document.files.append(result.value)
            queue.appendleft(_finish(tag.document, result.value, settings))
        else:
            tag.document.remove_files()
            yield tag.document.tag, _as_document_result(tag.document, result, settings)


def _parts(tag: object, job: Job, count: PageCount, workers: int) -> list[tuple[Job, _Part]]:
    """One range-reading job per worker over the document's `count.pages` pages."""
    from parsers.pages import page_ranges

    ranges = page_ranges(count.pages, workers)
    document = _Document(tag=tag, job=job._replace(split_above=0), parts=len(ranges), started=time.monotonic())
    return [(document.job._replace(pages=pages), _Part(document, index)) for index, pages in enumerate(ranges)]


def _part_done(part: _Part, result: TaskResult, settings: PipelineSettings) -> TaskResult | tuple | None:
    """What a finished part leads to: the document's failure (a TaskResult to yield), its
    assembly job (a (job, tag) pair to queue) once every part is in, or None (wait for more, or
    the document already failed)."""
    document = part.document
    if isinstance(result.value, Spilled):
        document.files.append(result.value)
    if document.failed:
        document.remove_files()
        return None
    if isinstance(result.value, Failure):
        document.failed = True
        document.read.clear()
        document.remove_files()
        return _as_document_result(document, result, settings)
    document.read[part.index] = result.value
    if len(document.read) < document.parts:
        return None
    parts = [document.read[index] for index in range(document.parts)]
    document.read.clear()
    if document.files:  # read from their files by the assembling worker, in page order
        pages_read: object = parts
    else:
        from parsers.pages import pages_read_in_order

        pages_read = pages_read_in_order(parts)
    own = document.job.settings or settings
    left = max(own.timeout - (time.monotonic() - document.started), 0.001)
    assembly = document.job._replace(pages_read=pages_read, settings=own.model_copy(update={"timeout": left}))
    return assembly, _Assembly(document)


def _finish(document: _Document, parsed: Spilled | Document, settings: PipelineSettings) -> tuple:
    """The (job, tag) chunking and enriching the parsed document, under what is left of its time limit."""
    own = document.job.settings or settings
    left = max(own.timeout - (time.monotonic() - document.started), 0.001)
    job = document.job._replace(parsed=parsed, settings=own.model_copy(update={"timeout": left}))
    return job, _Finish(document)


def _as_document_result(document: _Document, result: TaskResult, settings: PipelineSettings) -> TaskResult:
    """A part's or the assembly's result as the document's: its seconds counted from the first
    part's start, and a soft time-out named with the document's limit (the assembly ran under
    what was left of it)."""
    value = result.value
    limit = (document.job.settings or settings).timeout
    if isinstance(value, Failure) and value.message.startswith("timed out after") and "killed" not in value.message:
        value = Failure(stage=value.stage, message=timeout_message(limit))
    return result.model_copy(update={"value": value, "seconds": round(time.monotonic() - document.started, 3)})
