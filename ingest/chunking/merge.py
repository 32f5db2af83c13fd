"""Small sections merged with their sub-sections, so a short topic is one chunk, not five.

Sections end at every heading, so a document of short sub-sections (a heading, two
lines, a heading, a small table) would otherwise give chunks of 50-80 tokens under a
300-token limit: each too small to hold what a question shares with it, all carrying
the same heading path. Unstructured's `by_title` (combine_text_under_n_chars) and
docling's hybrid chunker (merge_peers) merge such pieces too.

The rule keeps the hierarchy: a section is merged with its whole subtree (the
following sections whose heading paths extend its own) when all of it fits in ONE
child chunk. The merged section keeps the outer heading path; the sub-headings become
lines of its body, in reading order, so the body is still one span of the canonical
text. Sub-trees are tried from the outside in, so the largest subtree that fits wins;
a section whose subtree does not fit stays as it is, and its sub-sections are tried
in turn. Siblings are never merged with each other (that would drop their shared
heading from the path of one of them), and nothing is merged across a heading of the
same or a higher level.
"""

from __future__ import annotations

from ingest.chunking.carry import sections_with_carried_headings, subtree_end
from ingest.chunking.packing import Context
from ingest.chunking.parents import section_to_drafts
from ingest.chunking.sections import Block, Section, TableBlock, document_to_sections
from ingest.chunking.settings import ChunkSettings
from ingest.contracts.elements import Document


def sections_to_chunk(document: Document, context: Context, settings: ChunkSettings) -> list[Section]:
    """The sections the `structure` strategy chunks: bodiless headings carried into the path of what
    follows them (`chunking.carry`), then merged when `settings.merge_sections`."""
    sections = sections_with_carried_headings(document_to_sections(document, True, settings), settings)
    if settings.merge_sections:
        return merge_small_sections(sections, context, settings)
    return _renumbered([_orphan_as_body(sections, position) for position in range(len(sections))])


def merge_small_sections(sections: list[Section], context: Context, settings: ChunkSettings) -> list[Section]:
    """`sections` from `document_to_sections(document, keep_empty=True)` -> the sections to chunk.

    Output sections are renumbered in reading order; sections left without a body
    (a heading whose sub-sections did not fit with it) are dropped, orphan headings kept.
    """
    merged: list[Section] = []
    position = 0
    while position < len(sections):
        # body text before the first heading has no heading of its own: it is nobody's parent
        end = subtree_end(sections, position) if sections[position].heading is not None else position + 1
        candidate = _merge(sections[position:end]) if end - position > 1 else None
        if candidate is not None and _fits_one_child(candidate, context, settings):
            merged.append(candidate)
            position = end
        else:
            merged.append(_orphan_as_body(sections, position))
            position += 1
    return _renumbered(merged)


def _orphan_as_body(sections: list[Section], position: int) -> Section:
    """An orphan heading (no body, no sub-section: the next heading is of the same or a
    higher level, usually a level the parser got wrong) would be in no chunk's path and
    no chunk's body; it becomes the body of a small section under its parent's path, so
    its text is not lost."""
    section = sections[position]
    if section.blocks or section.heading is None or subtree_end(sections, position) > position + 1:
        return section
    return Section(index=section.index, heading_path=section.heading_path[:-1], blocks=[section.heading])


def _renumbered(sections: list[Section]) -> list[Section]:
    """Sections with a body (a heading whose sub-sections did not fit with it has none), numbered in order."""
    kept = [section for section in sections if section.blocks]
    for index, section in enumerate(kept):
        section.index = index
    return kept


def _merge(subtree: list[Section]) -> Section:
    """The root's path; the root's body, then each sub-section's heading and body in order.

    A root without a body whose only child holds the rest of the subtree is dropped
    first (repeatedly): merging it would only move the child's heading from the path
    into the body, so `Manual / Pests / Whitefly` keeps its full path.
    """
    while len(subtree) > 1 and not subtree[0].blocks and subtree_end(subtree, 1) == len(subtree):
        subtree = subtree[1:]
    root = subtree[0]
    blocks: list[Block] = list(root.blocks)
    for section in subtree[1:]:
        if section.heading is not None:
            blocks.append(section.heading)
        blocks.extend(section.blocks)
    return Section(index=root.index, heading_path=list(root.heading_path), blocks=blocks, heading=root.heading)


def _fits_one_child(section: Section, context: Context, settings: ChunkSettings) -> bool:
    """Whether the section packs into one parent with one child, no piece oversize.

    A cheap lower bound (the canonical text of its blocks) rejects most candidates
    before the exact test, which packs the section the way the chunker will.
    """
    limit = settings.child_max_tokens
    estimate = context.path_cost(section.heading_path)
    for block in section.blocks:
        if not isinstance(block, TableBlock):
            estimate += context.count_span(block.start, block.end)
        if estimate > limit:
            return False
    families = section_to_drafts(section, context, settings)
    return len(families) == 1 and len(families[0][1]) == 1
