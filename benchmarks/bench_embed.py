"""`ingest embed` throughput (child chunks per second, CPU) and database growth per 1,000 chunks.

    python benchmarks/bench_embed.py INGEST_DB [--chunks 1000] [--batch 32]

Works on a copy of INGEST_DB (migrated to the current schema if older; the original is never
written): embeds whole documents, in id order, until at least `--chunks` child chunks are done,
then prints the figures as one JSON object. Growth = bytes in use (pages minus free pages) after
minus before, both after a WAL checkpoint, scaled to 1,000 chunks; the seconds include tokenising, the model and
the per-document transactions, not loading the model.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def file_size(path: Path) -> int:
    """Bytes in use: pages minus free pages, after a checkpoint (a copied database may hold free
    pages that new rows reuse, so the file size alone would under-count the growth)."""
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        free = connection.execute("PRAGMA freelist_count").fetchone()[0]
        size = connection.execute("PRAGMA page_size").fetchone()[0]
    return (pages - free) * size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--chunks", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()

    from ingest.integrations.embed import DEFAULT_MODEL, Embedder, embed_database, model_spec
    from storage import open_database

    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "bench.db"
        shutil.copy2(args.db, copy)
        open_database(copy).close()  # migrate the copy
        with sqlite3.connect(copy) as connection:
            counts = connection.execute(
                "select document_id, count(*) from chunks where kind = 'child' "
                "group by document_id order by document_id"
            ).fetchall()
        chosen, total = [], 0
        for document_id, count in counts:
            if total >= args.chunks:
                break
            chosen.append(document_id)
            total += count
        started = time.perf_counter()
        embedder = Embedder(model_spec(DEFAULT_MODEL))
        load_seconds = time.perf_counter() - started
        before = file_size(copy)
        result = embed_database(str(copy), batch=args.batch, embedder=embedder, documents=chosen)
        after = file_size(copy)
    print(
        json.dumps(
            {
                "model": DEFAULT_MODEL,
                "documents": result.documents,
                "chunks": result.chunks,
                "truncated": result.truncated,
                "seconds": result.seconds,
                "chunks_per_second": round(result.chunks_per_second, 1),
                "model_load_seconds": round(load_seconds, 2),
                "bytes_before": before,
                "bytes_after": after,
                "growth_mb_per_1000_chunks": round((after - before) / result.chunks * 1000 / 1e6, 2),
                "batch": args.batch,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
