"""OCR: which pages need it and why (`routing`), rendering and Tesseract (`tesseract`), and
Tesseract's words turned into the same element types as the text layer (`words`, `layout`, `tables`).

Nothing is imported here: `routing` is needed on every parse, Tesseract only on OCR'd pages."""
