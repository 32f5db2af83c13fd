"""The text layer: pypdfium2 characters (pdfminer as a per-page fallback) in the frame a page is
shown in, grouped into segments, lines and reading-order blocks."""
