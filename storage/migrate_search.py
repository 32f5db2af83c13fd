"""Schema steps of full-text search. 2 -> 3: a two-column, stemmed `chunks_fts`, and no parent
row that repeats its only child. 5 -> 6: `chunks_fts` indexes a chunk's two innermost headings
(the `chunks_search` view, `storage.schema.searched_heading`) instead of its whole heading path.

Kept in its own module so that other schema steps stay separate entries of
`storage.db.MIGRATIONS`; this one only touches `chunks_fts`, its triggers and `chunks`.

1. `chunks_fts` is rebuilt with the columns (heading_path, body) and the tokenizer of
   `storage.schema.FTS_DDL`: the old single-column index over `text` cannot be altered.
2. A parent with exactly one child whose text is the parent's text is deleted and the child
   loses its `parent_id` (the chunker no longer emits such twins); `seq` is renumbered per
   document so it stays the chunker's 0..n-1 order, and `documents.chunk_count` is recounted.
   The result equals what re-chunking the stored elements gives today, so no re-parse is needed.

Step 5 -> 6 drops the index and its triggers and builds them again from `FTS_DDL` over the view;
no chunk changes.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.orm import Session

from storage.schema import FTS_DDL

_TWIN_PARENTS = """
    SELECT p.id FROM chunks p
    JOIN chunks c ON c.parent_id = p.id
    WHERE p.kind = 'parent'
    GROUP BY p.id
    HAVING count(*) = 1 AND max(c.text) = p.text
"""


def migrate_search_index_and_twin_parents(session: Session) -> None:
    """Run inside the migration transaction of `storage.db.ensure_schema` (SQLite only)."""
    is_sqlite = session.get_bind().dialect.name == "sqlite"
    if is_sqlite:
        _drop_search_index(session)
    twins = [row[0] for row in session.execute(text(_TWIN_PARENTS))]
    documents = set()
    for start in range(0, len(twins), 500):
        batch = twins[start : start + 500]
        marks = ", ".join(str(int(i)) for i in batch)
        documents |= {row[0] for row in session.execute(text(f"SELECT document_id FROM chunks WHERE id IN ({marks})"))}
        session.execute(text(f"UPDATE chunks SET parent_id = NULL WHERE parent_id IN ({marks})"))
        session.execute(text(f"DELETE FROM chunks WHERE id IN ({marks})"))
    for document_id in sorted(documents):
        # Two passes keep (document_id, seq) unique at every step: first move every seq below
        # zero (-1 - seq, so the old order is now descending), then number them 0..n-1.
        session.execute(text("UPDATE chunks SET seq = -1 - seq WHERE document_id = :d"), {"d": document_id})
        ids = [
            row[0]
            for row in session.execute(
                text("SELECT id FROM chunks WHERE document_id = :d ORDER BY seq DESC"), {"d": document_id}
            )
        ]
        session.execute(
            text("UPDATE chunks SET seq = :seq WHERE id = :id"), [{"seq": seq, "id": i} for seq, i in enumerate(ids)]
        )
        session.execute(
            text(
                "UPDATE documents SET chunk_count = (SELECT count(*) FROM chunks WHERE document_id = :d) WHERE id = :d"
            ),
            {"d": document_id},
        )
    if is_sqlite:
        _build_search_index(session)


def migrate_searched_headings(session: Session) -> None:
    """5 -> 6: the full-text index rebuilt over `chunks_search` (SQLite; PostgreSQL's
    `search_vector` is unchanged)."""
    if session.get_bind().dialect.name == "sqlite":
        _drop_search_index(session)
        _build_search_index(session)


def _drop_search_index(session: Session) -> None:
    for trigger in ("chunks_fts_insert", "chunks_fts_delete", "chunks_fts_update"):
        session.execute(text(f"DROP TRIGGER IF EXISTS {trigger}"))
    session.execute(text("DROP TABLE IF EXISTS chunks_fts"))
    session.execute(text("DROP VIEW IF EXISTS chunks_search"))


def _build_search_index(session: Session) -> None:
    """`FTS_DDL` (view, index, triggers), then the index filled from the view."""
    for statement in FTS_DDL:
        session.execute(text(statement))
    session.execute(text("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')"))
