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
from sqlalchemy import insert, select, update

from ingest.contracts.errors import RunLockedError, StorageError
from ingest.contracts.processes import pid_alive, process_start_time
from storage import postgres
from storage.db import Database, utc_now
from storage.schema import RunItemRow, RunLockRow, RunRow, table_of


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
        _close_dead_runs(session, RunRow.status == "running")
        run = _new_run(session, command, paths, settings, pipeline_version)
        session.add(
            RunLockRow(
                id=1, pid=me, hostname=host, process_start=process_start_time(me), run_id=run.id, acquired_at=utc_now()
            )
        )
        return run.id


DEAD_RUN_MESSAGE = "the process died before the run finished (killed or crashed); the next run redid its work"


def _close_dead_runs(session, condition) -> None:
    session.execute(
        update(RunRow).where(condition).values(status="interrupted", finished_at=utc_now(), message=DEAD_RUN_MESSAGE)
    )


def _new_run(session, command: str, paths: list[str], settings: dict[str, Any] | None, pipeline_version: str) -> RunRow:
    run = RunRow(
        command=command,
        started_at=utc_now(),
        status="running",
        pid=os.getpid(),
        hostname=socket.gethostname(),
        paths=paths,
        settings=settings,
        pipeline_version=pipeline_version,
    )
    session.add(run)
    session.flush()
    return run


def _interrupt(db: Database, run_id: int, error: BaseException) -> None:
    with db.transaction() as session:
        session.execute(
            update(RunRow)
            .where(RunRow.id == run_id, RunRow.status == "running")
            .values(
                status="interrupted", finished_at=utc_now(), message=f"stopped: {type(error).__name__}: {error}"[:500]
            )
        )


@contextmanager
def advisory_run_lock(
    db: Database, command: str, paths: list[str], settings: dict[str, Any] | None, pipeline_version: str
) -> Iterator[int]:
    """PostgreSQL: hold the path locks of `paths` and a live-run lock on a connection of this run's
    own; yields the run id. Raises RunLockedError naming the run that holds an overlapping folder."""
    locks = db.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
    try:
        if not postgres.try_lock_paths(locks, paths):
            raise RunLockedError(_holder_message(db, locks, paths))
        with db.transaction() as session:
            running = session.scalars(select(RunRow.id).where(RunRow.status == "running")).all()
            dead = [run_id for run_id in running if not postgres.run_is_live(locks, run_id)]
            if dead:
                _close_dead_runs(session, RunRow.id.in_(dead))
            run_id = _new_run(session, command, paths, settings, pipeline_version).id
            # before the commit makes the row visible: no other run can see it `running` and unlocked
            postgres.lock_run(locks, run_id)
        try:
            yield run_id
        except BaseException as error:
            _interrupt(db, run_id, error)
            raise
    finally:
        locks.invalidate()  # closes the session itself (not back to the pool): the server drops its locks
        locks.close()


def _holder_message(db: Database, locks, paths: list[str]) -> str:
    with db.reader() as session:
        running = session.scalars(select(RunRow).where(RunRow.status == "running").order_by(RunRow.id)).all()
    holders = [run for run in running if postgres.paths_overlap(run.paths or [], paths)]
    holders = [run for run in holders if postgres.run_is_live(locks, run.id)] or holders
    if not holders:
        return "another ingest process is writing under these paths (it is starting); wait for it to finish"
    run = holders[0]
    return (
        f"another ingest process (pid {run.pid} on {run.hostname}, run {run.id}, since {run.started_at}) is "
        f"writing under {', '.join(run.paths or [])}; wait for it to finish (runs over separate folders may "
        "run side by side on PostgreSQL)"
    )


def release_lock(db: Database, run_id: int) -> None:
    with db.transaction() as session:
        holder = session.get(RunLockRow, 1)
        if holder is not None and holder.run_id == run_id:
            session.delete(holder)


def force_unlock(db: Database) -> LockHolder | None:
    """Remove the lock row; returns who held it. For a lock left by a dead process on another
    host: make sure no run is going on there first. Raises RunLockedError while the holder is a
    live process on this host (clearing it would let two runs interleave)."""
    if db.is_postgresql:
        return None  # advisory locks end with their session: there is never a dead one to clear
    with db.transaction() as session:
        holder = session.get(RunLockRow, 1)
        if holder is None:
            return None
        if holder.hostname == socket.gethostname() and pid_alive(holder.pid, holder.process_start):
            raise RunLockedError(
                f"the lock is held by pid {holder.pid} (run {holder.run_id}, since {holder.acquired_at}), which "
                "is alive on this host: not cleared; wait for it to finish, or stop it (`kill "
                f"{holder.pid}` ends it cleanly) first",
                path=db.sqlite_path,
            )
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
    if db.is_postgresql:
        with advisory_run_lock(db, command, paths, settings, pipeline_version) as run_id:
            yield run_id
        return
    run_id = acquire_lock(db, command, paths, settings, pipeline_version)
    try:
        yield run_id
    except BaseException as error:
        # Best effort: on a full disk or a file turned read-only these writes may fail too, and
        # the error that stopped the run is the one to report. A lock row that cannot be deleted
        # names a pid that is gone after exit: the next run on this host takes it over.
        try:
            _interrupt(db, run_id, error)
        except Exception:  # noqa: BLE001 - see above
            pass
        try:
            release_lock(db, run_id)
        except Exception:  # noqa: BLE001 - see above
            pass
        raise
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
    transaction: `runs` shows what was stored so far even if the process dies next.
    Core statements on the tables (no ORM objects: the write session holds no `RunRow`, and
    an item is never read back in it), two per file."""
    runs = table_of(RunRow)
    column = RUN_COUNTER.get(outcome)
    values: dict[str, Any] = {column: runs.c[column] + 1} if column else {}
    if outcome in ("new", "changed", "reprocessed") and chunks_after:
        values["chunks_written"] = runs.c.chunks_written + chunks_after
    if over_limit_chunks:
        values["over_limit_chunks"] = runs.c.over_limit_chunks + over_limit_chunks
    if values:
        session.execute(update(runs).where(runs.c.id == run_id).values(**values))
    session.execute(
        insert(table_of(RunItemRow)),
        {
            "run_id": run_id,
            "document_id": document_id,
            "source_path": source_path,
            "outcome": outcome,
            "stage": stage,
            "message": message,
            "chunks_before": chunks_before,
            "chunks_after": chunks_after,
            "over_limit_chunks": over_limit_chunks,
            "seconds": seconds,
            "finished_at": utc_now(),
        },
    )


def finish_run(db: Database, run_id: int, counts: dict[str, int], seconds: float, message: str | None = None) -> None:
    status = "failed" if counts.get("failed") else "ok"
    with db.transaction() as session:
        run = session.get(RunRow, run_id)
        if run is None:
            raise StorageError(f"run {run_id} is not in the runs table: it cannot be finished")
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
