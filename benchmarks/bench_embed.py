"""`ingest embed` side by side: chunks per second, CPU seconds and peak memory of this tree and of
another checkout (e.g. main), each run as the real command on its own copy of one database.

    python benchmarks/bench_embed.py INGEST_DB [--against ../main] [--rounds 1] [--threads N]

For every round, each tree runs `python -m ingest.cli embed --db COPY` in a subprocess (its own
PYTHONPATH and working directory) on a fresh copy of INGEST_DB whose stored vectors are dropped,
so both embed exactly the same child chunks. Trees alternate within a round so a change of load
on a shared machine hits both alike. Per run: wall seconds, CPU seconds (user + system of the
process, every thread), peak RSS (the process's maxrss), chunks, chunks per wall second and per
CPU second, the command's own summary line and the database growth per 1,000 chunks (bytes in
use, pages minus free pages, after a WAL checkpoint). Prints one JSON object and a Markdown table.
The original database is never written.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def bytes_in_use(path: Path) -> int:
    """Pages minus free pages, after a checkpoint (a copied database may hold free pages that new
    rows reuse, so the file size alone would under-count the growth)."""
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        free = connection.execute("PRAGMA freelist_count").fetchone()[0]
        size = connection.execute("PRAGMA page_size").fetchone()[0]
    return (pages - free) * size


def fresh_copy(source: Path, folder: Path) -> Path:
    """A copy of `source` without stored vectors (`chunk_embeddings` rows; the vec0 rows become
    orphans that `ingest embed` purges, in both trees alike)."""
    copy = folder / "bench.db"
    shutil.copy2(source, copy)
    with sqlite3.connect(copy) as connection:
        has = connection.execute("select 1 from sqlite_master where name = 'chunk_embeddings'").fetchone()
        if has:
            connection.execute("delete from chunk_embeddings")
    return copy


def run_tree(tree: Path, source: Path, extra: list[str]) -> dict:
    """One `ingest embed` of `tree` on a fresh copy of `source`: its figures."""
    with tempfile.TemporaryDirectory() as folder:
        copy = fresh_copy(source, Path(folder))
        before = bytes_in_use(copy)
        environment = {**os.environ, "PYTHONPATH": str(tree)}
        command = [sys.executable, "-m", "ingest.cli", "embed", "--db", str(copy), *extra]
        log = Path(folder) / "output.txt"
        with log.open("wb") as sink:
            started = time.perf_counter()
            process = subprocess.Popen(command, cwd=tree, env=environment, stdout=sink, stderr=subprocess.STDOUT)
            _, status, usage = os.wait4(process.pid, 0)  # the child's own rusage: CPU and peak RSS
            wall = time.perf_counter() - started
        output = log.read_text(encoding="utf-8", errors="replace")
        code = os.waitstatus_to_exitcode(status)
        if code:
            raise SystemExit(f"{tree}: ingest embed failed ({code}):\n{output}")
        after = bytes_in_use(copy)
        with sqlite3.connect(copy) as connection:
            chunks = connection.execute("select count(*) from chunk_embeddings").fetchone()[0]
            truncated = connection.execute("select coalesce(sum(truncated), 0) from chunk_embeddings").fetchone()[0]
    cpu = usage.ru_utime + usage.ru_stime
    return {
        "tree": str(tree),
        "chunks": chunks,
        "truncated": truncated,
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "chunks_per_second": round(chunks / wall, 1),
        "chunks_per_cpu_second": round(chunks / cpu, 1),
        "peak_rss_mb": round(usage.ru_maxrss / 1024),
        "growth_mb_per_1000_chunks": round((after - before) / max(chunks, 1) * 1000 / 1e6, 2),
        "summary": " | ".join(line.strip() for line in output.splitlines() if line.strip()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--against", type=Path, help="another checkout to run side by side (e.g. ../main)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--threads", type=int, help="passed as --threads to this tree only")
    args = parser.parse_args()
    trees = [("this", ROOT, ["--threads", str(args.threads)] if args.threads else [])]
    if args.against:
        trees.append(("against", args.against.resolve(), []))
    results = []
    for round_number in range(args.rounds):
        order = trees if round_number % 2 == 0 else list(reversed(trees))
        for label, tree, extra in order:
            figures = run_tree(tree, args.db.resolve(), extra)
            results.append({"label": label, "round": round_number + 1, **figures})
            print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    print(json.dumps(results, indent=2))
    print("\n| tree | chunks | wall s | CPU s | chunks/s | chunks/CPU s | peak RSS MB | truncated |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in results:
        print(
            f"| {row['label']} ({Path(row['tree']).name}) r{row['round']} | {row['chunks']} | {row['wall_seconds']} | "
            f"{row['cpu_seconds']} | {row['chunks_per_second']} | {row['chunks_per_cpu_second']} | "
            f"{row['peak_rss_mb']} | {row['truncated']} |"
        )


if __name__ == "__main__":
    main()
