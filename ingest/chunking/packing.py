"""Size-bounded packing of units into chunk drafts: an accumulator with will_fit / add / flush.

Units are the pieces the splitters produce, each already within budget:
`FlowUnit` (a span of canonical text: prose or list) and `TableUnit` (a table piece).
The packer fills each draft greedily up to the cap, in order; a draft after the first
one in the same flow run opens with the overlap tail of its predecessor. Token counts
of units are counted once and summed (plus one token per line break between them, an
upper bound for cl100k); each finished draft is then counted exactly once, and in the
rare case the exact count is over, the overlap shrinks first, then the last unit goes
back to the queue. A run's last draft with fewer than `min_tokens` tokens of its own
takes units from the draft before it when both still fit (no tiny tail chunk).
"""

from __future__ import annotations

from dataclasses import dataclass

from ingest.chunking.overlap import overlap_tail
from ingest.chunking.sections import ListBlock, Section, TableBlock
from ingest.chunking.tables import TablePiece, serialize_piece
from ingest.contracts.chunks import HEADING_PATH_SEPARATOR
from ingest.tokens import TokenCounter


@dataclass(frozen=True)
class FlowUnit:
    start: int
    end: int
    tokens: int
    run: int
    fresh: bool = False
    #: A figure's piece: it opens a draft and takes no unit after it (see `sections.FigureBlock`).
    alone: bool = False


@dataclass(frozen=True)
class TableUnit:
    block: TableBlock
    piece: TablePiece
    tokens: int

    @property
    def start(self) -> int:
        return self.span[0]

    @property
    def end(self) -> int:
        return self.span[1]

    @property
    def span(self) -> tuple[int, int]:
        """Canonical span of the rows covered; the whole table element when rows cannot be located."""
        spans = self.block.row_spans
        rows = self.piece.span_rows if self.piece.span_rows is not None else self.piece.rows
        if spans is None or len(rows) == len(self.block.rows) or not rows:
            return self.block.start, self.block.end
        return spans[min(rows)][0], spans[max(rows)][1]


Unit = FlowUnit | TableUnit


@dataclass(frozen=True)
class FlowPart:
    """A contiguous canonical span of one flow run inside a draft (its units merged, overlap included)."""

    start: int
    end: int
    run: int


class Context:
    """The canonical text, the counter and memoised counts shared by every stage of one document.

    `breaks`: canonical offsets (sentence starts inside prose) where a child must start a new
    chunk; the `semantic` strategy fills them (`chunking.semantic`), the others leave them empty.
    """

    def __init__(self, text: str, counter: TokenCounter, breaks: frozenset[int] = frozenset()):
        self.text = text
        self.counter = counter
        self.breaks = breaks
        self._spans: dict[tuple[int, int], int] = {}
        self._texts: dict[str, int] = {}
        self._chunks: dict[str, int] = {}

    def count_span(self, start: int, end: int) -> int:
        key = (start, end)
        if key not in self._spans:
            self._spans[key] = self.counter.count(self.text[start:end])
        return self._spans[key]

    def count_text(self, text: str) -> int:
        if text not in self._texts:
            if len(self._texts) > 4096:
                self._texts.clear()
            self._texts[text] = self.counter.count(text)
        return self._texts[text]

    def count(self, text: str) -> int:
        """Count of a whole chunk text, memoised for the document (a parent often equals its one child)."""
        if text not in self._chunks:
            self._chunks[text] = self.counter.count(text)
        return self._chunks[text]

    def path_cost(self, path: list[str]) -> int:
        """Tokens the heading path line and its blank line add to a chunk's text."""
        return self.count_text(HEADING_PATH_SEPARATOR.join(path)) + 1 if path else 0

    def gap_cost(self, end: int, start: int) -> int:
        """Upper bound of the tokens of the whitespace between two units (a lone space merges into the next word)."""
        gap = self.text[end:start]
        return 0 if not gap or gap.strip(" \t") == "" and "\n" not in gap else 1


@dataclass
class Draft:
    """A chunk before it becomes a `Chunk`: its units, its overlap and its heading path."""

    units: list[Unit]
    heading_path: list[str]
    overlap_start: int | None = None
    lead_in: str | None = None
    body: str = ""
    text: str = ""
    tokens: int = 0

    @property
    def start(self) -> int:
        starts = [unit.start for unit in self.units]
        if self.overlap_start is not None:
            starts.append(self.overlap_start)
        return min(starts)

    def parts(self) -> list[FlowPart | TableUnit]:
        """Flow spans (consecutive flow units of one run merged, overlap included) and table units, in order."""
        parts: list[FlowPart | TableUnit] = []
        for position, unit in enumerate(self.units):
            if isinstance(unit, TableUnit):
                parts.append(unit)
            elif parts and isinstance(parts[-1], FlowPart) and parts[-1].run == unit.run:
                parts[-1] = FlowPart(parts[-1].start, unit.end, unit.run)
            else:
                start = self.overlap_start if position == 0 and self.overlap_start is not None else unit.start
                parts.append(FlowPart(start, unit.end, unit.run))
        return parts


def lead_in_at(section: Section, position: int, context: Context, limit: int) -> str | None:
    """The lead-in of the list whose items contain `position` (a chunk starting mid-list repeats
    it), when heading path and lead-in together take at most half of `limit`."""
    for block in section.blocks:
        if isinstance(block, ListBlock) and block.lead_in_text and block.items[0][0] <= position < block.end:
            if context.path_cost(section.heading_path + [block.lead_in_text]) <= limit // 2:
                return block.lead_in_text
            return None
    return None


class Packer:
    """Packs one section's units into drafts of at most `limit` tokens of text (heading path included)."""

    def __init__(
        self, context: Context, section: Section, limit: int, overlap: int, mix_tables: bool, min_tokens: int = 0
    ):
        self.context = context
        self.section = section
        self.limit = limit
        self.overlap = overlap
        self.mix_tables = mix_tables
        self.min_tokens = min_tokens

    def pack(self, units: list[Unit]) -> list[Draft]:
        drafts: list[Draft] = []
        position = 0
        while position < len(units):
            unit = units[position]
            if isinstance(unit, TableUnit) and not self.mix_tables:
                draft = Draft(units=[unit], heading_path=list(self.section.heading_path))
                self.render(draft)
                drafts.append(draft)
                position += 1
                continue
            draft, tokens, cap = self._open(drafts[-1] if drafts else None, unit)
            end = position + 1
            while end < len(units) and self._will_fit(draft, units[end], tokens, cap):
                tokens += self._cost(draft.units[-1], units[end])
                draft.units.append(units[end])
                end += 1
            self._settle(draft, drafts[-1] if drafts else None)
            drafts.append(draft)
            position += len(draft.units)
            following = units[position] if position < len(units) else None
            last = draft.units[-1]
            if isinstance(last, FlowUnit) and (not isinstance(following, FlowUnit) or following.run != last.run):
                self._rebalance_tail(drafts)
        return drafts

    def _rebalance_tail(self, drafts: list[Draft]) -> None:
        """A run's last draft under `min_tokens` of its own takes trailing units from the draft
        before it (which keeps at least one), when both still fit: no tiny tail chunk."""
        if len(drafts) < 2 or self.min_tokens <= 0:
            return
        previous, last = drafts[-2], drafts[-1]
        if (
            not all(isinstance(u, FlowUnit) for u in previous.units + last.units)
            or previous.units[-1].run != last.units[0].run
            or len(previous.units) < 2
        ):
            return
        own = sum(u.tokens for u in last.units)
        if own >= self.min_tokens:
            return
        best = 0
        for moved in range(1, len(previous.units)):
            taken = sum(u.tokens for u in previous.units[-moved:])
            if own + taken > sum(u.tokens for u in previous.units[:-moved]):
                break  # moving more would only make the previous draft the small one
            best = moved
            if own + taken >= self.min_tokens:
                break
        if not best:
            return
        taken = previous.units[-best:]
        before = drafts[-3] if len(drafts) > 2 else None
        new_previous = Draft(
            units=previous.units[:-best],
            heading_path=previous.heading_path,
            overlap_start=previous.overlap_start,
            lead_in=previous.lead_in,
        )
        self._settle(new_previous, before)
        new_last, tokens, cap = self._open(new_previous, taken[0])
        for unit in taken[1:] + last.units:
            tokens += self._cost(new_last.units[-1], unit)
            new_last.units.append(unit)
        self._settle(new_last, new_previous)
        if (
            tokens <= cap
            and len(new_last.units) == len(taken) + len(last.units)
            and len(new_previous.units) == len(previous.units) - best
        ):
            drafts[-2:] = [new_previous, new_last]

    def _open(self, previous: Draft | None, unit: Unit) -> tuple[Draft, int, int]:
        """Start a draft with `unit`, preceded by the largest overlap that leaves room for it."""
        path = list(self.section.heading_path)
        base = self.limit - self.context.path_cost(path)
        tail = None
        if self._continues(previous, unit):
            room = base - unit.tokens - self.context.gap_cost(previous.units[-1].end, unit.start)
            tail = self._tail(previous, min(self.overlap, room))
        while True:
            start = tail[0] if tail else unit.start
            lead = lead_in_at(self.section, start, self.context, self.limit) if isinstance(unit, FlowUnit) else None
            cap = self.limit - self.context.path_cost(path + [lead] if lead else path)
            tokens = unit.tokens + (tail[1] + self.context.gap_cost(previous.units[-1].end, unit.start) if tail else 0)
            if tokens <= cap or tail is None:
                break
            tail = self._tail(previous, tail[1] - (tokens - cap))
        draft = Draft(
            units=[unit],
            heading_path=path + ([lead] if lead else []),
            overlap_start=tail[0] if tail else None,
            lead_in=lead,
        )
        return draft, tokens, cap

    def _continues(self, previous: Draft | None, unit: Unit) -> bool:
        return (
            self.overlap > 0
            and previous is not None
            and isinstance(unit, FlowUnit)
            and isinstance(previous.units[-1], FlowUnit)
            and previous.units[-1].run == unit.run
        )

    def _tail(self, previous: Draft, limit: int) -> tuple[int, int] | None:
        """The overlap: a tail of the previous draft's last flow part (it starts after that part's start)."""
        low = previous.parts()[-1].start
        return overlap_tail(self.context.text, low, previous.units[-1].end, limit, self.context.count_span)

    def _cost(self, last: Unit, unit: Unit) -> int:
        if isinstance(unit, TableUnit) or isinstance(last, TableUnit) or last.run != unit.run:
            return unit.tokens + 1
        return unit.tokens + self.context.gap_cost(last.end, unit.start)

    def _will_fit(self, draft: Draft, unit: Unit, tokens: int, cap: int) -> bool:
        if isinstance(unit, TableUnit) and not self.mix_tables or isinstance(unit, FlowUnit) and unit.fresh:
            return False
        if any(isinstance(u, FlowUnit) and u.alone for u in (unit, draft.units[-1])):
            return False
        return tokens + self._cost(draft.units[-1], unit) <= cap

    def _settle(self, draft: Draft, previous: Draft | None) -> None:
        """Count the finished draft exactly; shrink the overlap, then give back units, while over the limit."""
        self.render(draft)
        while draft.tokens > self.limit:
            if draft.overlap_start is not None:
                shared = self.context.count_span(draft.overlap_start, previous.units[-1].end)
                tail = self._tail(previous, shared - (draft.tokens - self.limit))
                draft.overlap_start = tail[0] if tail else None
                draft.lead_in = lead_in_at(self.section, draft.start, self.context, self.limit)
                draft.heading_path = list(self.section.heading_path) + ([draft.lead_in] if draft.lead_in else [])
            elif len(draft.units) > 1:
                draft.units.pop()
            else:
                break
            self.render(draft)

    def render(self, draft: Draft) -> None:
        """Fill body, text and exact token count. Flow spans are canonical slices; tables are serialized."""
        bodies = []
        for part in draft.parts():
            if isinstance(part, TableUnit):
                bodies.append(serialize_piece(part.block, part.piece))
            else:
                bodies.append(self.context.text[part.start : part.end])
        draft.body = "\n\n".join(bodies)
        path = HEADING_PATH_SEPARATOR.join(draft.heading_path)
        draft.text = f"{path}\n\n{draft.body}" if path else draft.body
        draft.tokens = self.context.count(draft.text)
