"""Sections to parent drafts and, inside each parent, child drafts.

Parents are sections, split by the same rules when a section is over the parent
limit (parents of one section overlap like children do). A parent that fits in the
child limit is also its only child, tables and prose together: a short section is
never cut, so a table stays with the sentence that introduces it. Larger parents'
children are packed from the parent's own content only, tables apart from prose, so
every child's body lies inside its one parent; since a
split parent starts with the overlap tail of the previous one, the first child of a
parent shares that tail with the last child of the previous parent (a last child that
this tail would repeat whole is dropped: its text is in the next child).
"""

from __future__ import annotations

from ingest.chunking.packing import Context, Draft, FlowUnit, Packer, TableUnit, Unit
from ingest.chunking.prose import split_span
from ingest.chunking.sections import FigureBlock, ListBlock, ProseBlock, Section, TableBlock
from ingest.chunking.settings import ChunkSettings
from ingest.chunking.tables import serialize_piece, table_to_row_pieces


def section_to_drafts(section: Section, context: Context, settings: ChunkSettings) -> list[tuple[Draft, list[Draft]]]:
    """The section's parents, each with its children, in reading order."""
    parent_units = section_to_units(section, context, settings.parent_max_tokens, settings.overlap_tokens)
    parent_packer = Packer(context, section, settings.parent_max_tokens, settings.overlap_tokens, mix_tables=True)
    parents = parent_packer.pack(parent_units)
    child_packer = Packer(
        context,
        section,
        settings.child_max_tokens,
        settings.overlap_tokens,
        mix_tables=False,
        min_tokens=settings.min_tokens,
    )
    families = [
        (
            parent,
            [parent]
            if _is_one_child(parent, section, context, settings)
            else child_packer.pack(parent_to_units(parent, section, context, settings)),
        )
        for parent in parents
    ]
    for (_, children), (_, following) in zip(families, families[1:]):
        if len(children) > 1 and following and _covers(following[0], children[-1]):
            children.pop()  # a short last child wholly repeated by the next parent's overlap
    return families


def _is_one_child(parent: Draft, section: Section, context: Context, settings: ChunkSettings) -> bool:
    """The parent fits in the child limit and every table in it is whole (all rows, all columns,
    caption) and within the table cap with the heading path."""
    path = context.path_cost(section.heading_path)
    if any(parent.start < offset < parent.units[-1].end for offset in context.breaks):
        return False  # the semantic strategy starts a child at each break
    return parent.tokens <= settings.child_max_tokens and all(
        isinstance(unit, FlowUnit)
        or (
            unit.tokens + path <= settings.table_limit
            and len(unit.block.rows) == len(unit.piece.rows)
            and unit.piece.columns is None
            and unit.piece.cell_part is None
            and unit.piece.caption
        )
        for unit in parent.units
    )


def _covers(outer: Draft, inner: Draft) -> bool:
    """Both are flow drafts and `outer`'s span contains `inner`'s."""
    if not all(isinstance(unit, FlowUnit) for unit in outer.units + inner.units):
        return False
    return outer.start <= inner.start and inner.units[-1].end <= outer.units[-1].end


def _runs(section: Section) -> list[tuple[int, list[ProseBlock | ListBlock] | TableBlock]]:
    """Maximal runs of flowing blocks (prose, lists) between tables, each with a run id; a
    figure is a run of its own."""
    runs: list[tuple[int, list | TableBlock]] = []
    for position, block in enumerate(section.blocks):
        if isinstance(block, TableBlock):
            runs.append((position, block))
        elif (
            runs
            and isinstance(runs[-1][1], list)
            and not isinstance(block, FigureBlock)
            and not isinstance(runs[-1][1][-1], FigureBlock)
        ):
            runs[-1][1].append(block)
        else:
            runs.append((position, [block]))
    return runs


def section_to_units(section: Section, context: Context, limit: int, overlap: int) -> list[Unit]:
    """The whole section as units for `limit`: flow runs split by `flow_units`, tables by rows."""
    units: list[Unit] = []
    for run, content in _runs(section):
        if isinstance(content, TableBlock):
            units.extend(table_units(content, context, section, limit, overlap))
        else:
            units.extend(flow_units(content, run, content[0].start, content[-1].end, context, section, limit, overlap))
    return units


def parent_to_units(parent: Draft, section: Section, context: Context, settings: ChunkSettings) -> list[Unit]:
    """Re-split a parent's own content at the child limit."""
    limit, overlap = settings.child_max_tokens, settings.overlap_tokens
    flows = {run: blocks for run, blocks in _runs(section) if isinstance(blocks, list)}
    units: list[Unit] = []
    for part in parent.parts():
        if isinstance(part, TableUnit):
            piece = part.piece
            units.extend(
                table_units(
                    part.block,
                    context,
                    section,
                    settings.table_limit,
                    overlap,
                    piece.rows,
                    piece.columns,
                    piece.cell_part,
                    piece.caption,
                )
            )
        else:
            units.extend(
                flow_units(
                    flows[part.run], part.run, part.start, part.end, context, section, limit, overlap, context.breaks
                )
            )
    return units


def table_units(
    block: TableBlock,
    context: Context,
    section: Section,
    limit: int,
    overlap: int,
    rows=None,
    columns=None,
    cell_part=None,
    caption: bool = True,
) -> list[TableUnit]:
    """A table (or the part of it a parent holds) as pieces within `limit` minus the heading path."""
    budget = limit - context.path_cost(section.heading_path)
    pieces = table_to_row_pieces(block, budget, overlap, context.count_text, rows, columns, cell_part, caption)
    return [
        TableUnit(block=block, piece=piece, tokens=context.count_text(serialize_piece(block, piece)))
        for piece in pieces
    ]


def flow_units(
    blocks: list[ProseBlock | ListBlock],
    run: int,
    low: int,
    high: int,
    context: Context,
    section: Section,
    limit: int,
    overlap: int,
    breaks: frozenset[int] = frozenset(),
) -> list[FlowUnit]:
    """Units of the flowing blocks clipped to [low, high): whole blocks when they fit, else split pieces.

    Prose pieces leave room for the overlap (at most `limit - path - overlap` tokens), so a
    continuation chunk can always carry it; a whole list may use the full budget and then
    gets a shorter overlap, because keeping a list together matters more. A prose block is
    first cut at the `breaks` inside it (the semantic strategy's topic shifts; children only):
    the piece starting at a break is `fresh`, so the packer opens a new chunk there.
    """
    text = context.text
    base = limit - context.path_cost(section.heading_path)
    piece_budget = max(base - overlap, (base + 1) // 2)
    units: list[FlowUnit] = []
    for block in blocks:
        start, end = max(low, block.start), min(high, block.end)
        if start >= end:
            continue
        if isinstance(block, ProseBlock) and breaks:
            spans = _prose_spans_at_breaks(text, start, end, piece_budget, context, breaks)
        elif isinstance(block, ProseBlock):
            spans = split_span(text, (start, end), piece_budget, context.count_span)
        else:
            spans = _list_spans(block, start, end, context, section, limit, overlap)
        alone = isinstance(block, FigureBlock)
        units.extend(FlowUnit(s, e, tokens, run, fresh, alone) for s, e, tokens, fresh in spans)
    return units


def _prose_spans_at_breaks(
    text: str, start: int, end: int, budget: int, context: Context, breaks: frozenset[int]
) -> list[tuple[int, int, int, bool]]:
    """`split_span` of each stretch between breaks; the first piece after a break is fresh."""
    cuts = sorted(offset for offset in breaks if start <= offset < end)
    spans: list[tuple[int, int, int, bool]] = []
    for low, high in zip([start, *cuts], [*cuts, end]):
        pieces = split_span(text, (low, high), budget, context.count_span)
        if pieces and low in breaks:
            pieces[0] = (*pieces[0][:3], True)
        spans.extend(pieces)
    return spans


def _list_spans(
    block: ListBlock, start: int, end: int, context: Context, section: Section, limit: int, overlap: int
) -> list[tuple[int, int, int, bool]]:
    """A list whole if it fits; else its lead-in with the first item, then item groups, then items,
    then prose splits."""
    text, count = context.text, context.count_span
    base = limit - context.path_cost(section.heading_path)
    lead_cost = 0
    if block.lead_in_text:
        with_lead = context.path_cost(section.heading_path + [block.lead_in_text])
        if with_lead <= limit // 2:  # else the lead-in is not repeated (see packing.lead_in_at)
            lead_cost = with_lead - context.path_cost(section.heading_path)
    tokens = count(start, end)
    # a chunk starting after the lead-in repeats it in its heading path
    if tokens <= (base if start < block.items[0][0] else base - lead_cost):
        return [(start, end, tokens, False)]
    prose_budget = max(base - overlap, (base + 1) // 2)
    item_budget = max(base - overlap - lead_cost, (base - lead_cost + 1) // 2)
    groups = _item_groups(block, start, end)
    spans: list[tuple[int, int, int, bool]] = []
    items_start = block.items[0][0]
    if start < items_start:
        prefix = (start, min(end, items_start))
        whole_lead = block.lead_in is not None and prefix[0] == block.lead_in[0]
        first = count(prefix[0], groups[0][1]) if whole_lead and groups else None
        if first is not None and first <= prose_budget:
            # the lead-in travels with the first item group when both fit
            spans.append((prefix[0], groups[0][1], first, False))
            groups = groups[1:]
        else:
            spans.extend(split_span(text, prefix, prose_budget, count))
    for group_start, group_end in groups:
        group_tokens = count(group_start, group_end)
        if group_tokens <= item_budget:
            spans.append((group_start, group_end, group_tokens, False))
            continue
        for item_start, item_end in _items_in(block, group_start, group_end):
            spans.extend(split_span(text, (item_start, item_end), item_budget, count))
    return spans


def _items_in(block: ListBlock, low: int, high: int) -> list[tuple[int, int]]:
    return [(max(s, low), min(e, high)) for s, e in block.items if min(e, high) > max(s, low)]


def _item_groups(block: ListBlock, low: int, high: int) -> list[tuple[int, int]]:
    """Each outermost item with the deeper items that follow it, clipped to [low, high)."""
    groups: list[list[int]] = []
    top = min(block.item_levels)
    for (s, e), level in zip(block.items, block.item_levels):
        if level == top or not groups:
            groups.append([s, e])
        else:
            groups[-1][1] = e
    clipped = [(max(s, low), min(e, high)) for s, e in groups if min(e, high) > max(s, low)]
    return clipped
