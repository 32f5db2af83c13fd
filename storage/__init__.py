"""The SQL schema and everything that reads or writes it.

Open a database with `open_database(path_or_url)`; write with `save_document`,
`save_failure`, `mark_removed` inside `db.transaction()`; read back with `load_document`,
`load_chunks`, `iter_documents`; run user SQL read-only with `run_query`.
"""

from storage.db import DEFAULT_DB, Database, database_url, open_database, utc_now
from storage.query import QueryResult, run_query
from storage.read import document_rows, find_document, iter_documents, load_chunks, load_document
from storage.runs import force_unlock, list_runs, run_items
from storage.schema import SCHEMA_VERSION, ChunkRow, DocumentRow, ElementRow, EvalRunRow, PageRow, RunItemRow, RunRow
from storage.store import DocumentInfo, document_id_for, mark_removed, save_document, save_failure

__all__ = [
    "DEFAULT_DB",
    "SCHEMA_VERSION",
    "ChunkRow",
    "Database",
    "DocumentInfo",
    "DocumentRow",
    "ElementRow",
    "EvalRunRow",
    "PageRow",
    "QueryResult",
    "RunItemRow",
    "RunRow",
    "database_url",
    "document_id_for",
    "document_rows",
    "find_document",
    "force_unlock",
    "iter_documents",
    "list_runs",
    "load_chunks",
    "load_document",
    "mark_removed",
    "open_database",
    "run_items",
    "run_query",
    "save_document",
    "save_failure",
    "utc_now",
]
