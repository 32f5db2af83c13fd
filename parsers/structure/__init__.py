"""What the blocks of a document are: headings and levels, lists, captions, the table of contents,
running headers/footers and page numbers, tables continued across pages; blocks -> elements."""
