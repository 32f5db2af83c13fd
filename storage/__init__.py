"""The SQL schema and everything that reads or writes it.

Open a database with `open_database(path_or_url)`; write with `save_document`,
`save_failure`, `mark_removed` inside `db.transaction()`; read back with `load_document`,
`load_chunks`, `iter_documents`; run user SQL read-only with `run_query`.
"""

from typing import Any

#: name -> the module that defines it, imported on first use: `ingest query` on an SQLite file
#: needs `storage.query` and sqlite3 only, not SQLAlchemy (which `storage.db` and the others load).
_LAZY = {
    **dict.fromkeys(["DEFAULT_DB", "Database", "open_database", "utc_now"], "storage.db"),
    "database_url": "storage.sqlite_files",
    **dict.fromkeys(["QueryResult", "run_query"], "storage.query"),
    **dict.fromkeys(
        ["document_rows", "find_document", "iter_documents", "load_chunks", "load_document"], "storage.read"
    ),
    **dict.fromkeys(["force_unlock", "list_runs", "run_items"], "storage.runs"),
    **dict.fromkeys(
        [
            "SCHEMA_VERSION",
            "ChunkRow",
            "DocumentRow",
            "ElementRow",
            "EvalRunRow",
            "PageRow",
            "RunItemRow",
            "RunRow",
        ],
        "storage.schema",
    ),
    **dict.fromkeys(
        ["DocumentInfo", "document_id_for", "mark_removed", "save_document", "save_failure"], "storage.store"
    ),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'storage' has no attribute {name!r}")


# Every name comes from `__getattr__` (`_LAZY`), which ruff cannot see.
__all__ = [  # noqa: F822
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
