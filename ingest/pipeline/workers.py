"""Running `process_document` for many PDFs: a process pool with a per-document time limit.

One task per document; at most `workers` tasks in flight, so a task starts when submitted
and its clock is honest. Two limits:

- soft: inside the worker an interval timer raises `SoftTimeout` at `timeout` seconds, which
  becomes a clean failure of the stage that was running (`SoftTimeout.stage`, set by
  `ingest.pipeline.stage`; "parse" when no stage named it);
- hard: a task still running `grace` seconds later is stuck in native code (pdfium, a
  Tesseract call): the pool's processes are killed, the task is failed with
  "timed out after N s", the pool is replaced and the other in-flight tasks are resubmitted.

A worker that dies (segfault, out-of-memory kill) breaks the pool: its in-flight tasks are
retried one at a time, so only the document that kills a worker on its own is failed.
`workers = 0` runs everything in this process (debugging; the soft limit still applies).
Workers watch the parent's pid and exit within a second when the run is killed.

Page progress (`on_pages`): the parser's per-page hook reaches the parent through
`ingest.pipeline.progress` (a pipe per pool, drained every `PROGRESS_INTERVAL` seconds while
the parent waits; best effort, never a document's failure).

Workers stay warm: a worker keeps its imports, pdfium, the language model and the tokenizer
from one document to the next, and is replaced only when its resident memory after a task
passes `recycle_limit_mb` (a parser's slow leak or a fragmented heap cannot grow forever).
The forkserver imports the worker's modules and loads the default language model and
tokenizer once (`ingest.pipeline.preload`), so a new worker is a fork that starts with them.

A small run (at most `worker_count` documents, at most 1 MiB of files) starts no forkserver: this process loads the
pipeline itself and forks its workers directly (`fork_from_here`). A forkserver is a second
interpreter that imports everything again (and a resource tracker a third): for one small PDF
that was more CPU than the document. The workers are the same processes with the same limits
(soft and hard time limit, memory cap, crash isolation, orphan watch); they are forked before
any result has arrived, so they inherit none. A forked worker writes through new `sys.stdout`
and `sys.stderr` objects: a thread of this process (a progress bar) may have held the old ones'
locks at the moment of the fork.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import tempfile
import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Iterator, NamedTuple, Sequence, TypeVar

from pydantic import BaseModel, ConfigDict

from ingest.contracts.errors import IngestError, SoftTimeout
from ingest.contracts.processes import pid_alive, process_start_time, release_free_memory
from ingest.pipeline.progress import PROGRESS_INTERVAL, ProgressCallback, ProgressChannel, in_process, receive_in_worker
from ingest.pipeline.settings import PipelineSettings
from ingest.pipeline.spill import Spilled, loaded, spill

T = TypeVar("T")
J = TypeVar("J")

#: Replace the workers when one of them holds more than this many MiB after a task (or half the
#: per-worker memory cap, when that is lower). A fresh worker holds about 80 MiB, most of it
#: shared with the forkserver it was forked from (docs/benchmarks.md, "Memory per process").
RECYCLE_RSS_MB = 1024

#: A task after which the worker holds this many MiB more than before it gives its free heap
#: back (`release_free_memory`; a small PDF's task never does, so it costs them nothing).
TRIM_AFTER_MB = 24

#: Imported by the forkserver before it forks a worker ("__main__" is multiprocessing's default).
PRELOAD = ["__main__", "ingest.pipeline.preload"]

#: In a worker: the run's directory for results handed over as files (`ingest.pipeline.spill`);
#: None in the main process and with `workers = 0` (nothing to hand over).
_SPILL_DIR: str | None = None


class Failure(BaseModel):
    model_config = ConfigDict(extra="forbid")

    stage: str
    message: str


class TaskResult(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    value: Any  # ProcessedDocument | Failure
    seconds: float
    rss_mb: float = 0.0  # the worker's resident memory after the task (0: not measured)


def recycle_limit_mb(memory_limit_mb: int) -> float:
    """Resident MiB after a task past which the workers are replaced (see RECYCLE_RSS_MB)."""
    return min(RECYCLE_RSS_MB, memory_limit_mb / 2) if memory_limit_mb else RECYCLE_RSS_MB


def resident_mb() -> float:
    """This process's resident set size now, in MiB (Linux /proc; elsewhere the peak)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1 << 20)
    except (OSError, ValueError, IndexError):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def hard_grace(timeout: float) -> float:
    """Extra seconds after the soft limit before a worker is killed."""
    return min(max(5.0, 0.1 * timeout), 60.0)


def timeout_message(timeout: float, killed: bool = False) -> str:
    """The failure message of a document that ran past `timeout` seconds (`killed`: by the hard limit)."""
    return (
        f"timed out after {timeout:g} s{' (worker killed)' if killed else ''}; raise --timeout for very long "
        "documents, or fix/remove the file"
    )


def _on_alarm(_signum, _frame):
    raise SoftTimeout


class Job(NamedTuple):
    """One document for `run_task` (or one part of a long one: `ingest.pipeline.split`)."""

    path: str
    sha256: str | None = None  # hex SHA-256 from discover, so the worker does not hash the file again
    settings: PipelineSettings | None = None  # this document's own (pinned) settings, else the run's
    # Split documents (`ingest.pipeline.split`): answer `PageCount` instead of processing a document
    # of more pages than this (0 = never); read only pages [first, stop); parse from pages read.
    split_above: int = 0
    pages: tuple[int, int] | None = None
    pages_read: Any = None  # parsers.pages.PagesRead, or the ranges as files (a list of spill.Spilled)
    parsed: Any = None  # the document parsed from its ranges (a spill.Spilled): chunk and enrich it


def memory_message(limit_mb: int) -> str:
    return (
        f"memory limit exceeded ({limit_mb} MiB per worker, setting memory_limit_mb): the document needs "
        "more (a decompression bomb or a huge page?); fix or remove the file, or raise the limit"
    )


def _worker_init(
    parent_pid: int,
    parent_start: str | None,
    memory_limit_mb: int = 0,
    progress_pipe: Any = None,
    spill_dir: str | None = None,
    forked_from_parent: bool = False,
) -> None:
    global _SPILL_DIR
    _SPILL_DIR = spill_dir
    os.environ["OMP_THREAD_LIMIT"] = "1"  # Tesseract: parallelise by process, not by thread
    if forked_from_parent:
        _fresh_standard_streams()
    if memory_limit_mb:
        # RLIMIT_AS: an allocation past the cap fails (MemoryError in Python, a failed malloc in
        # pdfium) instead of growing until the machine swaps or the OOM killer picks a victim.
        import resource

        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = memory_limit_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))
    # The parent handles Ctrl-C, SIGTERM and SIGHUP (sent to the whole group or cgroup too) and
    # stops the pool: a worker dying first would make its document look failed.
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_IGN)
    threading.Thread(
        target=_exit_when_orphaned, args=(parent_pid, parent_start), daemon=True, name="orphan-watch"
    ).start()
    receive_in_worker(progress_pipe)


def _fresh_standard_streams() -> None:
    """New `sys.stdout`/`sys.stderr` objects on the same descriptors, in a worker forked from the
    parent: another thread of the parent (a progress bar redrawing) may have held the old
    objects' locks when it forked, and a held lock would hang the worker's first warning."""
    import sys

    for name, fd in (("stdout", 1), ("stderr", 2)):
        old = getattr(sys, name)
        try:
            setattr(sys, name, open(fd, "w", encoding=getattr(old, "encoding", None), closefd=False, buffering=1))
        except (OSError, ValueError):
            pass


def _exit_when_orphaned(parent_pid: int, parent_start: str | None) -> None:
    """A worker whose run was killed (kill -9) stops within a second instead of parsing on for
    up to --timeout seconds with nobody to receive the result."""
    while True:
        time.sleep(1.0)
        if not pid_alive(parent_pid, parent_start):
            os._exit(70)


def run_task(job: Job | str, settings: PipelineSettings) -> TaskResult:
    """process_document with the soft time limit; every exception becomes a Failure.
    `job`: a Job, or just the path (the file is then hashed by the parser)."""
    from ingest.pipeline.document import process_document, process_part
    from ingest.pipeline.progress import reporter_for
    from parsers.pdf_info import reset_pdfium

    job = Job(job) if isinstance(job, str) else job
    path, sha256, settings = job.path, job.sha256, job.settings or settings
    started, resident_before = time.monotonic(), resident_mb()
    reset_pdfium()  # no pdfium state from the worker's previous document (same chunks alone or in a batch)
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, settings.timeout)
    try:
        on_page = reporter_for(path)
        if job.split_above or job.pages or job.pages_read or job.parsed:  # a long document's steps (split.py)
            value: Any = process_part(
                path, settings, sha256, job.split_above, job.pages, job.pages_read, on_page=on_page, parsed=job.parsed
            )
        else:
            value = process_document(path, settings, sha256=sha256, on_page=on_page)
    except SoftTimeout as timeout:
        value = Failure(stage=timeout.stage or "parse", message=timeout_message(settings.timeout))
    except IngestError as error:
        value = Failure(stage=error.stage, message=error.reason)
    except MemoryError:
        value = Failure(stage="parse", message=memory_message(settings.worker_memory_limit_mb))
    except Exception as error:  # noqa: BLE001 - a bug in a stage must fail one document, not the batch
        value = Failure(stage="pipeline", message=f"unexpected {type(error).__name__}: {error}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    seconds = round(time.monotonic() - started, 3)
    value = _handed_over(value)
    if resident_mb() - resident_before > TRIM_AFTER_MB:
        release_free_memory()  # the next task starts from less (a split document's assembly)
    return TaskResult(value=value, seconds=seconds, rss_mb=round(resident_mb(), 1))


def _handed_over(value: Any) -> Any:
    """In a pool's worker, a document's result or a page range read as a file (`Spilled`: the
    main process reads the document back, the assembling worker the page ranges); failures and
    page counts (small) as they are."""
    if _SPILL_DIR is None or isinstance(value, (Failure, tuple)):  # PageCount is a NamedTuple
        return value
    from ingest.pipeline.processed import ProcessedDocument

    return spill(value, _SPILL_DIR, keep=not isinstance(value, ProcessedDocument))


def _left_over(result: TaskResult) -> bool:
    """Whether the worker handed over a step of a split document (a page range, the parsed
    document: a `Spilled` kept for the next step). Its pool is then replaced, so the next step
    starts in a worker fresh from the forkserver instead of one holding what reading 300 pages
    left behind (about 23 MB on DA-619p after trimming: pdfium's state, a fragmented heap).
    A new worker is a fork of the forkserver (or of this process, `fork_from_here`), which has
    everything loaded: milliseconds."""
    return isinstance(result.value, Spilled) and result.value.keep


def _read_back(result: TaskResult) -> TaskResult:
    """`result` with a document handed over as a file read back (`spill.loaded`); a file that
    cannot be read fails the document."""
    if not isinstance(result.value, Spilled) or result.value.keep:
        return result
    try:
        value = loaded(result.value)
    except Exception as error:  # noqa: BLE001 - one document's failure, not the batch's
        message = f"reading the worker's result back failed: {type(error).__name__}: {error}"
        value = Failure(stage="pipeline", message=message)
    return result.model_copy(update={"value": value})


def _context(fork: bool = False) -> multiprocessing.context.BaseContext:
    return multiprocessing.get_context("fork" if fork else "forkserver")


#: A run forks its workers from this process only if its files add up to at most this many
#: bytes. The forkserver's start-up (about 2 s of CPU) is most of a run of a few small PDFs and
#: little of a run of a long one, while a worker forked from here carries this process's whole
#: heap (the CLI, SQLAlchemy and the preloaded pipeline: about 160 MB against 130 MB for a fork
#: of the lean forkserver on DA-619p, 2.9 MB, whose issue-22 target is 150 MB a process).
FORK_FROM_HERE_MAX_BYTES = 1 << 20


def fork_from_here(jobs: Sequence[Any], settings: PipelineSettings) -> bool:
    """Whether a run of `jobs` forks its workers from this process instead of starting a
    forkserver (module docstring): at most one document per worker, their files no more than
    `FORK_FROM_HERE_MAX_BYTES` in all, where "fork" exists."""
    return (
        0 < len(jobs) <= settings.worker_count
        and sum(_file_bytes(job) for job in jobs) <= FORK_FROM_HERE_MAX_BYTES
        and "fork" in multiprocessing.get_all_start_methods()
    )


def _file_bytes(job: Any) -> int:
    """The size of a job's file; 0 for a job that names none or one that cannot be read (its
    worker reports that)."""
    path = job.path if isinstance(job, Job) else job
    try:
        return os.path.getsize(path) if isinstance(path, (str, os.PathLike)) else 0
    except OSError:
        return 0


def preload_here() -> None:
    """Load what the forkserver would preload (`ingest.pipeline.preload`) into this process."""
    import importlib

    importlib.import_module("ingest.pipeline.preload")  # importing it loads (once; never raises)


def _new_pool(
    workers: int,
    memory_limit_mb: int = 0,
    preload: bool = True,
    progress: ProgressChannel | None = None,
    spill_dir: str | None = None,
    fork: bool = False,
) -> ProcessPoolExecutor:
    """`preload`: have the forkserver load the pipeline first (no effect once it runs; the first
    worker waits for it, so a stand-in task in a test passes False); with `fork`, load it into
    this process, whose forks the workers are. `progress`: the pool's workers get a pipe of
    their own on it. `spill_dir`: where `run_task` hands results over."""
    context = _context(fork)
    if preload and fork:
        preload_here()
    elif preload:
        context.set_forkserver_preload(PRELOAD)  # a failed import is skipped
    me = os.getpid()
    pipe = progress.new_pipe() if progress is not None else None
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_worker_init,
        initargs=(me, process_start_time(me), memory_limit_mb, pipe[1] if pipe else None, spill_dir, fork),
    )
    if pipe is not None:
        progress.attach(pool, pipe)
    return pool


def _death_message(pool: ProcessPoolExecutor, memory_limit_mb: int) -> str:
    """Why a worker running one document alone died. Under RLIMIT_AS pdfium aborts (SIGABRT) when
    an allocation fails, so an abort with a cap set is the memory limit; anything else a crash.

    The pool's manager thread reads each dead worker's exit status from the forkserver (one read
    per process); reading it here at the same time would race it and see 255. So wait for that
    thread to finish breaking the pool first."""
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        manager.join(timeout=10.0)
    codes = []
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.join(timeout=1.0)
        codes.append(process.exitcode)
    if memory_limit_mb and -signal.SIGABRT in codes:
        return memory_message(memory_limit_mb) + " (pdfium aborted when an allocation failed)"
    status = ", ".join(f"signal {-code}" if code < 0 else f"exit code {code}" for code in codes if code is not None)
    return f"the worker process died while parsing (a crash or an out-of-memory kill{'; ' + status if status else ''})"


def _kill_pool(pool: ProcessPoolExecutor) -> None:
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            process.kill()
        except (OSError, AttributeError):
            pass
    pool.shutdown(wait=True, cancel_futures=True)


def execute(
    jobs: list[J],
    tags: list[T],
    settings: PipelineSettings,
    task: Callable[[J, PipelineSettings], TaskResult] = run_task,
    on_pages: ProgressCallback | None = None,
    queue: deque[tuple[J, T]] | None = None,
) -> Iterator[tuple[T, TaskResult]]:
    """Yield (tag, result) for every job, in completion order. Never raises for a document's failure.

    `task(job, settings)` runs in a worker: a module-level function (it is pickled to the
    workers) and picklable jobs (`run_task` takes a `Job` or a path); tests pass their own.
    `on_pages(PageProgress)`: page progress of the documents in flight, called in this thread
    (throttled, best effort; see `ingest.pipeline.progress`); None = none sent.
    `queue`: where the jobs wait; the caller may add (job, tag) pairs to it between results
    (the parts of a split document, `ingest.pipeline.split`). Not used with `workers = 0`.
    """
    if settings.worker_count == 0:
        for job, tag in zip(jobs, tags):
            with in_process(on_pages):
                result = task(job, settings)
            yield tag, result
        return
    fork = fork_from_here(jobs, settings)
    progress = ProgressChannel(_context(fork), on_pages) if on_pages is not None else None
    try:
        yield from _execute_in_pool(jobs, tags, settings, task, progress, queue, fork)
    finally:
        if progress is not None:
            progress.close()


def _execute_in_pool(
    jobs: list[J],
    tags: list[T],
    settings: PipelineSettings,
    task: Callable[[J, PipelineSettings], TaskResult],
    progress: ProgressChannel | None,
    queue: deque[tuple[J, T]] | None = None,
    fork: bool = False,
) -> Iterator[tuple[T, TaskResult]]:
    """`execute` with `settings.worker_count` worker processes (`fork`: forked from this process)."""
    pending: deque[tuple[J, T]] = deque() if queue is None else queue
    pending.extend(zip(jobs, tags))
    preload = task is run_task
    # Results handed over as files (`ingest.pipeline.spill`), removed with whatever is left in it.
    spill_dir = tempfile.mkdtemp(prefix="ingest-run-") if preload else None
    try:
        yield from _run_pool(pending, settings, task, progress, preload, spill_dir, fork)
    finally:
        if spill_dir is not None:
            shutil.rmtree(spill_dir, ignore_errors=True)


def _run_pool(
    pending: deque,
    settings: PipelineSettings,
    task: Callable[[J, PipelineSettings], TaskResult],
    progress: ProgressChannel | None,
    preload: bool,
    spill_dir: str | None,
    fork: bool,
) -> Iterator[tuple[T, TaskResult]]:
    """`_execute_in_pool`'s loop over the jobs in `pending` (`fork`: workers forked from this
    process, `fork_from_here`)."""
    workers = settings.worker_count
    limit = settings.timeout + hard_grace(settings.timeout)
    suspects: deque[tuple[J, T]] = deque()  # were in flight when a worker died: run alone
    in_flight: dict[Future, tuple[J, T, float, bool]] = {}
    memory = settings.worker_memory_limit_mb
    recycle_mb = recycle_limit_mb(memory)
    pool = _new_pool(workers, memory, preload, progress, spill_dir, fork)
    retired: list[ProcessPoolExecutor] = []  # finish their in-flight tasks, then exit
    try:
        while pending or suspects or in_flight:
            alone = any(solo for *_rest, solo in in_flight.values())
            if suspects and not in_flight:
                job, tag = suspects.popleft()
                in_flight[pool.submit(task, job, settings)] = (job, tag, time.monotonic(), True)
            while pending and not suspects and not alone and len(in_flight) < workers:
                job, tag = pending.popleft()
                in_flight[pool.submit(task, job, settings)] = (job, tag, time.monotonic(), False)
            done, _ = wait(list(in_flight), timeout=PROGRESS_INTERVAL if progress else 1.0, return_when=FIRST_COMPLETED)
            if progress is not None:
                progress.drain()  # before the results, so a document's pages come before its end
            broken = retired_now = False
            for future in done:
                job, tag, started, solo = in_flight.pop(future)
                try:
                    result = future.result()
                    if (result.rss_mb > recycle_mb or _left_over(result)) and not retired_now:
                        retired_now = True  # new tasks go to a new pool; this one exits when idle
                        pool.shutdown(wait=False)
                        retired.append(pool)
                        pool = _new_pool(workers, memory, preload, progress, spill_dir, fork)
                    yield tag, _read_back(result)
                except BrokenProcessPool:
                    broken = True
                    if solo:
                        message = _death_message(pool, memory)
                        yield (
                            tag,
                            TaskResult(
                                value=Failure(stage="parse", message=message),
                                seconds=round(time.monotonic() - started, 3),
                            ),
                        )
                    else:
                        suspects.append((job, tag))
            now = time.monotonic()
            expired = [future for future, (_p, _t, started, _s) in in_flight.items() if now - started > limit]
            for future in expired:
                _job, tag, started, _solo = in_flight.pop(future)
                failure = Failure(stage="parse", message=timeout_message(settings.timeout, killed=True))
                yield tag, TaskResult(value=failure, seconds=round(now - started, 3))
            if expired or broken:
                for job, tag, _started, _solo in list(in_flight.values()):
                    (suspects if broken else pending).appendleft((job, tag))
                in_flight.clear()
                for old in [*retired, pool]:
                    _kill_pool(old)
                    if progress is not None:
                        progress.discard(old)
                retired.clear()
                pool = _new_pool(workers, memory, preload, progress, spill_dir, fork)
    except BaseException:
        for old in [*retired, pool]:
            _kill_pool(old)
        raise
    for old in [*retired, pool]:
        old.shutdown(wait=True)
