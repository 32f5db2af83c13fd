"""Start-up cost of the commands a user runs most: wall and CPU seconds, whole process tree.

    python benchmarks/startup.py [--repeat 5]

Each command runs in a fresh interpreter (`python -m ingest.cli ...`, which is what the
`ingest` console script runs, without a version manager's shim in front). CPU is user + system
time of the command and every process below it, read from `getrusage(RUSAGE_CHILDREN)` before
and after. This process makes itself the subreaper of its descendants and reaps them all: the
worker pool's forkserver is never waited for by `ingest`, so without that its CPU and its
workers' would be missed. Medians of `--repeat` runs; the machine is
shared, so read the CPU column, and compare commands measured in the same run.

Measured:
- `ingest --help`;
- `ingest query "select count(*) from chunks"` on a one-document database;
- one small PDF end to end (`fixtures/two_column.pdf`, 2 pages): `ingest run` with the default
  worker pool (one document: its worker is forked from the run, no forkserver), and with
  `--workers 0` (in-process), each into a new database.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMALL_PDF = ROOT / "fixtures" / "two_column.pdf"


def become_subreaper() -> None:
    """Orphaned descendants (the forkserver and its workers) are re-parented to this process,
    so `reap_all` can wait for them and RUSAGE_CHILDREN counts their CPU (Linux; else a no-op)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def reap_all() -> None:
    """Wait for every remaining descendant (they exit once the command that started them has)."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def run_measured(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the whole process tree) of one command, run in this tree.
    `python -m`/`-c` put the working directory first on `sys.path`, before `PYTHONPATH`: to run
    another tree's code, start Python with `-P` (`bench_pipeline.ingest`)."""
    become_subreaper()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - started
    reap_all()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(arguments: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the whole process tree) of one `ingest` command."""
    return run_measured([sys.executable, "-m", "ingest.cli", *arguments])


def median_of(repeat: int, arguments_for_run) -> tuple[float, float]:
    """Medians of wall and CPU over `repeat` runs; `arguments_for_run(i)` gives run i's arguments."""
    runs = [measure(arguments_for_run(i)) for i in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="startup-") as tmp:
        db = Path(tmp) / "one.db"
        subprocess.run(
            [sys.executable, "-m", "ingest.cli", "run", str(SMALL_PDF), "--db", str(db), "--quiet"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        rows = {
            "ingest --help": median_of(args.repeat, lambda i: ["--help"]),
            "ingest query (one-document db)": median_of(
                args.repeat, lambda i: ["query", "select count(*) from chunks", "--db", str(db)]
            ),
            "ingest run, one small PDF, worker pool": median_of(
                args.repeat, lambda i: ["run", str(SMALL_PDF), "--db", f"{tmp}/pool{i}.db", "--quiet"]
            ),
            "ingest run, one small PDF, --workers 0": median_of(
                args.repeat,
                lambda i: ["run", str(SMALL_PDF), "--db", f"{tmp}/inproc{i}.db", "--quiet", "--workers", "0"],
            ),
        }
    print(f"| command (median of {args.repeat}) | wall s | CPU s (process tree) |")
    print("|---|--:|--:|")
    for name, (wall, cpu) in rows.items():
        print(f"| {name} | {wall:.2f} | {cpu:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
