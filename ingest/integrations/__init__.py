"""Where RAG tools plug in: exports (JSONL, Markdown), the LangChain loader, the LlamaIndex
reader and offline embeddings. Each third-party package is an optional extra, imported inside
the function that needs it, so the core install and `ingest --help` never pay for it."""
