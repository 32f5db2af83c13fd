"""The pipeline: discover -> parse (OCR inside) -> chunk -> enrich -> store.

`document.process_document` is one PDF's work (no database), run in a worker
(`workers`); `batch.run_pipeline` and `batch.reprocess_document` classify files
(`discover`), fan the work out and alone write to the database (`storage`).
"""
