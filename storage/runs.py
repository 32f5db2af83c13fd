"""Runs, run items and the writer lock.

The lock is one row in `run_lock`, taken inside a BEGIN IMMEDIATE transaction, so two
processes cannot both take it. A row left by a process that died (kill -9, power loss) is
stale: on the same host, a pid that is gone or now belongs to a process started at another
time. A stale lock is taken over and the dead run is closed as `interrupted`. A lock held
from another host cannot be checked and is refused; `ingest unlock` (`force_unlock`) clears it.
"""

from __future__ import annotations

import os
import socket
from contextlib import contextmanager
from typing import Any, Iterator

from pydantic import BaseModel, ConfigDict
from sqlalchemy import select, update

from ingest.contracts.errors import RunLockedError
from ingest.contracts.processes import pid_alive, process_start_time
from storage.db import Database, utc_now
from storage.schema import RunItemRow, RunLockRow, RunRow


class LockHolder(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pid: int
    hostname: str
    run_id: int | None
    acquired_at: str


def acquire_lock(
    db: Database, command: str, paths: list[str], settings: dict[str, Any] | None, pipeline_version: str
) -> int:
    """Take the writer lock and open a `runs` row; returns the run id.

    Raises RunLockedError when a live process holds the lock. A stale lock is taken over and
    its run closed as `interrupted`; runs left `running` by dead processes are closed too.
    """
    me, host = os.getpid(), socket.gethostname()
    with db.transaction() as session:
        holder = session.get(RunLockRow, 1)
        if holder is not None:
            same_host = holder.hostname == host
            if not same_host or pid_alive(holder.pid, holder.process_start):
                where = f"pid {holder.pid}" + ("" if same_host else f" on {holder.hostname}")
                raise RunLockedError(
                    f"another ingest process ({where}, run {holder.run_id}, since {holder.acquired_at}) is "
                    "writing to this database; wait for it to finish"
                    + ("" if same_host else ", or clear a dead lock with `ingest unlock`"),
                    path=db.sqlite_path,
                )
            session.delete(holder)
            session.flush()
        session.execute(
            update(RunRow)
            .where(RunRow.status == "running")
            .values(
                status="interrupted",
                finished_at=utc_now(),
                message="the process died before the run finished (killed or crashed); the next run redid its work",
            )
        )
        run = RunRow(
            command=command,
            started_at=utc_now(),
            status="running",
            pid=me,
            hostname=host,
            paths=paths,
            settings=settings,
            pipeline_version=pipeline_version,
        )
        session.add(run)
        session.flush()
        session.add(
            RunLockRow(
                id=1, pid=me, hostname=host, process_start=process_start_time(me), run_id=run.id, acquired_at=utc_now()
            )
        )
        return run.id


def release_lock(db: Database, run_id: int) -> None:
    with db.transaction() as session:
        holder = session.get(RunLockRow, 1)
        if holder is not None and holder.run_id == run_id:
            session.delete(holder)


def force_unlock(db: Database) -> LockHolder | None:
    """Remove the lock row whoever holds it; returns who held it. For a lock left by a dead
    process on another host: make sure no run is going on first."""
    with db.transaction() as session:
        holder = session.get(RunLockRow, 1)
        if holder is None:
            return None
        info = LockHolder(
            pid=holder.pid, hostname=holder.hostname, run_id=holder.run_id, acquired_at=holder.acquired_at
        )
        session.delete(holder)
        session.execute(
            update(RunRow)
            .where(RunRow.id == holder.run_id, RunRow.status == "running")
            .values(status="interrupted", finished_at=utc_now(), message="lock cleared by `ingest unlock`")
        )
        return info


@contextmanager
def run_lock(
    db: Database, command: str, paths: list[str], settings: dict[str, Any] | None, pipeline_version: str
) -> Iterator[int]:
    """Hold the writer lock for the block; yields the run id. The lock is released however the
    block ends; the run row is closed by `finish_run` (or as `interrupted` if never closed)."""
    run_id = acquire_lock(db, command, paths, settings, pipeline_version)
    try:
        yield run_id
    except BaseException as error:
        with db.transaction() as session:
            session.execute(
                update(RunRow)
                .where(RunRow.id == run_id, RunRow.status == "running")
                .values(
                    status="interrupted", finished_at=utc_now(), message=f"stopped: {type(error).__name__}: {error}"
                )
            )
        raise
    finally:
        release_lock(db, run_id)


#: run_items.outcome -> the `runs` counter it adds to (a reprocess counts as changed, a file
#: not retried since it failed as unchanged).
RUN_COUNTER = {
    "new": "new",
    "changed": "changed",
    "reprocessed": "changed",
    "unchanged": "unchanged",
    "still_failed": "unchanged",
    "removed": "removed",
    "failed": "failed",
}


def add_run_item(
    session,
    run_id: int,
    source_path: str,
    outcome: str,
    *,
    document_id: str | None = None,
    stage: str | None = None,
    message: str | None = None,
    chunks_before: int | None = None,
    chunks_after: int | None = None,
    over_limit_chunks: int = 0,
    seconds: float | None = None,
) -> None:
    """Record what a run did to one file, and add it to the run's counters in the same
    transaction: `runs` shows what was stored so far even if the process dies next."""
    column = RUN_COUNTER.get(outcome)
    values: dict[str, Any] = {column: getattr(RunRow, column) + 1} if column else {}
    if outcome in ("new", "changed", "reprocessed") and chunks_after:
        values["chunks_written"] = RunRow.chunks_written + chunks_after
    if over_limit_chunks:
        values["over_limit_chunks"] = RunRow.over_limit_chunks + over_limit_chunks
    if values:
        session.execute(update(RunRow).where(RunRow.id == run_id).values(**values))
    session.add(
        RunItemRow(
            run_id=run_id,
            document_id=document_id,
            source_path=source_path,
            outcome=outcome,
            stage=stage,
            message=message,
            chunks_before=chunks_before,
            chunks_after=chunks_after,
            over_limit_chunks=over_limit_chunks,
            seconds=seconds,
            finished_at=utc_now(),
        )
    )


def finish_run(db: Database, run_id: int, counts: dict[str, int], seconds: float, message: str | None = None) -> None:
    status = "failed" if counts.get("failed") else "ok"
    with db.transaction() as session:
        run = session.get(RunRow, run_id)
        for name, value in counts.items():
            setattr(run, name, value)
        run.status, run.finished_at, run.seconds, run.message = status, utc_now(), round(seconds, 3), message


def list_runs(db: Database, limit: int = 20) -> list[RunRow]:
    with db.reader() as session:
        return list(session.scalars(select(RunRow).order_by(RunRow.id.desc()).limit(limit)))


def run_items(db: Database, run_id: int, outcomes: tuple[str, ...] | None = None) -> list[RunItemRow]:
    with db.reader() as session:
        query = select(RunItemRow).where(RunItemRow.run_id == run_id).order_by(RunItemRow.id)
        if outcomes:
            query = query.where(RunItemRow.outcome.in_(outcomes))
        return list(session.scalars(query))
