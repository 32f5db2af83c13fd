"""The page text `benchmarks/text_fidelity.py` takes as its reference, read glyph by glyph from pypdfium2.

pypdfium2's `get_text_range` is the reference, with two corrections that glyph geometry decides
(pure functions below; only `page_glyphs` reads a PDF):

- Superscripts: a glyph set under 0.85 of its neighbour's size with its baseline raised by
  0.2 em or more is a token of its own: a space is put where it starts and ends
  (`is_superscript_boundary`). pypdfium2 runs it into the word ("11The", "Sales1,2", "45th");
  the parser sets it apart by the same geometry.
- One glyph per line: on some pages pypdfium2 breaks the line after every glyph
  ("T\\r\\na\\r\\nb\\r\\nl\\r\\ne", CORNING_2022_10K p82, JOHNSON_JOHNSON_2022_10K p82) although the
  glyphs sit side by side on one baseline. A page whose text-layer lines hold one glyph for
  most of them (over `GLYPH_LINES_SHARE`, at least `MIN_GLYPH_LINES` lines) while most of its
  line breaks (over the same share) fall between two such neighbours (`is_false_break`) has its
  text rebuilt from glyph positions instead (`text_by_position`): pypdfium2's own spaces and
  line breaks are dropped, drawn spaces kept, and between two consecutive glyphs of the text
  order goes a line break when the second leaves the first's baseline (over 0.2 em) or starts
  left of it (over 0.5 em back), a space when their advance boxes (pdfium's loose boxes: origin
  to origin plus advance) are more than `WORD_GAP_EM` apart, and nothing otherwise. Lengths in
  em are of the larger of the two font sizes. Only horizontal text is rebuilt this way (glyph
  up direction (0, 1)); any other glyph breaks the line.
"""

from __future__ import annotations

from dataclasses import dataclass

#: A superscript by geometry: set under this share of the neighbouring glyph's size ...
SUPERSCRIPT_SIZE_RATIO = 0.85
#: ... with its baseline raised by at least this many em (of the larger size) above it.
SUPERSCRIPT_RISE_EM = 0.2
#: Two glyphs whose baselines differ by more than this many em are on different lines.
BASELINE_EM = 0.2
#: A glyph starting this many em left of the previous one's advance box starts a new line.
BACKWARD_EM = 0.5
#: A gap over this many em between advance boxes is a word break (on CORNING p82 letters of a
#: word are within 0.005 em, and word gaps are 0.09 em or more).
WORD_GAP_EM = 0.05
#: Two glyphs on one baseline are neighbours (a line break between them is pypdfium2's, not the
#: page's) when the gap between their advance boxes is under this many em.
NEIGHBOUR_EM = 1.0
#: A page is read one glyph per line when over this share of its text-layer lines hold one
#: glyph and over this share of its line breaks are false ones ...
GLYPH_LINES_SHARE = 0.5
#: ... and it has at least this many one-glyph lines.
MIN_GLYPH_LINES = 20


@dataclass(frozen=True)
class Glyph:
    """One character of pypdfium2's text of a page, in text order.

    `mark`: whitespace, a line break, pdfium's U+0002 hyphen or any other unprintable character;
    it has no geometry of its own. `generated`: pdfium made it up (its spaces and line breaks);
    a drawn one is in the content stream. Positions in PDF points, y up: `x`, `y` the origin,
    `left`..`right` the advance box, `size` the font size times the text matrix scale, `up` the
    glyph's up direction (unit vector). `inside`: the glyph box meets the page's visible box."""

    char: str
    mark: bool = False
    generated: bool = False
    x: float = 0.0
    y: float = 0.0
    left: float = 0.0
    right: float = 0.0
    size: float = 0.0
    up: tuple[float, float] = (0.0, 1.0)
    inside: bool = True


def is_superscript_boundary(size: float, base_size: float, rise: float) -> bool:
    """A glyph of `size` points whose baseline sits `rise` points above the baseline of a
    neighbour of `base_size` points on the same line is a raised, smaller marker (footnote
    "11", ordinal "th", exponent "2"): a token of its own. pypdfium2's text runs it into the
    word beside it ("11The", "Sales1,2"); the parser sets it apart, as the glyph positions
    say. Sizes in points, `rise` in points along the glyph's up direction."""
    return size < SUPERSCRIPT_SIZE_RATIO * base_size and rise >= SUPERSCRIPT_RISE_EM * base_size


def _rise(first: Glyph, second: Glyph) -> float:
    """How far `second`'s origin sits above `first`'s, along `second`'s up direction, in points."""
    return (second.y - first.y) * second.up[1] + (second.x - first.x) * second.up[0]


def _is_superscript_pair(first: Glyph, second: Glyph) -> bool:
    rise = _rise(first, second)
    return is_superscript_boundary(second.size, first.size, rise) or is_superscript_boundary(
        first.size, second.size, -rise
    )


def _horizontal(glyph: Glyph) -> bool:
    return abs(glyph.up[0]) < 1e-3 and glyph.up[1] > 0


def is_false_break(first: Glyph, second: Glyph) -> bool:
    """A line break between two horizontal glyphs on one baseline (within `BASELINE_EM`) whose
    advance boxes are less than `NEIGHBOUR_EM` apart and do not run back past `BACKWARD_EM`:
    the glyphs are side by side on the page, so the break is pypdfium2's, not a line's end."""
    em = max(first.size, second.size, 1e-6)
    gap = second.left - first.right
    return (
        _horizontal(first)
        and _horizontal(second)
        and abs(second.y - first.y) <= BASELINE_EM * em
        and -BACKWARD_EM * em <= gap < NEIGHBOUR_EM * em
    )


def _lines(glyphs: list[Glyph]) -> list[list[Glyph]]:
    """pypdfium2's lines: the glyphs (marks left out) between its line breaks."""
    lines: list[list[Glyph]] = [[]]
    for glyph in glyphs:
        if glyph.char in "\r\n":
            if lines[-1]:
                lines.append([])
        elif not glyph.mark:
            lines[-1].append(glyph)
    return [line for line in lines if line]


def reads_one_glyph_per_line(glyphs: list[Glyph]) -> bool:
    """The rule of the module docstring: most lines one glyph, most breaks false ones."""
    lines = _lines(glyphs)
    single = sum(1 for line in lines if len(line) == 1)
    if single < MIN_GLYPH_LINES or single <= GLYPH_LINES_SHARE * len(lines):
        return False
    breaks = list(zip(lines, lines[1:]))
    false = sum(1 for before, after in breaks if is_false_break(before[-1], after[0]))
    return false > GLYPH_LINES_SHARE * len(breaks)


def separator_by_position(first: Glyph, second: Glyph) -> str:
    """What goes between two consecutive glyphs of the text order on a page rebuilt by position:
    " " at a superscript's edge or a gap over `WORD_GAP_EM`, "\\n" when `second` leaves
    `first`'s baseline or runs back (or either is not horizontal), "" inside a word."""
    if _is_superscript_pair(first, second):
        return " "
    em = max(first.size, second.size, 1e-6)
    gap = second.left - first.right
    if not (_horizontal(first) and _horizontal(second)) or abs(second.y - first.y) > BASELINE_EM * em:
        return "\n"
    if gap < -BACKWARD_EM * em:
        return "\n"
    return " " if gap > WORD_GAP_EM * em else ""


def text_by_position(glyphs: list[Glyph]) -> list[str]:
    """The page's characters with pypdfium2's generated spaces and line breaks replaced by
    `separator_by_position` between consecutive glyphs; drawn marks kept. One string per
    glyph ("" for a dropped mark), so a caller can blank some of them (`page_texts`)."""
    pieces: list[str] = []
    last: Glyph | None = None
    for glyph in glyphs:
        if glyph.mark:
            pieces.append("" if glyph.generated and glyph.char.isspace() else glyph.char)
            continue
        pieces.append((separator_by_position(last, glyph) if last else "") + glyph.char)
        last = glyph
    return pieces


def text_in_order(glyphs: list[Glyph]) -> list[str]:
    """pypdfium2's text as `get_text_range` reads it, with a space where a superscript starts
    or ends (a glyph pair within one of pypdfium2's lines). One string per glyph."""
    pieces: list[str] = []
    last: Glyph | None = None
    for glyph in glyphs:
        if glyph.mark:
            pieces.append(glyph.char)
            if glyph.char in "\r\n":
                last = None
            continue
        pieces.append((" " if last and _is_superscript_pair(last, glyph) else "") + glyph.char)
        last = glyph
    return pieces


def _joined(pieces) -> str:
    """Pieces of UTF-16 code units (pdfium reads astral characters as surrogate pairs) as text."""
    return "".join(pieces).encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def page_texts(glyphs: list[Glyph]) -> tuple[str, str]:
    """The page's reference text (`text_by_position` on a page read one glyph per line,
    `text_in_order` otherwise), and the same text with every glyph inside the visible box
    blanked: the words drawn only outside it."""
    pieces = text_by_position(glyphs) if reads_one_glyph_per_line(glyphs) else text_in_order(glyphs)
    outside = (p if g.mark or not g.inside else p[:-1] + " " for p, g in zip(pieces, glyphs))
    return _joined(pieces), _joined(outside)


def page_glyphs(textpage, box: tuple[float, float, float, float]) -> list[Glyph]:
    """Every character of a pypdfium2 text page in text order (the control characters that
    `get_text_range` leaves out skipped: it keeps U+0002, tab, line breaks and U+001F), with its
    geometry; `box` (left, bottom, right, top) is the visible page box for `Glyph.inside`."""
    import ctypes
    import math

    import pypdfium2.raw as raw

    handle = textpage.raw
    matrix, loose = raw.FS_MATRIX(), raw.FS_RECTF()
    x, y = ctypes.c_double(), ctypes.c_double()
    left, bottom, right, top = (ctypes.c_double() for _ in range(4))
    glyphs: list[Glyph] = []
    for index in range(raw.FPDFText_CountChars(handle)):
        code = raw.FPDFText_GetUnicode(handle, index)
        if code < 32 and code not in (2, 9, 10, 13, 31):
            continue
        char = chr(code) if code < 0xD800 or 0xDFFF < code < 0x10000 else "\ufffd"
        generated = raw.FPDFText_IsGenerated(handle, index) == 1
        if char.isspace() or generated or not char.isprintable():
            glyphs.append(Glyph(char, mark=True, generated=generated))
            continue
        raw.FPDFText_GetMatrix(handle, index, matrix)
        scale = math.hypot(matrix.c, matrix.d) or 1.0
        up = (matrix.c / scale, matrix.d / scale) if (matrix.c or matrix.d) else (0.0, 1.0)
        raw.FPDFText_GetCharOrigin(handle, index, x, y)
        raw.FPDFText_GetLooseCharBox(handle, index, loose)
        raw.FPDFText_GetCharBox(handle, index, left, right, bottom, top)
        inside = right.value > box[0] and left.value < box[2] and top.value > box[1] and bottom.value < box[3]
        size = raw.FPDFText_GetFontSize(handle, index) * scale
        glyphs.append(Glyph(char, False, False, x.value, y.value, loose.left, loose.right, size, up, inside))
    return glyphs
