"""The chunker's parts, one concern a module.

`sections` (elements -> sections -> blocks), `prose` (recursive splitting of text spans),
`tables` (row pieces with repeated headers), `overlap` (the shared tail between
neighbours), `packing` (the will_fit/add/flush accumulator), `parents` (sections ->
parent and child drafts), `render` (drafts -> `Chunk`, metadata flags), `blind` (the
`fixed` and `recursive` baselines), `checks` (the invariants as a pure check).
`ingest.chunker.chunk_document` is the only entry point.
"""
