"""An in-memory SQLite FTS5 index of chunk texts, ranked with `bm25()`: the retriever `ingest eval` measures.

It is the same kind of index users query (`chunks_fts` in the stored database), built
per strategy in `:memory:` so re-chunking for a measurement never touches stored data.

Questions become a safe FTS5 MATCH expression: the words of the question (punctuation
and symbols removed, stopwords dropped), each one double-quoted so no word can be read
as FTS5 syntax (`AND`, `NEAR`, `*`, `-`, `:`), joined with `OR` so bm25 ranks chunks by
how many and how rare the words they share are.
"""

from __future__ import annotations

import sqlite3
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ingest.contracts.errors import ConfigError, QueryError

#: Tokenizer of the evaluation index when the database does not say (`evaluate_golden` reads
#: the stored `chunks_fts` one): the same spec as storage's `chunks_fts`. Note that unicode61
#: cuts a Devanagari word at every vowel sign (`किसान` -> `क`, `स`, `न`); measured on the
#: fixtures' golden set this fragment matching works like crude stemming and ranks Hindi
#: answers better at k=1 than whole-word tokens (`categories 'L* N* Co M*'`), so it stays.
FTS_TOKENIZE = "unicode61 remove_diacritics 2"

ENGLISH_STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers him his how i if in into is it its itself just me more
    most my no nor not now of off on once only or other our ours out over own same she should so
    some such than that the their theirs them then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you
    your yours tell know need want please much many get got give us
    """.split()
)

#: Function words of Hindi and Marathi that carry no topic (postpositions, auxiliaries, question words).
DEVANAGARI_STOPWORDS = frozenset(
    """
    का की के को में से पर है हैं था थी थे और या भी तो ही कि क्या कौन कैसे कब कहाँ कहां कितना कितनी
    कितने यह वह ये वे इस उस इन उन एक लिए मुझे हम आप किस किसे होता होती होते हो
    आहे आहेत व आणि चा ची चे ला ना त मध्ये साठी काय कोण कसे कधी कुठे किती हा ही हे तो ते
    """.split()
)

STOPWORDS = ENGLISH_STOPWORDS | DEVANAGARI_STOPWORDS


def question_to_terms(question: str) -> list[str]:
    """The question's search words in order, unique, case-folded, without punctuation, symbols or stopwords.

    Characters of Unicode categories P* (punctuation) and S* (symbols) become spaces;
    letters, digits and combining marks (Devanagari vowel signs) are kept, so `2ml?`
    gives `2ml` and `किसानों` stays one word. If every word is a stopword, the words are
    kept anyway: a question must search for something.
    """
    cleaned = "".join(
        " " if unicodedata.category(ch)[0] in "PSZ" else ch for ch in unicodedata.normalize("NFC", question).casefold()
    )
    words = cleaned.split()
    unique = list(dict.fromkeys(words))
    terms = [word for word in unique if word not in STOPWORDS]
    return terms or unique


def terms_to_match(terms: Sequence[str]) -> str:
    """A MATCH expression ORing each term as a quoted string (inner quotes doubled, as FTS5 escapes them)."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


@dataclass(frozen=True)
class Hit:
    key: str
    score: float


class ChunkIndex:
    """FTS5 over (key, scope, text) rows in an in-memory database; close it (or use `with`) when done.

    `tokenize` is an FTS5 tokenizer spec such as `unicode61 remove_diacritics 2`.

    `scope` is a free label searched by equality (the evaluation uses the document id),
    so a question can be restricted to one document. `key` is unique per row.
    """

    def __init__(self, tokenize: str = FTS_TOKENIZE) -> None:
        self.tokenize = tokenize
        self._db = sqlite3.connect(":memory:")
        quoted = "'" + tokenize.replace("'", "''") + "'"
        try:
            self._db.execute(
                f"CREATE VIRTUAL TABLE chunk_fts USING fts5(key UNINDEXED, scope UNINDEXED, text, tokenize={quoted})"
            )
        except sqlite3.Error as error:
            self._db.close()
            raise ConfigError(f"SQLite FTS5 refused the tokenizer {tokenize!r}: {error}", stage="eval") from error

    def add(self, rows: Iterable[tuple[str, str, str]]) -> None:
        """Index `(key, scope, text)` rows."""
        with self._db:
            self._db.executemany("INSERT INTO chunk_fts(key, scope, text) VALUES (?, ?, ?)", rows)

    def search(self, question: str, limit: int, scope: str | None = None) -> list[Hit]:
        """The `limit` best rows for `question`, best first (bm25 ascending; ties by insertion order)."""
        terms = question_to_terms(question)
        if not terms:
            return []
        match = terms_to_match(terms)
        sql = "SELECT key, bm25(chunk_fts) AS score FROM chunk_fts WHERE chunk_fts MATCH ?"
        params: list[object] = [match]
        if scope is not None:
            sql += " AND scope = ?"
            params.append(scope)
        sql += " ORDER BY score, rowid LIMIT ?"
        params.append(limit)
        try:
            rows = self._db.execute(sql, params).fetchall()
        except sqlite3.Error as error:  # a MATCH built from quoted terms should never fail; say what was sent
            raise QueryError(f"FTS5 rejected the query {match!r} built from {question!r}: {error}") from error
        return [Hit(key, score) for key, score in rows]

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "ChunkIndex":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
