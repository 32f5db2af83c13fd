"""Tesseract's word table as words and lines (pixels), the first pass of OCR layout.

`data_to_words` reads pytesseract's `image_to_data(..., output_type=DICT)` (plus an
optional `ink` column: each word box's share of dark pixels, added by parsers/ocr.py); `words_to_lines`
groups words by Tesseract's (block, paragraph, line) and cuts each line into cells at wide
gaps or at a vertical rule read as '|'. `BodyText` measures the page's typical text so
later passes can say "bigger than body text". All sizes are image pixels.
"""

from __future__ import annotations

import math
import re
import statistics
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from parsers.textlayer.text_joins import join_wrapped_lines

#: The `level` column of Tesseract's image_to_data: 1 page, 2 block, 3 paragraph, 4 line, 5 word.
PAGE_LEVEL, BLOCK_LEVEL, WORD_LEVEL = 1, 2, 5
#: Fewest characters of a line's first word for it to be read as text, not a speck or a stray mark.
MIN_FIRST_WORD_CHARS = 2

CELL_GAP = 2.0  # a gap wider than this many text heights separates two cells
BOLD_INK_RATIO = 1.3  # a line with this many times the body's ink share is bold
_RULE = re.compile(r"^[|!\[\]]+$")


@dataclass
class Word:
    text: str
    left: float
    top: float
    right: float
    bottom: float
    conf: float
    block: int
    par: int
    line: int
    cell_break_before: bool = False  # a rule '|' stood between this word and the previous one
    ink: float = 0.0  # share of the word's box that is ink (0-1); 0 when not measured

    @property
    def height(self) -> float:
        return self.bottom - self.top

    @property
    def area(self) -> float:
        return max(self.right - self.left, 0.0) * max(self.bottom - self.top, 0.0)


@dataclass
class Line:
    """A Tesseract line (or, after `visual_rows`, several side by side); `cells` partition `words`."""

    words: list[Word]
    cells: list[list[Word]] = field(default_factory=list)
    order: int = 0  # position of the line in Tesseract's reading order

    @property
    def block(self) -> int:
        return self.words[0].block

    @property
    def par(self) -> int:
        return self.words[0].par

    @property
    def left(self) -> float:
        return min(w.left for w in self.words)

    @property
    def right(self) -> float:
        return max(w.right for w in self.words)

    @property
    def top(self) -> float:
        return min(w.top for w in self.words)

    @property
    def bottom(self) -> float:
        return max(w.bottom for w in self.words)

    @property
    def height(self) -> float:
        """Typical word height: robust to a lone descender or a tall bracket."""
        return statistics.median(w.height for w in self.words)

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @property
    def ink(self) -> float:
        """Share of the line's word boxes that is ink (0 when not measured)."""
        area = sum(w.area for w in self.words)
        return sum(w.ink * w.area for w in self.words) / area if area else 0.0

    @property
    def advance(self) -> float:
        """Ink width per character in pixels; combining marks (Devanagari vowel signs
        drawn above or below) are not characters here."""
        chars = sum(1 for w in self.words for c in w.text if unicodedata.category(c) not in ("Mn", "Me"))
        return sum(w.right - w.left for w in self.words) / max(chars, 1)


@dataclass(frozen=True)
class BodyText:
    """The page's typical body line: word height and advance per character, in pixels."""

    height: float
    advance: float
    ink: float = 0.0

    def is_bold(self, line: Line) -> bool:
        """The line is set heavier than body text: its ink share is >= `BOLD_INK_RATIO` x
        the body's (measured: bold headings 1.34-1.58x, body lines 0.87-1.17x)."""
        return self.ink > 0 and line.ink >= BOLD_INK_RATIO * self.ink

    def size(self, line: Line) -> float:
        """A line's text size relative to body text (1.0 = body)."""
        if self.height <= 0 or self.advance <= 0:
            return 1.0
        return math.sqrt((line.height / self.height) * (line.advance / self.advance))


def data_to_words(data: dict[str, list[Any]]) -> list[Word]:
    """Recognised words of pytesseract's DICT output (text NFC-normalised), in Tesseract's order.

    A word made only of '|' (a vertical table rule) is dropped and marks the next word
    of its line with `cell_break_before`.
    """
    words: list[Word] = []
    pending_break: tuple[int, int, int] | None = None
    for i, level in enumerate(data.get("level", [])):
        if int(level) != WORD_LEVEL:
            continue
        text = unicodedata.normalize("NFC", str(data["text"][i])).strip()
        conf = float(data["conf"][i])
        if not text or conf < 0:
            continue
        key = (int(data["block_num"][i]), int(data["par_num"][i]), int(data["line_num"][i]))
        if _RULE.match(text):
            pending_break = key
            continue
        text = text.strip("|")
        left, top = float(data["left"][i]), float(data["top"][i])
        word = Word(text, left, top, left + float(data["width"][i]), top + float(data["height"][i]), conf, *key)
        word.cell_break_before = pending_break == key
        word.ink = float(data["ink"][i]) if "ink" in data else 0.0
        pending_break = None
        words.append(word)
    return words


def split_cells(words: list[Word]) -> list[list[Word]]:
    """Words of one row (sorted left to right) cut into cells at wide gaps or rules."""
    if not words:
        return []
    height = statistics.median(w.height for w in words)
    cells = [[words[0]]]
    for previous, word in zip(words, words[1:]):
        if word.cell_break_before or word.left - previous.right > CELL_GAP * height:
            cells.append([word])
        else:
            cells[-1].append(word)
    return cells


#: Bullet glyphs Tesseract sometimes glues to the first word ('•Install', '«आधार').
GLUED_BULLETS = frozenset("•●▪■¢")
GLUED_BEFORE_DEVANAGARI = frozenset("«*")


def unglue_bullet(words: list[Word]) -> list[Word]:
    """A line's words with a bullet glued to the first word split off as a small word of
    its own (so the list-item pass sees a bullet). '«' and '*' count only before
    Devanagari: before Latin text '«' is a quotation mark."""
    if not words or len(words[0].text) < MIN_FIRST_WORD_CHARS:
        return words
    first = words[0]
    glyph, rest = first.text[0], first.text[1:]
    before_devanagari = "\u0900" <= rest[0] <= "\u097f"
    if not (glyph in GLUED_BULLETS or (glyph in GLUED_BEFORE_DEVANAGARI and before_devanagari)):
        return words
    if not unicodedata.category(rest[0]).startswith("L"):
        return words
    share = (first.right - first.left) / len(first.text)
    middle = (first.top + first.bottom) / 2
    size = 0.2 * first.height
    bullet = Word(
        "•",
        first.left,
        middle - size,
        first.left + share,
        middle + size,
        first.conf,
        first.block,
        first.par,
        first.line,
    )
    remainder = Word(
        rest, first.left + share, first.top, first.right, first.bottom, first.conf, first.block, first.par, first.line
    )
    return [bullet, remainder, *words[1:]]


def words_to_lines(words: list[Word]) -> list[Line]:
    """Tesseract's lines in its reading order, each with its cells."""
    grouped: dict[tuple[int, int, int], list[Word]] = {}
    for word in words:
        grouped.setdefault((word.block, word.par, word.line), []).append(word)
    lines = []
    for order, line_words in enumerate(grouped.values()):
        line_words = unglue_bullet(sorted(line_words, key=lambda w: w.left))
        lines.append(Line(words=line_words, cells=split_cells(line_words), order=order))
    return lines


def body_text(lines: list[Line]) -> BodyText:
    """Median line height and advance over the page's lines, weighted by their word count
    (body text is what most words are set in)."""
    heights = [line.height for line in lines for _ in line.words]
    advances = [line.advance for line in lines for _ in line.words]
    inks = [line.ink for line in lines for _ in line.words]
    if not heights:
        return BodyText(0.0, 0.0)
    return BodyText(statistics.median(heights), statistics.median(advances), statistics.median(inks))


def join_words(words: list[Word]) -> str:
    return " ".join(w.text for w in words)


def join_lines(texts: list[str]) -> str:
    """Lines of one paragraph joined with spaces; 'fertil-' + 'iser' becomes 'fertiliser'
    (the rule: `text_joins.join_wrapped_lines`). No normalisation: words are NFC already."""
    return join_wrapped_lines(texts)
