"""Is a process (by pid and start time) still the one we think it is? Used by the run lock and by workers
that must stop when their run is killed."""

from __future__ import annotations

import os
from pathlib import Path


def process_start_time(pid: int) -> str | None:
    """Kernel start time (clock ticks since boot) of a process, or None when unknown (non-Linux)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def pid_alive(pid: int, start_time: str | None) -> bool:
    """Whether `pid` is the same live process that took the lock (not a reused pid, not a zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        if state in ("Z", "X"):
            return False
    except OSError:
        pass
    current = process_start_time(pid)
    return start_time is None or current is None or current == start_time
