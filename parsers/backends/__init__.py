"""Other parsers mapped onto our element types (optional extras)."""
