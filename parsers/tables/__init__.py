"""Tables as rows of cell strings: ruled grids (pdfplumber's lines algorithm on pypdfium2 edges),
tables without rulings from aligned columns, and header rows."""
