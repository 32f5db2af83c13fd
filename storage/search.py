"""Full-text search over chunks: the ONE query builder and ranking that `ingest search` and `ingest eval` share.

Query: the user's words, never FTS5 syntax. Punctuation and symbols become spaces, stop words
of the word's language are dropped and a word joining letters and a number is followed by its
number ("FY2022" -> fy2022, 2022) (`storage.search_words`); every remaining word is
double-quoted (so `AND`, `NEAR`, `*`, `-`, `:` and stray quotes in a question are plain words)
and the words are joined with `OR`: bm25 then ranks chunks by how many of the words they share
and how rare those words are.

Ranking: FTS5 `bm25()` over two columns, the chunk's two innermost headings
(`storage.schema.searched_heading`: its section and the one above, not the document title or
the levels above, which every chunk under them shares) and its body, weighted HEADING_WEIGHT :
BODY_WEIGHT. The tokenizer (FTS_TOKENIZE, in `storage.schema`) stems English with `porter`.
These choices were measured with `ingest eval` on the fixtures' golden set and FinanceBench
dev; the figures are in docs/search.md and docs/evaluation.md.

Document names: a search over several documents multiplies the bm25 of a document's chunks by
1 + NAME_BOOST per question word naming it (its title's or file stem's words), because bm25
alone gives a document's name no weight when half the index carries it (docs/search.md).

Vectors and fusion: `retriever="vector"` ranks the child chunks embedded with a model by cosine
distance to the question's vector (`ingest embed` stores them; `storage.vectors`);
`retriever="hybrid"` fuses the full-text ranking above (name boost included) and the vector
ranking by reciprocal rank fusion, `fuse_rankings`: each chunk scores the sum of
1 / (RRF_K + rank) over the FUSION_DEPTH best of each list (ranks from 1). Measured in
docs/search.md.

Only child chunks are searched (the retrieval units; a section that fits in one child is one
child without a parent). `parents=True` replaces each ranked child by its parent section,
keeping the rank of the section's best child, as `ingest eval`'s parent expansion does.

PostgreSQL: `search_chunks` is the one entry point for both engines. On a PostgreSQL URL the
same terms go through `plainto_tsquery` and are ranked by `ts_rank_cd` over `chunks.search_vector`
(`storage.postgres.ranked_children_sql`; score = minus the rank, so lower is better on both);
narrowing, name boost and parent expansion are the same code. Vectors are SQLite-only
(sqlite-vec): `vector`/`hybrid` on PostgreSQL is a ConfigError saying to use bm25. `ingest eval`
always ranks with its in-memory FTS5 `ChunkIndex`, so its figures do not depend on the engine.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from ingest.contracts.errors import ConfigError, QueryError
from ingest.contracts.search import SearchHit
from storage.db import Database, database_url, open_database
from storage.query import DEFAULT_QUERY_TIMEOUT, open_readonly_sqlite
from storage.read import find_document
from storage.schema import FTS_TOKENIZE
from storage.search_words import document_name_words, name_matches, question_to_terms

#: bm25 column weights (innermost headings, body). Measured in docs/search.md (on the whole path,
#: before schema 6): a heavier heading path (2x, 4x) did not help on the fixtures and lowered
#: FinanceBench hit@4 (0.44 -> 0.36 at 4x), so both count the same; the separate column keeps
#: the knob for other corpora.
HEADING_WEIGHT = 1.0
BODY_WEIGHT = 1.0
#: Child chunks fetched per search when parents are expanded (several children share a parent).
PARENT_DEPTH_FACTOR = 10
#: Document-name boost: a chunk's bm25 score is multiplied by 1 + NAME_BOOST x (question words
#: that name its document, see `name_matches`). Only when the search spans several documents;
#: candidates are the NAME_DEPTH best by bm25 alone. Measured in docs/search.md.
NAME_BOOST = 0.5
NAME_DEPTH = 200
#: Reciprocal rank fusion (`retriever="hybrid"`): the usual constant of Cormack et al. (2009),
#: which damps the weight of the very first ranks, and how many of each ranking are fused.
RRF_K = 60
FUSION_DEPTH = 50
RETRIEVERS = ("bm25", "vector", "hybrid")


def terms_to_match(terms: Sequence[str]) -> str:
    """A MATCH expression ORing each term as a quoted string (inner quotes doubled, as FTS5 escapes them)."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def question_to_match(question: str) -> str | None:
    """The FTS5 MATCH expression for a question, or None when it holds no word at all."""
    terms = question_to_terms(question)
    return terms_to_match(terms) if terms else None


def boost_by_name(scored: Sequence[tuple[str, str, float]], matches: Mapping[str, int]) -> list[tuple[str, float]]:
    """`(key, document, bm25)` rows, best first, re-ranked by bm25 x (1 + NAME_BOOST x name matches)
    (bm25 is negative, lower is better; the sort is stable, so ties keep bm25 order)."""
    boosted = [(key, score * (1 + NAME_BOOST * matches.get(doc, 0))) for key, doc, score in scored]
    return sorted(boosted, key=lambda row: row[1])


def fuse_rankings(rankings: Sequence[Sequence[Hashable]], depth: int = FUSION_DEPTH) -> list[tuple[Hashable, float]]:
    """Reciprocal rank fusion: `(key, score)` best first, score = sum over the rankings of
    1 / (RRF_K + rank) for the `depth` best of each (rank 1 = best; a key missing from a ranking
    gets nothing from it). Ties keep the order of first appearance (the first ranking first)."""
    scores: dict[Hashable, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking[:depth], start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(scores.items(), key=lambda item: -item[1])


def check_retriever(retriever: str) -> str:
    if retriever not in RETRIEVERS:
        raise ConfigError(f"retriever {retriever!r}: expected one of {', '.join(RETRIEVERS)}", stage="search")
    return retriever


def bm25_expression(
    table: str, unindexed_columns: int = 0, weights: tuple[float, float] = (HEADING_WEIGHT, BODY_WEIGHT)
) -> str:
    """`bm25(table, ...)` with the (heading path, body) weights; FTS5 takes one weight per column
    in declaration order, so `unindexed_columns` leading UNINDEXED columns get weight 0."""
    values = ["0"] * unindexed_columns + [repr(float(w)) for w in weights]
    return f"bm25({table}, {', '.join(values)})"


class ChunkIndex:
    """An in-memory FTS5 index over (key, scope, heading path, body) rows, ranked exactly as
    `search_chunks` ranks the stored `chunks_fts`; `ingest eval` builds one per strategy.

    `scope` is a free label searched by equality (the evaluation uses the document id).
    `tokenize` and `weights` differ from the defaults only to measure alternatives.
    Close it (or use `with`) when done.
    """

    def __init__(self, tokenize: str = FTS_TOKENIZE, weights: tuple[float, float] = (HEADING_WEIGHT, BODY_WEIGHT)):
        self.tokenize = tokenize
        self.weights = weights
        self.names: dict[str, frozenset[str]] = {}
        self._db = sqlite3.connect(":memory:")
        quoted = "'" + tokenize.replace("'", "''") + "'"
        try:
            self._db.execute(
                "CREATE VIRTUAL TABLE chunk_fts USING fts5(key UNINDEXED, scope UNINDEXED, heading_path, body, "
                f"tokenize={quoted})"
            )
        except sqlite3.Error as error:
            self._db.close()
            raise ConfigError(f"SQLite FTS5 refused the tokenizer {tokenize!r}: {error}", stage="eval") from error

    def add(self, rows: Iterable[tuple[str, str, str, str]]) -> None:
        """Index `(key, scope, heading_path, body)` rows."""
        with self._db:
            self._db.executemany("INSERT INTO chunk_fts(key, scope, heading_path, body) VALUES (?, ?, ?, ?)", rows)

    def name_scope(self, scope: str, title: str | None, source_path: str | None) -> None:
        """Give a scope (a document) its name, for the document-name boost of unscoped searches."""
        self.names[scope] = document_name_words(title, source_path)

    def search(self, question: str, limit: int, scope: str | None = None) -> list[tuple[str, float]]:
        """The `limit` best `(key, score)` rows for `question`, best first (bm25 ascending; ties by insertion);
        without `scope`, over named scopes, re-ranked by the document-name boost as `search_chunks` does."""
        terms = question_to_terms(question)
        if not terms:
            return []
        match = terms_to_match(terms)
        boost = scope is None and len(self.names) > 1
        rank = bm25_expression("chunk_fts", 2, self.weights)
        sql = f"SELECT key, scope, {rank} AS score FROM chunk_fts WHERE chunk_fts MATCH ?"
        params: list[object] = [match]
        if scope is not None:
            sql += " AND scope = ?"
            params.append(scope)
        sql += " ORDER BY score, rowid LIMIT ?"
        params.append(max(limit, NAME_DEPTH) if boost else limit)
        try:
            rows = self._db.execute(sql, params).fetchall()
        except sqlite3.Error as error:  # quoted terms never fail; if they do, say what was sent
            raise QueryError(f"FTS5 rejected the query {match!r} built from {question!r}: {error}") from error
        if not boost:
            return [(key, score) for key, _, score in rows]
        return boost_by_name(rows, name_matches(terms, self.names))[:limit]

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "ChunkIndex":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


_HIT_COLUMNS = (
    "c.id, c.parent_id, c.document_id, d.source_path, d.title, c.kind, c.seq, c.heading_path, "
    "c.page_start, c.page_end, c.token_count, c.text"
)


def search_chunks(
    db: str | Path,
    question: str,
    k: int = 5,
    doc: str | None = None,
    where: str | None = None,
    parents: bool = False,
    retriever: str = "bm25",
    embed_question: Callable[[str], Sequence[float]] | None = None,
    model: str | None = None,
) -> list[SearchHit]:
    """The `k` best child chunks for `question` in the database at `db` (SQLite or PostgreSQL), best first.

    `doc` restricts to one document (id, unique id prefix or source path); `where` is an SQL
    condition over `c` (chunks) and `d` (documents), e.g. `d.title LIKE '%cotton%'`, run on a
    read-only connection like `ingest query`. `parents` returns parent sections instead.
    `retriever`: `bm25` (full text), `vector` (cosine to `embed_question(question)` among the
    chunks embedded with `model`) or `hybrid` (both fused, `fuse_rankings`); `embed_question` is
    called only after the database is found to hold vectors for `model`. On PostgreSQL the full
    text is the `tsvector` ranked by `ts_rank_cd` (`storage.postgres.ranked_children_sql`), from
    the same words, and vectors are not available (they live in sqlite-vec tables).
    Raises ConfigError for k < 1, an unknown retriever, no vectors for `model` or vectors asked
    of PostgreSQL, QueryError for a bad `where`.
    """
    if k < 1:
        raise ConfigError(f"--k must be a positive number of results, not {k}", stage="search")
    check_retriever(retriever)
    url = database_url(db)
    if url.startswith("postgresql"):
        if retriever != "bm25":
            raise ConfigError(
                f"--{retriever} search needs vectors, which `ingest embed` stores with sqlite-vec in an SQLite "
                "--db only; on PostgreSQL search with BM25 (leave out --vector/--hybrid)",
                stage="search",
            )
        return _search_postgresql(db, question, k, doc, where, parents)
    if not url.startswith("sqlite"):
        raise ConfigError("full-text search needs an SQLite (FTS5) or PostgreSQL (tsvector) --db", stage="search")
    path = make_url(url).database or ""
    if not Path(path).exists():
        open_readonly_sqlite(path)  # raises the usual "no database at ..." StorageError
    with open_database(db) as database:  # migrates an older file, so chunks_fts has today's columns
        document_id = _resolve_document(database, doc) if doc else None
    terms = question_to_terms(question)
    depth = k * PARENT_DEPTH_FACTOR if parents else k
    connection = open_readonly_sqlite(path)
    try:
        vector = None
        if retriever != "bm25":
            table = _require_vectors(connection, model, str(db))
            if embed_question is None:
                raise ConfigError(f"--{retriever} needs the question embedded with {model}", stage="search")
            vector = (table, list(embed_question(question)))
        fetch = FUSION_DEPTH if retriever == "hybrid" else depth
        text_rows = _fts_rows(connection, terms, document_id, where, fetch) if retriever != "vector" else []
        vector_rows = _vector_rows(connection, vector, model, document_id, where, fetch) if vector else []
        if retriever == "bm25":
            rows = text_rows
        elif retriever == "vector":
            rows = vector_rows
        else:
            by_key = {row[0]: row for row in vector_rows + text_rows}
            fused = fuse_rankings([[row[0] for row in text_rows], [row[0] for row in vector_rows]])
            rows = [by_key[key][:-1] + (score,) for key, score in fused]
        hits = _rows_to_hits(connection, rows[: max(depth, k)], k, parents)
    except (sqlite3.Error, sqlite3.Warning) as error:
        raise QueryError(f"search failed on {_searched(question, where)}: {error}") from error
    finally:
        connection.close()
    return hits


def _search_postgresql(
    db: str | Path, question: str, k: int, doc: str | None, where: str | None, parents: bool
) -> list[SearchHit]:
    """`search_chunks` with bm25 on PostgreSQL: the same terms, narrowing, name boost and parent
    expansion, in one READ ONLY transaction with `ingest query`'s statement timeout."""
    import psycopg

    from storage.postgres import readonly_transaction

    depth = k * PARENT_DEPTH_FACTOR if parents else k
    with open_database(db, create=False) as database:  # a search never creates a schema
        document_id = _resolve_document(database, doc) if doc else None
        try:
            with readonly_transaction(database.engine.raw_connection, DEFAULT_QUERY_TIMEOUT) as connection:
                rows = _fts_rows(connection, question_to_terms(question), document_id, where, depth)
                return _rows_to_hits(connection, rows, k, parents)
        except psycopg.Error as error:
            raise QueryError(f"search failed on {_searched(question, where)}: {error}") from error


def _searched(question: str, where: str | None) -> str:
    return f"the --where condition {where!r}" if where else f"the question {question!r}"


def _fts_rows(
    connection: Any, terms: Sequence[str], document_id: str | None, where: str | None, depth: int
) -> list[tuple]:
    """The `depth` best child rows by full text (`_HIT_COLUMNS` + score, lower is better), name-boosted
    over several documents: FTS5 bm25 on SQLite, `ts_rank_cd` on PostgreSQL (a psycopg connection)."""
    if not terms:
        return []
    boost = document_id is None
    if isinstance(connection, sqlite3.Connection):
        sql = (
            f"SELECT {_HIT_COLUMNS}, {bm25_expression('chunks_fts')} AS score "
            "FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.document_id "
            "WHERE chunks_fts MATCH ? AND c.kind = 'child'"
        )
        params: list[object] = [terms_to_match(terms)]
    else:
        from storage.postgres import ranked_children_sql

        sql, params = ranked_children_sql(connection, terms, _HIT_COLUMNS)
    limit = max(depth, NAME_DEPTH) if boost else depth
    sql, params = _narrowed(sql, params, document_id, where, limit, _mark(connection))
    rows = connection.execute(sql, params).fetchall()
    return _boosted_rows(connection, rows, terms)[:depth] if boost else rows


def _mark(connection: Any) -> str:
    """The parameter mark of the connection's driver: `?` for sqlite3, `%s` for psycopg."""
    return "?" if isinstance(connection, sqlite3.Connection) else "%s"


def has_vectors(db: str | Path, model: str) -> bool:
    """Whether the SQLite database at `db` holds chunk vectors of `model` (`ingest embed`); False for
    PostgreSQL, a missing file or a file without the vector tables."""
    url = database_url(db)
    if not url.startswith("sqlite"):
        return False
    path = make_url(url).database or ""
    if not Path(path).exists():
        return False
    connection = open_readonly_sqlite(path)
    try:
        if not connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunk_embeddings'").fetchone():
            return False
        return (
            connection.execute("SELECT 1 FROM chunk_embeddings WHERE model = ? LIMIT 1", (model,)).fetchone()
            is not None
        )
    finally:
        connection.close()


def _require_vectors(connection: sqlite3.Connection, model: str | None, db: str) -> str:
    """The vec0 table holding `model`'s vectors; ConfigError (run `ingest embed`) when there are none."""
    from storage.vectors import load_sqlite_vec, vectors_table

    found = connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunk_embeddings'").fetchone()
    row = (
        connection.execute("SELECT dimensions FROM chunk_embeddings WHERE model = ? LIMIT 1", (model,)).fetchone()
        if found
        else None
    )
    if row is None:
        raise ConfigError(
            f"the database {db} has no vectors for the model {model}: run `ingest embed --db {db}` first",
            stage="search",
        )
    load_sqlite_vec(connection)
    return vectors_table(int(row[0]))


def _vector_rows(
    connection: sqlite3.Connection,
    vector: tuple[str, list[float]],
    model: str | None,
    document_id: str | None,
    where: str | None,
    depth: int,
) -> list[tuple]:
    """The `depth` child rows nearest to the question vector (`_HIT_COLUMNS` + cosine distance).

    An exact scan with `vec_distance_cosine` rather than the vec0 KNN query, so `doc` and
    `where` filter before the cut (a KNN top-k would be cut first, then filtered)."""
    import sqlite_vec

    table, query = vector
    sql = (
        f"SELECT {_HIT_COLUMNS}, vec_distance_cosine(v.embedding, ?) AS score FROM {table} v "
        "JOIN chunk_embeddings e ON e.id = v.rowid JOIN chunks c ON c.id = e.chunk_id "
        "JOIN documents d ON d.id = c.document_id WHERE v.model = ? AND e.model = ? AND c.kind = 'child'"
    )
    sql, params = _narrowed(sql, [sqlite_vec.serialize_float32(query), model, model], document_id, where, depth)
    return connection.execute(sql, params).fetchall()


def _narrowed(
    sql: str, params: list[object], document_id: str | None, where: str | None, limit: int, mark: str = "?"
) -> tuple[str, list[object]]:
    """A ranked child-row query narrowed to one document and/or the user's `where`, best `limit`
    first (ties by chunk id): the tail every ranking shares, so `--doc`/`--where` mean the same.
    With psycopg's `%s` marks, a `%` in `where` is doubled so it stays a literal (`LIKE '%x%'`)."""
    params = list(params)
    if document_id is not None:
        sql += f" AND c.document_id = {mark}"
        params.append(document_id)
    if where:
        sql += f" AND ({where.replace('%', '%%') if mark == '%s' else where})"
    params.append(limit)
    return sql + f" ORDER BY score, c.id LIMIT {mark}", params


def _boosted_rows(connection: Any, rows: list[tuple], terms: Sequence[str]) -> list[tuple]:
    """Rows re-ranked by the document-name boost over every stored document's name (score replaced)."""
    names = {
        doc: document_name_words(title, source)
        for doc, title, source in connection.execute(
            "SELECT id, title, source_path FROM documents WHERE status = 'ok'"
        ).fetchall()
    }
    if len(names) < 2:
        return rows
    by_key = {row[0]: row for row in rows}
    ranked = boost_by_name([(row[0], row[2], row[-1]) for row in rows], name_matches(terms, names))
    return [by_key[key][:-1] + (score,) for key, score in ranked]


def _resolve_document(database: Database, doc: str) -> str:
    return find_document(database, doc).id


def _rows_to_hits(connection: Any, rows: list[tuple], k: int, parents: bool) -> list[SearchHit]:
    """Rows (child columns + score) to hits; with `parents`, each child becomes its parent, de-duplicated."""
    hits: list[SearchHit] = []
    seen: set[int] = set()
    for row in rows:
        chunk_id, parent_id, score = row[0], row[1], row[-1]
        shown = row
        if parents and parent_id is not None:
            shown = connection.execute(
                f"SELECT {_HIT_COLUMNS} FROM chunks c JOIN documents d ON d.id = c.document_id "
                f"WHERE c.id = {_mark(connection)}",
                (parent_id,),
            ).fetchone()
        if shown[0] in seen:
            continue
        seen.add(shown[0])
        hits.append(_row_to_hit(shown, len(hits) + 1, score, chunk_id))
        if len(hits) == k:
            break
    return hits


def _row_to_hit(row: tuple, rank: int, score: float, matched: int) -> SearchHit:
    chunk_id, _parent, document_id, source_path, title, kind, seq, heading_path, start, end, tokens, text = row[:12]
    return SearchHit(
        rank=rank,
        score=score,
        chunk_id=chunk_id,
        matched_chunk_id=matched,
        document_id=document_id,
        source_path=source_path,
        title=title,
        kind=kind,
        seq=seq,
        heading_path=heading_path,
        page_start=start,
        page_end=end,
        token_count=tokens,
        text=text,
    )
