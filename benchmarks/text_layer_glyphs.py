"""The page text `benchmarks/text_fidelity.py` takes as its reference, read glyph by glyph from pypdfium2.

pypdfium2's `get_text_range` is the reference, with four corrections that glyph geometry decides
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
- Fixed pitch: a space pypdfium2 generates between two glyphs of one run of at least
  `MIN_FIXED_PITCH_RUN` glyphs of the same advance width w (to 0.01 pt), a run that holds a
  letter or digit and a character narrow in every proportional font (".", "(", "l": a
  fixed-pitch font; the font descriptors of TeX's CMTT set no FixedPitch flag), is dropped
  when the gap between their advance boxes is under w/2 and not negative
  (`is_fixed_pitch_jitter`): a space there is a whole empty cell, and pypdfium2 (pdftotext
  too) reads column jitter as spaces ("console .log (add (3 , 5) ) ;" in code_and_formula's
  listing, gaps 0.06-0.15 em; the space after "," is 0.76 em and stays).
- Korean line ends: on a page that ends some Hangul lines with a drawn space (a break between
  words), a generated line break between two Hangul glyphs falls inside a word when the next
  line goes on in the same type (font sizes within 2 %) at most 2 em below; it is dropped
  (`korean_wrap_breaks`: "확" / "진자" is "확진자"). Into a line of another size (a heading,
  a header field, a table's next row: "이슈와 논점" 26 pt / "코로나-19" 32 pt) it is a line's end.
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
#: A fixed-pitch run is at least this many consecutive glyphs of one advance width (`fixed_pitch_glyphs`).
MIN_FIXED_PITCH_RUN = 6
#: A Korean line goes on in the next when their font sizes differ by at most this share ...
SAME_SIZE_SHARE = 0.02
#: ... and the next baseline is at most this many em below.
WRAP_LEADING_EM = 2.0
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


#: Characters narrow in every proportional font: a run that gives them the width of a letter
#: or digit is set in a fixed-pitch font.
NARROW = frozenset(".,:;()[]{}!|'`ilj")


def fixed_pitch_glyphs(glyphs: list[Glyph]) -> list[bool]:
    """Per glyph, whether it is in a fixed-pitch run: at least `MIN_FIXED_PITCH_RUN`
    consecutive glyphs (marks other than a line break skipped) of one advance width (to
    0.01 pt) holding a letter or digit and a `NARROW` character. Equal widths alone are no
    evidence: Helvetica gives "a", "e", "o", "u" and the digits one width (0.556 em)."""
    fixed = [False] * len(glyphs)
    run: list[int] = []

    def close() -> None:
        chars = {glyphs[k].char for k in run}
        if len(run) >= MIN_FIXED_PITCH_RUN and chars & NARROW and any(c.isalnum() and c not in NARROW for c in chars):
            for k in run:
                fixed[k] = True
        run.clear()

    for index, glyph in enumerate(glyphs):
        if glyph.mark:
            if glyph.char in "\r\n":
                close()
            continue
        width = glyph.right - glyph.left
        if run and abs(width - (glyphs[run[-1]].right - glyphs[run[-1]].left)) > 0.01:
            close()
        run.append(index)
    close()
    return fixed


def is_fixed_pitch_jitter(first: Glyph, second: Glyph) -> bool:
    """A gap between two glyphs of one fixed-pitch run (same advance width w) that is under
    w/2 and not negative: a space in a fixed-pitch font is a whole empty cell, so the gap is
    the layout's column jitter (LaTeX listings centre each glyph in its column: 0.06-0.15 em
    in code_and_formula's "console.log(add(3, 5));", where the space after "," is 0.76 em)."""
    width = first.right - first.left
    return abs(width - (second.right - second.left)) <= 0.01 and 0 <= second.left - first.right < width / 2


def _is_hangul(glyph: Glyph) -> bool:
    return not glyph.mark and "\uac00" <= glyph.char <= "\ud7a3"


def korean_wrap_breaks(glyphs: list[Glyph]) -> set[int]:
    """Indices of the marks of pypdfium2's line breaks that fall inside a Korean word: on a
    page that ends some Hangul lines with a drawn space (a break between words), a generated
    break between Hangul glyphs with no drawn space, when the next line goes on in the same
    type (sizes within `SAME_SIZE_SHARE`) at most `WRAP_LEADING_EM` below: "확" / "진자". A
    break into a line of another size (a heading, a header field, the next table row in
    smaller type: "이슈와 논점" / "코로나-19") is a line's end."""
    spaced, wraps = False, []
    last, index = None, 0
    while index < len(glyphs):
        if not glyphs[index].mark:
            last, index = index, index + 1
            continue
        end = index
        while end < len(glyphs) and glyphs[end].mark:
            end += 1
        marks = glyphs[index:end]
        breaks = [k for k, g in enumerate(marks) if g.char in "\r\n"]
        if breaks and last is not None and _is_hangul(glyphs[last]):
            if any(g.char == " " and not g.generated for g in marks[: breaks[0]]):
                spaced = True
            elif end < len(glyphs) and _continues_korean_line(glyphs[last], glyphs[end], marks):
                wraps.extend(range(index, end))
        index = end
    return set(wraps) if spaced else set()


def _continues_korean_line(first: Glyph, second: Glyph, marks: list[Glyph]) -> bool:
    em = max(first.size, second.size, 1e-6)
    return (
        _is_hangul(second)
        and all(g.generated for g in marks)
        and abs(first.size - second.size) <= SAME_SIZE_SHARE * em
        and 0 < first.y - second.y <= WRAP_LEADING_EM * em
    )


def text_in_order(glyphs: list[Glyph]) -> list[str]:
    """pypdfium2's text as `get_text_range` reads it, with a space where a superscript starts
    or ends (a glyph pair within one of pypdfium2's lines), and without a space pypdfium2
    generates inside a fixed-pitch run (`fixed_pitch_glyphs`) where the gap is
    `is_fixed_pitch_jitter`, and without a line break inside a Korean
    word (`korean_wrap_breaks`). One string per glyph."""
    fixed, wraps = fixed_pitch_glyphs(glyphs), korean_wrap_breaks(glyphs)
    pieces: list[str] = []
    last: int | None = None
    for index, glyph in enumerate(glyphs):
        if glyph.mark:
            pieces.append("" if index in wraps else glyph.char)
            if glyph.char in "\r\n":
                last = None
            continue
        if last is not None and index == last + 2 and glyphs[last + 1].generated and glyphs[last + 1].char == " ":
            if fixed[last] and fixed[index] and is_fixed_pitch_jitter(glyphs[last], glyph):
                pieces[last + 1] = ""
        superscript = last is not None and _is_superscript_pair(glyphs[last], glyph)
        pieces.append((" " if superscript else "") + glyph.char)
        last = index
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
        char = chr(code) if code < 0x10000 else "\ufffd"  # a UTF-16 unit: pairs join in `_joined`
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
