"""Views of a stored document for people debugging retrieval: page pictures with elements and
chunk spans drawn (`render`), and one self-contained HTML report (`report`).

Pipeline layer (5): reads what `storage` stored and the source PDF; writes only the files it is
asked for, never the database.
"""
