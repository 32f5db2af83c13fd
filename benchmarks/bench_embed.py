"""`ingest embed` throughput (child chunks per second, CPU) and database growth per 1,000 chunks.

    python benchmarks/bench_embed.py INGEST_DB [--chunks 1000] [--batch 32]
    python benchmarks/bench_embed.py INGEST_DB --compare [--chunks 300] [--rounds 2]

Works on a copy of INGEST_DB (migrated to the current schema if older; the original is never
written): embeds whole documents, in id order, until at least `--chunks` child chunks are done,
then prints the figures as one JSON object. Growth = bytes in use (pages minus free pages) after
minus before, both after a WAL checkpoint, scaled to 1,000 chunks; the seconds include tokenising, the model and
the per-document transactions, not loading the model; `cpu_seconds` is `time.process_time`
(every thread of the process), the figure to compare on a shared machine.

`--compare`: the first `--chunks` child texts (document, chunk order) embedded in one process by
the old way (stored order, onnxruntime's default thread count) and the current way
(`encode_by_length`: batches of similar length, `DEFAULT_THREADS`), alternating `--rounds` times so
load changes hit both alike; prints chunks per CPU second of each, their ratio, and the largest
difference between the two vectors of a text (must stay below 1e-5). Nothing is written.
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
    parser.add_argument("--compare", action="store_true", help="old vs current batching and threads, no writes")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if args.compare:
        compare(args.db, args.chunks, args.batch, args.rounds)
        return

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
        cpu = time.process_time()
        result = embed_database(str(copy), batch=args.batch, embedder=embedder, documents=chosen)
        cpu = time.process_time() - cpu
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
                "cpu_seconds": round(cpu, 1),
                "chunks_per_cpu_second": round(result.chunks / cpu, 2) if cpu else None,
                "model_load_seconds": round(load_seconds, 2),
                "bytes_before": before,
                "bytes_after": after,
                "growth_mb_per_1000_chunks": round((after - before) / result.chunks * 1000 / 1e6, 2),
                "batch": args.batch,
            },
            indent=2,
        )
    )


def compare(db: Path, chunks: int, batch: int, rounds: int) -> None:
    import numpy as np

    from ingest.integrations.embed import DEFAULT_MODEL, Embedder, encode_by_length, model_spec

    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        texts = [
            row[0]
            for row in connection.execute(
                "select text from chunks where kind = 'child' order by document_id, seq limit ?", (chunks,)
            )
        ]
    old_model = Embedder(model_spec(DEFAULT_MODEL), threads=None)  # onnxruntime default: a thread per core
    new_model = Embedder(model_spec(DEFAULT_MODEL))

    def old(texts):
        return [v for at in range(0, len(texts), batch) for v in old_model.encode(texts[at : at + batch]).vectors]

    def new(texts):
        return encode_by_length(new_model, texts, batch).vectors

    seconds = {"old": 0.0, "new": 0.0}
    vectors = {}
    for _ in range(rounds):
        for name, run in (("old", old), ("new", new)):
            started = time.process_time()
            vectors[name] = np.asarray(run(texts))
            seconds[name] += time.process_time() - started
    rate = {name: round(len(texts) * rounds / value, 2) for name, value in seconds.items()}
    print(
        json.dumps(
            {
                "texts": len(texts),
                "rounds": rounds,
                "batch": batch,
                "old_chunks_per_cpu_second": rate["old"],
                "new_chunks_per_cpu_second": rate["new"],
                "ratio_new_over_old": round(rate["new"] / rate["old"], 3),
                "max_vector_difference": float(np.abs(vectors["old"] - vectors["new"]).max()),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
