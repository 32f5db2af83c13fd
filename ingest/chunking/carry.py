"""Headings in a row: a heading with no body of its own joins the heading path of what follows.

Filings and reports stack headings: "PART I" then at once "Item 1. Business", a chapter's title
page then its first section. The parser often gives the two the same level, so the first one
has no body and no sub-section: chunked on its own it made a child of two words ("PART I"),
which matches any question sharing one word with it and tells nothing. Instead the bodiless
heading stays in the heading path of the next section, just before that section's own heading
(`Report / PART I / Item 1. Business`), and of that section's sub-sections.

A run of more than `ChunkSettings.carried_headings_max` bodiless headings is not a stack but a
list (a contents page whose entries were taken for headings): the last ones of the run are
carried, the earlier ones become one body of headings under their parent's path, so their
text is kept together in one chunk, not in one chunk each.

Only a heading followed by a heading of the same level is carried: one followed by a heading of
a higher level (a sub-heading left without a body at the end of its section) would otherwise
head a section it does not belong to; `merge` keeps it as a small body, as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from ingest.chunking.sections import Block, Section
from ingest.chunking.settings import ChunkSettings


@dataclass(frozen=True)
class _Carry:
    """Insert `headings` at position `at` of the paths of the sections before position `end`: the
    target section and its sub-sections (by position, not by heading text: headings repeat)."""

    end: int
    at: int
    headings: tuple[str, ...]


def subtree_end(sections: list[Section], root: int) -> int:
    """One past the last section after `root` whose heading path strictly extends root's (a section
    that received carried headings starts a subtree of its own)."""
    path = sections[root].heading_path
    end = root + 1
    while end < len(sections):
        other = sections[end].heading_path
        if sections[end].carried or len(other) <= len(path) or other[: len(path)] != path:
            break
        end += 1
    return end


def sections_with_carried_headings(sections: list[Section], settings: ChunkSettings) -> list[Section]:
    """`sections` (from `document_to_sections(document, keep_empty=True)`) with each bodiless heading
    followed by a sibling heading moved into the paths of that sibling and its sub-sections (new
    Section objects where a path changes; the input is left alone). Indexes are not renumbered:
    `merge` renumbers the sections it keeps."""
    stacked = [_stacked(sections, position) for position in range(len(sections))]
    result: list[Section] = []
    carries: list[_Carry] = []
    run: list[Section] = []
    for position, section in enumerate(sections):
        original = tuple(section.heading_path)
        carries = [carry for carry in carries if position < carry.end]
        path = _rewritten(original, carries)
        if stacked[position]:
            run.append(Section(section.index, list(path), list(section.blocks), section.heading))
            continue
        if run:
            keep = settings.carried_headings_max
            carried, listed = (run[len(run) - keep :], run[: len(run) - keep]) if keep else ([], run)
            if listed:
                blocks: list[Block] = [entry.heading for entry in listed if entry.heading is not None]
                result.append(Section(listed[0].index, listed[0].heading_path[:-1], blocks))
            run = []
            if carried:
                headings = tuple(entry.heading_path[-1] for entry in carried)
                carries.append(_Carry(subtree_end(sections, position), len(original) - 1, headings))
                path = _rewritten(original, carries)
                result.append(Section(section.index, list(path), list(section.blocks), section.heading, carried=True))
                continue
        result.append(
            section
            if list(path) == section.heading_path
            else Section(section.index, list(path), list(section.blocks), section.heading)
        )
    return result


def _stacked(sections: list[Section], position: int) -> bool:
    """A heading with no body and no sub-section, followed at once by a heading of the same level."""
    section = sections[position]
    if section.blocks or section.heading is None or position + 1 >= len(sections):
        return False
    if subtree_end(sections, position) > position + 1:
        return False
    following = sections[position + 1]
    return following.heading is not None and following.heading_path[:-1] == section.heading_path[:-1]


def _rewritten(path: tuple[str, ...], carries: list[_Carry]) -> tuple[str, ...]:
    """`path` with every carry in scope applied, the rightmost insertion first so positions hold."""
    result = list(path)
    for carry in sorted(carries, key=lambda carry: carry.at, reverse=True):
        result[carry.at : carry.at] = carry.headings
    return tuple(result)
