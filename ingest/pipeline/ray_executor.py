"""Running `process_document` on a Ray cluster: `ingest run ... --executor ray [--ray-address auto]`.

The same contract as `ingest.pipeline.workers.execute` (and the same `run_task`): one task per
document, (tag, TaskResult) yielded in completion order, a document's failure never raises.

- Results come back to the driver, which alone writes to the database (one transaction per
  document, as with the process pool). Workers never need database credentials or network
  access to the database; the driver's writes cost ~1-2 ms per chunk (docs/scaling.md), far
  below the parse cost, so the single writer is not the bottleneck until hundreds of cores.
- Time limits: the soft limit is `run_task`'s own (SIGALRM inside the worker; Ray runs a task on
  its worker's main thread). The hard limit: a task still running `timeout + hard_grace` seconds
  after it was submitted is cancelled with `ray.cancel(force=True)`, which kills its worker
  process, and failed with "timed out ... (worker killed)".
- Failure isolation: `max_retries=0`; a task whose worker dies (segfault, out-of-memory kill)
  fails that document only (Ray isolates each task in its worker, so unlike the process pool
  there are no innocent neighbours to retry).
- At most as many tasks in flight as the cluster has CPUs, so a task starts when submitted and
  its clock is honest.
- Page progress (`on_pages`): tasks send it to a `ray.util.queue.Queue` (an actor using no
  CPU) that the driver drains every `PROGRESS_INTERVAL` seconds; best effort, as with the
  process pool (`ingest.pipeline.progress`).

`ray` is imported only here, and this module only when `--executor ray` is chosen: the
default run never pays Ray's import (~1 s) or start-up (~5-10 s).
"""

from __future__ import annotations

import os
import time
from typing import Callable, Iterator, TypeVar

from ingest.pipeline.progress import PROGRESS_INTERVAL, PageProgress, ProgressCallback, in_process
from ingest.pipeline.settings import PipelineSettings
from ingest.pipeline.workers import Failure, TaskResult, hard_grace, run_task, timeout_message

T = TypeVar("T")
J = TypeVar("J")


def _in_worker(
    task: Callable[[J, PipelineSettings], TaskResult], job: J, settings: PipelineSettings, progress=None
) -> TaskResult:
    """`progress`: the driver's `ray.util.queue.Queue` for page progress, or None."""
    os.environ["OMP_THREAD_LIMIT"] = "1"  # Tesseract: parallelise by task, not by thread
    with in_process(progress.put_nowait if progress is not None else None):
        return task(job, settings)


def connect(address: str | None, cpus: int | None) -> bool:
    """Start a local Ray (address None, `cpus` CPUs) or join a cluster (`auto`, `ray://host:10001`);
    returns whether this call started Ray (and so must shut it down)."""
    import ray

    if ray.is_initialized():
        return False
    options = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    if address:
        ray.init(address=address, **options)
    else:
        ray.init(num_cpus=cpus or None, **options)
    return True


def execute_ray(
    jobs: list[J],
    tags: list[T],
    settings: PipelineSettings,
    task: Callable[[J, PipelineSettings], TaskResult] = run_task,
    *,
    address: str | None = None,
    on_pages: ProgressCallback | None = None,
) -> Iterator[tuple[T, TaskResult]]:
    """Yield (tag, result) for every job, run as Ray tasks; see the module docstring.
    `address`: None = a local Ray with `settings.worker_count` CPUs (all when 0/None), else a
    cluster address (`auto` = the one `ray start` set up on this machine). `on_pages`: as in
    `ingest.pipeline.workers.execute`."""
    import ray
    from ray.exceptions import GetTimeoutError, RayError, TaskCancelledError

    started_here = connect(address, settings.worker_count)
    progress = _progress_queue() if on_pages is not None else None
    remote = ray.remote(num_cpus=1, max_retries=0)(_in_worker)
    limit = settings.timeout + hard_grace(settings.timeout)
    capacity = max(1, int(ray.cluster_resources().get("CPU", 1)))
    pending = list(zip(jobs, tags))
    pending.reverse()  # pop() from the end keeps the jobs' order
    in_flight: dict[object, tuple[T, float]] = {}
    try:
        while pending or in_flight:
            while pending and len(in_flight) < capacity:
                job, tag = pending.pop()
                in_flight[remote.remote(task, job, settings, progress)] = (tag, time.monotonic())
            done, _ = ray.wait(list(in_flight), num_returns=1, timeout=PROGRESS_INTERVAL if progress else 1.0)
            if progress is not None:
                _drain(progress, on_pages)  # before the results, so a document's pages come before its end
            for ref in done:
                tag, started = in_flight.pop(ref)
                try:
                    result = ray.get(ref)
                except (TaskCancelledError, GetTimeoutError):
                    result = _failure(timeout_message(settings.timeout, killed=True), started)
                except RayError as error:  # the worker died: a crash or an out-of-memory kill
                    result = _failure(
                        f"the worker process died while parsing (crash or out-of-memory kill): {type(error).__name__}",
                        started,
                    )
                yield tag, result
            now = time.monotonic()
            for ref in [ref for ref, (_tag, started) in in_flight.items() if now - started > limit]:
                tag, started = in_flight.pop(ref)
                ray.cancel(ref, force=True)
                yield tag, _failure(timeout_message(settings.timeout, killed=True), started)
    finally:
        for ref in in_flight:
            ray.cancel(ref, force=True)
        if progress is not None:
            progress.shutdown()
        if started_here:
            ray.shutdown()


def _progress_queue():
    """A queue actor for page progress that takes no CPU from the tasks (None when Ray cannot
    make one: the run goes on without page progress)."""
    from ray.util.queue import Queue

    try:
        return Queue(actor_options={"num_cpus": 0})
    except Exception:  # noqa: BLE001 - progress is never worth a run
        return None


def _drain(progress, on_pages: ProgressCallback) -> None:
    """Hand the messages waiting now to `on_pages`; a queue that cannot be read loses them."""
    try:
        messages = progress.get_nowait_batch(progress.qsize())
    except Exception:  # noqa: BLE001 - lost progress, nothing else
        return
    for message in messages:
        on_pages(PageProgress(*message))


def _failure(message: str, started: float) -> TaskResult:
    return TaskResult(value=Failure(stage="parse", message=message), seconds=round(time.monotonic() - started, 3))
