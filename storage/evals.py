"""What `ingest eval` reads from and writes to the database: stored documents in, `eval_runs` rows out.

It lives in `storage` because the storage package owns every read and write of the database;
`ingest.evaluation.evaluate` calls it.

Documents are rebuilt from their stored pages and elements (no PDF is opened, nothing is
re-parsed), so every strategy is measured on exactly the elements the pipeline stored.
"""

from __future__ import annotations

import re
from pathlib import Path

from sqlalchemy import text

from ingest.contracts.elements import Document
from ingest.contracts.evaluation import EvalReport
from storage.db import open_database, utc_now
from storage.read import iter_documents
from storage.schema import EvalRunRow

#: `tokenize = '...'` or `tokenize = "..."`, where a doubled quote inside stands for one quote.
_TOKENIZE_OPTION = re.compile(r"""tokenize\s*=\s*(?:'((?:[^']|'')*)'|"((?:[^"]|"")*)")""", re.IGNORECASE)


def load_stored_documents(db: str | Path) -> dict[str, Document]:
    """Every document with status `ok`, id -> Document rebuilt from its pages and elements, in id order."""
    with open_database(db, create=False) as database:
        return dict(iter_documents(database, status="ok"))


def stored_fts_tokenize(db: str | Path, default: str) -> str:
    """The tokenizer of the database's `chunks_fts` (so the evaluation searches as users' queries do),
    or `default` when the database has no FTS table (a non-SQLite URL)."""
    with open_database(db, create=False) as database:
        if not database.is_sqlite:
            return default
        with database.engine.connect() as connection:
            sql = connection.execute(text("SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'")).scalar()
    return ddl_to_fts_tokenize(sql) if sql else default


def ddl_to_fts_tokenize(sql: str) -> str:
    """The `tokenize=` option of a `CREATE VIRTUAL TABLE ... USING fts5(...)` statement
    (`unicode61`, FTS5's default, when there is none)."""
    match = _TOKENIZE_OPTION.search(sql)
    if match is None:
        return "unicode61"
    if match.group(1) is not None:
        return match.group(1).replace("''", "'")
    return match.group(2).replace('""', '"')


def save_eval_runs(db: str | Path, report: EvalReport, golden_sha256: str | None) -> None:
    """One `eval_runs` row per strategy, in one transaction; sets each result's `run_id`.

    `params` holds what produced the numbers (chunk settings, k values, budget, retrieval
    depth, tokenizer, `golden_sha256`, documents); `results` the scores, the per-kind
    scores and every question's outcome.
    """
    created_at = utc_now()
    with open_database(db, create=False) as database, database.transaction() as session:
        rows = []
        for result in report.strategies:
            params = {
                "chunk_settings": result.settings,
                "ks": report.ks,
                "budget_tokens": report.budget_tokens,
                "depth": report.depth,
                "fts_tokenize": report.fts_tokenize,
                "retriever": report.retriever,
                "golden_sha256": golden_sha256,
                "documents": report.documents,
                "question_count": report.question_count,
                "skipped": len(report.skipped),
            }
            results = result.model_dump(mode="json", exclude={"settings", "run_id", "strategy"})
            row = EvalRunRow(
                created_at=created_at,
                golden_path=report.golden_path,
                strategy=result.strategy,
                params=params,
                results=results,
            )
            session.add(row)
            rows.append(row)
        session.flush()
        for result, row in zip(report.strategies, rows):
            result.run_id = row.id
