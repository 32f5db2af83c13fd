"""The same PDFs through SQLite + process pool, PostgreSQL + process pool and PostgreSQL + Ray,
side by side: documents and pages per second, worker CPU per page, write cost per chunk, and
database size per page. The figures in docs/scaling.md come from this script.

    PYTHONPATH=. python3 benchmarks/bench_engines.py                # 6 corpus PDFs, 2 CPUs
    PYTHONPATH=. nice -n 10 python3 benchmarks/bench_engines.py --files all   # the 17 corpus PDFs
    PYTHONPATH=. python3 benchmarks/bench_engines.py --files a.pdf b.pdf --cpus 4
    PYTHONPATH=. python3 benchmarks/bench_engines.py --pg-url postgresql+psycopg://u@host/db

Without `--pg-url` a throw-away PostgreSQL is started as the tests start it (tests/engines.py:
Debian's `postgresql` package, a unix socket in a temp dir). Ray is started once, before the
timed run (its start-up, ~5-10 s, is reported apart: a cluster pays it once, not per run).

- worker s/page: the sum of the per-document parse+chunk seconds (`run_items.seconds`, wall
  time inside the worker) over the pages: what a core costs per page on an idle machine, but
  inflated by waiting for a CPU on a loaded one.
- CPU s/page (process pool only): user + system CPU of the whole `ingest run` process tree
  (driver, forkserver, workers; reaped as `startup.run_measured` does) over the
  pages. Waiting for a CPU does not count, so it is the figure that holds on a shared machine.
  The PostgreSQL server's own CPU is not in it (not our process). The pool columns run the CLI
  in a subprocess for this; the Ray column runs in this process (Ray started once, before).
- write ms/chunk: the documents parsed once, then stored again and again (`save_document`, one
  transaction each) into each engine: the driver's cost per chunk, the single writer's budget
  (`--write-files`: which PDFs, default the 6 small ones, so the full corpus is not parsed twice).
- size/page: SQLite's file after a WAL checkpoint; PostgreSQL's database minus an empty one.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

#: Born-digital corpus PDFs (no OCR), 14 pages in all: a couple of minutes on 2 shared cores.
DEFAULT_FILES = [
    "normal_4pages.pdf",
    "reliance.pdf",
    "layout-parser-paper-fast.pdf",
    "code_and_formula.pdf",
    "150109DSP-Milw-505-90D.pdf",
    "scotus-transcript-p1.pdf",
]


#: Seconds one document may take: DA-619p.pdf (619 pages) on a loaded machine needs more than 600.
DOCUMENT_TIMEOUT_S = 3600


def ingest(folder: Path, db: str, cpus: int, executor: str) -> dict:
    """One run over `folder`: in a CLI subprocess with the process tree's CPU for the process pool,
    in this process (Ray already started) for Ray."""
    from storage import run_query

    cpu = None
    if executor == "process":
        import resource

        from startup import become_subreaper, reap_all  # a sibling script, not a package

        command = [sys.executable, "-m", "ingest.cli", "run", str(folder), "--db", db, "--workers", str(cpus)]
        command += ["--ocr", "auto", "--timeout", str(DOCUMENT_TIMEOUT_S), "-q"]
        become_subreaper()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        finished = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        wall = time.monotonic() - started
        reap_all()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if finished.returncode not in (0, 1):  # 1: some document failed, counted below
            raise SystemExit(f"ingest run exited {finished.returncode}: {finished.stderr}")
    else:
        from ingest.api import run

        started = time.monotonic()
        run([str(folder)], db=db, workers=cpus, ocr="auto", executor=executor, timeout=DOCUMENT_TIMEOUT_S)
        wall = time.monotonic() - started
    [[run_id]] = run_query(db, "select max(id) from runs").rows
    [[documents, pages, chunks, worker_seconds]] = run_query(
        db,
        "select count(*), sum(d.page_count), sum(d.chunk_count), sum(i.seconds) from run_items i "
        f"join documents d on d.id = i.document_id where i.run_id = {run_id} and i.outcome = 'new'",
    ).rows
    [[failed]] = run_query(db, f"select count(*) from run_items where run_id = {run_id} and outcome = 'failed'").rows
    result = {
        "documents": documents,
        "pages": pages,
        "chunks": chunks,
        "failed": failed,
        "wall_s": round(wall, 2),
        "docs_per_s": round(documents / wall, 3),
        "pages_per_s": round(pages / wall, 2),
        "worker_s_per_page": round(worker_seconds / pages, 3),
    }
    if cpu is not None:
        result["cpu_s_per_page"] = round(cpu / pages, 3)
    print(executor, db.split("?")[0], json.dumps(result), flush=True)
    return result


def write_cost(db: str, processed: list, rounds: int) -> float:
    """ms per chunk of `save_document` (one transaction per document), stored `rounds` times over."""
    from ingest.pipeline.settings import PIPELINE_VERSION
    from storage import DocumentInfo, open_database, save_document

    info = DocumentInfo(pipeline_version=PIPELINE_VERSION)
    chunks = 0
    with open_database(db) as database:
        started = time.perf_counter()
        for _round in range(rounds):
            for index, item in enumerate(processed):
                with database.transaction() as session:
                    save_document(session, f"bench{index:05d}", item.document, item.chunks, info)
                chunks += len(item.chunks)
        seconds = time.perf_counter() - started
    return round(1000 * seconds / chunks, 3)


def size_per_page(db: str, pages: int, empty_bytes: int = 0) -> int:
    from storage import open_database

    with open_database(db, create=False) as database, database.engine.connect() as connection:
        from sqlalchemy import text

        if database.is_sqlite:
            connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
            size = Path(database.sqlite_path).stat().st_size
        else:
            size = connection.execute(text("select pg_database_size(current_database())")).scalar() - empty_bytes
    return round(size / pages)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--files", nargs="*", default=DEFAULT_FILES, help="PDF names or paths; `all`: every corpus PDF")
    parser.add_argument("--write-files", nargs="*", default=DEFAULT_FILES, help="PDFs for the write-cost measure")
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--pg-url", default=None)
    parser.add_argument("--write-rounds", type=int, default=3)
    parser.add_argument("--no-ray", action="store_true")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench-engines-"))
    folder = work / "pdfs"
    folder.mkdir()
    files = sorted(args.corpus.glob("*.pdf")) if args.files == ["all"] else args.files
    for name in files:
        source = Path(name) if Path(name).is_file() else args.corpus / name
        shutil.copy(source, folder / source.name)

    server = None
    if args.pg_url is None:
        from engines import PostgresServer, postgres_bindir

        server = PostgresServer(postgres_bindir())
        server.start()
        new_pg = server.create_database
    else:
        new_pg = None
    results: dict[str, dict] = {}
    try:

        def pg_url(prefix: str) -> str:
            return new_pg(prefix) if new_pg else args.pg_url

        empty = pg_url("empty")
        from sqlalchemy import create_engine, text

        engine = create_engine(empty)
        with engine.connect() as connection:
            empty_bytes = connection.execute(text("select pg_database_size(current_database())")).scalar()
        engine.dispose()

        sqlite_db = str(work / "ingest.db")
        results["sqlite + process pool"] = ingest(folder, sqlite_db, args.cpus, "process")
        results["sqlite + process pool"]["bytes_per_page"] = size_per_page(
            sqlite_db, results["sqlite + process pool"]["pages"]
        )
        pg_pool = pg_url("pool")
        results["postgresql + process pool"] = ingest(folder, pg_pool, args.cpus, "process")
        results["postgresql + process pool"]["bytes_per_page"] = size_per_page(
            pg_pool, results["postgresql + process pool"]["pages"], empty_bytes
        )
        from ingest.pipeline.document import process_document
        from ingest.pipeline.settings import PipelineSettings

        settings = PipelineSettings.resolve({"workers": 0})
        write_paths = [Path(name) if Path(name).is_file() else args.corpus / name for name in args.write_files]
        processed = [process_document(str(path), settings) for path in write_paths]
        results["sqlite + process pool"]["write_ms_per_chunk"] = write_cost(
            str(work / "writes.db"), processed, args.write_rounds
        )
        pg_write = write_cost(pg_url("writes"), processed, args.write_rounds)
        results["postgresql + process pool"]["write_ms_per_chunk"] = pg_write
        print("so far:", json.dumps(results), flush=True)  # Ray last: a long run keeps these if stopped
        if not args.no_ray:
            import ray

            started = time.monotonic()
            ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False, configure_logging=False)
            ray_start = round(time.monotonic() - started, 2)
            results["postgresql + ray"] = ingest(folder, pg_url("ray"), args.cpus, "ray")
            results["postgresql + ray"]["ray_start_s"] = ray_start
            results["postgresql + ray"]["write_ms_per_chunk"] = pg_write
            ray.shutdown()

    finally:
        if server:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)

    columns = list(dict.fromkeys(key for row in results.values() for key in row))
    print(f"{len(files)} PDFs, {args.cpus} CPUs")
    print(f"{'':28}" + "".join(f"{name:>28}" for name in results))
    for column in columns:
        print(f"{column:28}" + "".join(f"{str(row.get(column, '')):>28}" for row in results.values()))
    print(json.dumps(results))


if __name__ == "__main__":
    main()
