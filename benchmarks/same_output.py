"""Is the pipeline's output unchanged? Ingest the same PDFs with two versions of the code
and compare every stored element and chunk.

    python benchmarks/same_output.py --against main~1            # a git revision vs this tree
    python benchmarks/same_output.py --against main~1 --pdfs fixtures ../shared/corpus

Each side runs `ingest run` in a fresh process whose `PYTHONPATH` points at that side's code
(a revision is checked out into a temporary `git worktree`), into its own temporary SQLite
file. What is compared, per document (matched by source path): the document row's title,
page count and canonical text; every element's type, heading level, page, box, text and
data; every chunk's kind, parent, text, body, heading path, pages, offsets, token count and
language. Run-dependent values (ids, timestamps, run ids) are left out.

Prints "identical" and exits 0, or lists the first differences and exits 1. Restructuring,
renaming and speed work must leave this at "identical"; a change that is meant to alter the
output says so and shows what this prints.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_PDFS = [REPO / "fixtures", REPO.parent / "shared" / "corpus"]

DOCUMENT_SQL = "select id, source_path, title, page_count, status, text from documents order by source_path"
ELEMENT_SQL = (
    "select seq, page_no, type, heading_level, text, x0, top, x1, bottom, data from elements "
    "where document_id = :id order by seq"
)
CHUNK_SQL = (
    "select c.seq, c.kind, p.seq as parent_seq, c.text, c.body, c.heading_path, c.page_start, c.page_end, "
    "c.char_start, c.char_end, c.token_count, c.language from chunks c left join chunks p "
    "on p.id = c.parent_id where c.document_id = :id order by c.seq"
)


def ingest_with(code_dir: Path, pdfs: list[Path], db: Path) -> None:
    """`ingest run` with the code in `code_dir`, in a fresh interpreter (no module reused)."""
    env = dict(os.environ, PYTHONPATH=str(code_dir))
    command = [
        sys.executable,
        "-c",
        "from ingest.cli import app; app()",
        "run",
        *map(str, pdfs),
        "--db",
        str(db),
        "--quiet",
    ]
    done = subprocess.run(command, cwd=code_dir, env=env, capture_output=True, text=True)
    if not db.exists():
        raise SystemExit(f"same_output: ingest with {code_dir} wrote no database:\n{done.stderr[-2000:]}")


def database_to_snapshot(db: Path) -> dict[str, dict]:
    """Everything compared, keyed by source path; read with the standard sqlite3 module so
    the snapshot does not depend on either side's code."""
    import sqlite3

    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    connection.row_factory = sqlite3.Row
    snapshot = {}
    for document in connection.execute(DOCUMENT_SQL):
        row = dict(document)
        doc_id = row.pop("id")
        row["elements"] = [dict(r) for r in connection.execute(ELEMENT_SQL, {"id": doc_id})]
        row["chunks"] = [dict(r) for r in connection.execute(CHUNK_SQL, {"id": doc_id})]
        snapshot[row.pop("source_path")] = row
    connection.close()
    return snapshot


def snapshot_differences(before: dict, after: dict, limit: int = 20) -> list[str]:
    """Human-readable differences, at most `limit`; empty when the snapshots are equal."""
    found: list[str] = []
    for path in sorted(set(before) | set(after)):
        if path not in before or path not in after:
            found.append(f"{path}: only in {'after' if path not in before else 'before'}")
            continue
        old, new = before[path], after[path]
        for key in ("title", "page_count", "status", "text"):
            if old[key] != new[key]:
                found.append(f"{path}: document {key} differs")
        for kind in ("elements", "chunks"):
            if len(old[kind]) != len(new[kind]):
                found.append(f"{path}: {len(old[kind])} {kind} before, {len(new[kind])} after")
            for a, b in zip(old[kind], new[kind]):
                if a != b:
                    field = next(k for k in a if a[k] != b.get(k))
                    found.append(
                        f"{path}: {kind[:-1]} {a['seq']} {field}: {json.dumps(a[field])[:120]} -> "
                        f"{json.dumps(b[field])[:120]}"
                    )
                    break
        if len(found) >= limit:
            break
    return found[:limit]


def checkout(revision: str, into: Path) -> Path:
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(into), revision], check=True)
    return into


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", required=True, help="git revision to compare this working tree with")
    parser.add_argument("--pdfs", nargs="+", type=Path, default=DEFAULT_PDFS, help="files or folders to ingest")
    args = parser.parse_args(argv)
    pdfs = [path.resolve() for path in args.pdfs]
    with tempfile.TemporaryDirectory(prefix="same-output-") as tmp:
        tmp = Path(tmp)
        old_code = checkout(args.against, tmp / "before-code")
        try:
            ingest_with(old_code, pdfs, tmp / "before.db")
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(old_code)], check=False)
        ingest_with(REPO, pdfs, tmp / "after.db")
        before, after = database_to_snapshot(tmp / "before.db"), database_to_snapshot(tmp / "after.db")
    differences = snapshot_differences(before, after)
    documents = len(after)
    elements = sum(len(d["elements"]) for d in after.values())
    chunks = sum(len(d["chunks"]) for d in after.values())
    if differences:
        print("different:")
        print("\n".join(f"  {line}" for line in differences))
        return 1
    print(f"identical ({documents} documents, {elements} elements, {chunks} chunks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
