"""Start-up cost of the commands a user runs most: wall and CPU seconds, whole process tree.

    python benchmarks/startup.py [--repeat 5] [--code DIR ...] [--bytecode]

Each command runs in a fresh interpreter (`ingest.cli`'s app, which is what the `ingest` console
script runs, without a version manager's shim in front). `--code DIR` runs the code of DIR
(`PYTHONPATH=DIR`, Python started with `-P`: see `ingest`), e.g. an exported older revision and
this tree; the trees' runs are interleaved run by run and the last column is the last tree's CPU
over the first's (of the medians, and of the minimums in brackets). CPU is user + system
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

Bytecode: with `PYTHONDONTWRITEBYTECODE=1` in the environment (as on the shared development
machine) and a source tree without `__pycache__` (a git checkout or worktree), every start
compiles the project's ~90 modules from source, about 0.2 s of CPU that an installed program
does not pay (pip compiles a wheel's modules at install time; `install.sh` compiles the
editable tree). `--bytecode` measures what Python does by default instead: the environment
variable dropped and `PYTHONPYCACHEPREFIX` set to a temporary folder per tree, so the bytecode is
written there by one unmeasured start per tree and read at every measured one; no tree is
written to. The language model's and the tokenizer's cached copies (`~/.cache/ingest`, see
`ingest.contracts.cache`) are made by the first run and read by the measured ones either way.
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
    another tree's code, start Python with `-P` (`ingest`)."""
    become_subreaper()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - started
    reap_all()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def ingest(*arguments: str) -> list[str]:
    """`ingest` run from the code on PYTHONPATH (`--code`). `-P`: `python -c` would otherwise put
    the working directory (this tree, `run_measured`'s cwd) first on sys.path, and every tree
    would run this one's code."""
    return [sys.executable, "-P", "-c", "from ingest.cli import app; app()", *arguments]


def environment(code: Path, bytecode: Path | None) -> dict[str, str]:
    """The environment that runs `code`; with `bytecode`, Python's default bytecode handling,
    cached under that folder (module docstring)."""
    env = dict(os.environ, PYTHONPATH=str(code))
    if bytecode is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(bytecode)
    return env


def commands(tmp: Path, db: Path, tag: str) -> dict[str, object]:
    """name -> arguments for run i (`lambda i: [...]`); `tag` keeps each tree's databases apart."""
    return {
        "ingest --help": lambda i: ["--help"],
        "ingest query (one-document db)": lambda i: ["query", "select count(*) from chunks", "--db", str(db)],
        "ingest run, one small PDF, worker pool": lambda i: [
            "run",
            str(SMALL_PDF),
            "--db",
            f"{tmp}/pool-{tag}-{i}.db",
            "--quiet",
        ],
        "ingest run, one small PDF, --workers 0": lambda i: [
            "run",
            str(SMALL_PDF),
            "--db",
            f"{tmp}/inproc-{tag}-{i}.db",
            "--quiet",
            "--workers",
            "0",
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--code", type=Path, action="append", help="a source tree to run (default: this one)")
    parser.add_argument("--bytecode", action="store_true", help="Python's default bytecode handling (docstring)")
    args = parser.parse_args(argv)
    codes = [code.resolve() for code in args.code or [ROOT]]
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="startup-") as name:
        tmp = Path(name)
        envs, runs = {}, {}
        for index, code in enumerate(codes):
            envs[code] = environment(code, tmp / f"bytecode-{index}" if args.bytecode else None)
            db = tmp / f"one-{index}.db"  # also the unmeasured start that writes the bytecode
            subprocess.run(
                ingest("run", str(SMALL_PDF), "--db", str(db), "--quiet"),
                cwd=ROOT,
                env=envs[code],
                check=True,
                capture_output=True,
            )
            runs[code] = {name: (arguments, []) for name, arguments in commands(tmp, db, str(index)).items()}
        for i in range(args.repeat):
            for code in codes:
                for arguments, measured in runs[code].values():
                    measured.append(run_measured(ingest(*arguments(i)), envs[code]))
    header = " | ".join(f"{code} CPU s" for code in codes)
    ratio = f" | {codes[-1].name} / {codes[0].name}" if len(codes) > 1 else ""
    print(f"\n| command: median of {args.repeat} (minimum) | wall s | {header}{ratio} |")
    print("|---|--:|" + "--:|" * len(codes) + ("--:|" if ratio else ""))
    for name in runs[codes[0]]:
        cpus = [sorted(cpu for _wall, cpu in runs[code][name][1]) for code in codes]
        medians = [statistics.median(cpu) for cpu in cpus]
        wall = statistics.median(measured[0] for measured in runs[codes[-1]][name][1])
        cells = " | ".join(f"{median:.2f} ({cpu[0]:.2f})" for median, cpu in zip(medians, cpus))
        ratios = f" | {medians[-1] / medians[0]:.2f} ({cpus[-1][0] / cpus[0][0]:.2f})" if ratio else ""
        print(f"| {name} | {wall:.2f} | {cells}{ratios} |")
    print(f"\nload average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
