"""Characters -> text segments: the fast source of a page's words and styles.

pdfplumber parses a page's content stream in Python (~200 ms a page); pdfium does the
same work in C, and `pdfium_chars.page_to_chars` reads every character's box, size and
font from it through `pypdfium2.raw` in ~4.5-5 us a character. So the parser takes its text
from there; pdfplumber contributes its table algorithm (`tables/rulings.py`), not its page
parse. This module holds the `Char` both readers produce (pdfium and the pdfminer fallback)
and groups characters into `Segment`s.

Coordinates: pdfium reports PDF user space (origin bottom-left) of the *unrotated*
page, whatever its /Rotate. Everything leaving this module is in PDF points with a
top-left origin (pdfplumber's convention) in the frame the page is read in
(`PageFrame`): the displayed frame, i.e. the visible box (crop box) turned by the page's
/Rotate, width and height swapped for 90/270, as a viewer shows it. One exception
(`pdfium_chars.page_to_chars`): a page whose text mostly runs sideways in that frame (/Rotate set on
content that was not counter-rotated, or a landscape table drawn turned on a portrait
page) is read in the frame where most of its text is upright, as a reader turns the
page. On an unrotated page with its box at the origin the mapping is the old one:
`top = page_height - pdf_top`, `x` unchanged.

A `Segment` is a run of horizontally adjacent characters on one baseline, in drawing
order, broken where the gap to the next character exceeds `SEGMENT_GAP_EM` (so a table
cell or a column of a two-column page is its own segment). Rotated characters (an
arXiv stamp in the margin) never join horizontal text; they come back as separate
segments with `rotated=True`.
"""

from __future__ import annotations

import functools
import operator
import re
import unicodedata
from dataclasses import dataclass

#: A gap wider than this many font sizes ends a segment (columns, table cells).
SEGMENT_GAP_EM = 0.8
#: A gap wider than this many font sizes between two characters is a word space, when the
#: font's own space advance is unknown; otherwise half that advance is (`_space_gap_em`),
#: held between `MIN_SPACE_GAP_EM` and this. Times has a 0.25 em space, so 0.125 em; a fixed
#: 0.18 em glued "of|the" (0.148 em apart: the "f" advance is short) in 10-Ks set in Times.
SPACE_GAP_EM = 0.18
#: The lower bound of the space threshold (em): gaps inside words reach ~0.085 em in tightly
#: set text (Corning's 10-K), so no font's space advance brings the threshold below this.
MIN_SPACE_GAP_EM = 0.1
#: pdfium's own space (a zero-width character it generates between two glyphs from the
#: content stream's positioning and the font) is always a word break. A floor on the glyph
#: gap (0.08 em) was tried: it glued italic words, whose glyph boxes overlap across the
#: space ("to|fluctuations" in 3M's 10-K: the italic "f" starts 0.15 em before pdfium's
#: space; "of|just" in Corning's). Checked against pdftotext on the 10-Ks, DA-619p, chelsea,
#: layout-parser and eu-011/026 (first 15 pages): no word split by a generated space. Only
#: when the font has a space glyph (`Char.space_width`); in a font without one only over
#: `MIN_SPACE_GAP_EM` and between glyphs of unequal width (`_takes_generated_space`): in
#: code_and_formula's listing (fixed pitch, each glyph placed on its own) pdfium puts one in
#: "console .log".
#: A character this much smaller than the one before it (size ratio) whose baseline is at
#: least `SUPERSCRIPT_RISE_EM` (of the larger size) higher starts a superscript: a token of its
#: own ("2,557.2" + footnote "8", never "2,557.28"). The return to the base size ends it
#: before a glyph that opens a word (`_opens_word`).
SUPERSCRIPT_SIZE_RATIO = 0.85
SUPERSCRIPT_RISE_EM = 0.2
#: Devanagari glyph boxes overlap and leave odd gaps; demand a clearer gap there.
DEVANAGARI_SPACE_GAP_EM = 0.45
#: A drawn space that ends this many font sizes or more before the end of the glyph drawn
#: before it lies inside that glyph's advance: it moves the pen nowhere, so it is no word
#: break (the glyph gap decides). An OCR engine's invisible layer draws a space after each
#: word from that word's last glyph's start, and a full-width letter's advance (1 em) outruns
#: its narrow space: "小Ｅ14司" would read "Ｅ 14" (corpus/pr-136 p2; pdfium and pdftotext
#: read no space there). A space at the glyph's end, zero-width or not, still counts.
HIDDEN_SPACE_EM = 0.1
#: Font names that say bold. TeX's bold faces say it only here: Computer Modern's bold extended
#: ("CMBX10", "CMSSBX10", cm-super's "SFBX1000"), its bold ("CMB10") and the URW Times clone's
#: medium ("NimbusRomNo9L-Medi", TeX's Times bold); their stem width reads as weight ~550 and
#: they set no force-bold flag, so a paper's bold headings read as body text.
_BOLD_NAME = re.compile(r"bold|black|heavy|semibold|demi|-bd|,b$|bx\d|^cmb\d|-medi(?:ital)?$", re.IGNORECASE)


@dataclass(slots=True)
class Char:
    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    size: float
    bold: bool
    font: str
    rotated: bool
    is_space: bool
    #: The font's space advance at this size, in points; 0.0 when unknown (no space glyph).
    space_width: float = 0.0
    #: A space pdfium inferred between two glyphs (zero width), not one the PDF draws.
    generated: bool = False


@dataclass(frozen=True, slots=True)
class StyleRun:
    """A run of characters in one font at the start of a segment: `end` is its length in
    the segment's text (characters, spaces included), `size` its mean font size (points)."""

    end: int
    font: str
    bold: bool
    size: float


@dataclass(slots=True)
class Segment:
    """A horizontal run of characters; `size` is the mean font size in points,
    `bold` the share of bold characters (0-1). `space_after` is True when the PDF draws a
    space after the last glyph (a line ending between two words), False when it does not
    although the page draws such spaces after other segments, None when the page never
    does (no evidence: Korean line joins, `text_joins`, need the difference)."""

    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    size: float
    bold: float
    font: str
    rotated: bool = False
    chars: int = 0
    #: The segment's first style run when its font changes inside it (a run-in heading:
    #: bold "Abstract." then body text on one baseline); None when it is one font throughout.
    lead: StyleRun | None = None
    space_after: bool | None = None
    #: Font sizes (points) of the first and the last glyph in reading order: where a wrapped
    #: word would go on from the line before or into the next (`blocks.lines_to_text`); None
    #: when not read glyph by glyph.
    edge_sizes: tuple[float, float] | None = None

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def middle(self) -> float:
        return (self.top + self.bottom) / 2


def _space_gap_em(char: Char, size: float) -> float:
    """The gap (em of `size`) over which two glyphs of `char`'s font are a word apart: half
    the font's space advance, between `MIN_SPACE_GAP_EM` and `SPACE_GAP_EM`; `SPACE_GAP_EM`
    when the advance is unknown or implausible (under 0.1 em or over 0.6 em: no real space
    glyph, or a CJK full-width one)."""
    space_em = char.space_width / size
    if not 0.1 <= space_em <= 0.6:
        return SPACE_GAP_EM
    half = 0.5 * space_em
    return MIN_SPACE_GAP_EM if half < MIN_SPACE_GAP_EM else (SPACE_GAP_EM if half > SPACE_GAP_EM else half)


@functools.lru_cache(maxsize=4096)
def _is_mark(text: str) -> bool:
    """A combining sign (Unicode Mn/Mc): it sits on the previous letter, never after a space."""
    return bool(unicodedata.combining(text)) or unicodedata.category(text) in ("Mn", "Mc")


def _is_devanagari(text: str) -> bool:
    return "\u0900" <= text <= "\u097f"


def _inside_advance(space: Char, last: Char | None) -> bool:
    """Does a drawn `space` lie inside the advance of `last`, the glyph before it on its line:
    starting no earlier than it and ending `HIDDEN_SPACE_EM` or more before its end? In a
    right-to-left run the space sits left of the glyph before it and is never inside.
    Rotated glyphs never come here."""
    if last is None or not last.top - last.size < space.top < last.bottom:
        return False
    return last.x0 - 0.01 <= space.x0 and space.x1 < last.x1 - HIDDEN_SPACE_EM * last.size


def chars_to_segments(chars: list[Char], line_end_spaces: bool | None = None) -> list[Segment]:
    """Group characters into horizontal segments (see the module docstring).

    `Segment.space_after` is evidence only where the page draws a space after some line end:
    `line_end_spaces` says whether it does, for `chars` that are part of a page (a table
    cell's, `cells.grid_to_rows`); None judges it from `chars` themselves.

    A character continues the current segment when it sits on the same baseline and
    starts at most `SEGMENT_GAP_EM` after the previous one ends (and not far before it);
    in right-to-left script (bidi class R or AL, Arabic and Hebrew) the next character
    sits to the *left* of the previous one, and the run keeps the content stream's
    (logical) order. A space is inserted for a drawn space character, a gap over half
    the font's space advance (`_space_gap_em`), a space pdfium generated (in a font with a
    space glyph), and around a superscript (`_is_superscript`).
    """
    segments: list[Segment] = []
    rotated: list[Char] = []
    current: list[Char] = []
    entries: list[tuple[bool, Char]] = []  # (space before, char)
    pending_space = False  # a drawn space since `last`
    pending_generated = False  # a space pdfium generated since `last`
    last: Char | None = None
    for char in chars:
        if char.rotated:
            if not char.is_space:
                rotated.append(char)
            continue
        if char.is_space:
            if char.generated:
                pending_generated = True
            elif not _inside_advance(char, last):
                pending_space = True
            continue
        space = False
        if last is not None:
            text = char.text
            size = last.size if last.size < char.size else char.size
            if size < 1.0:
                size = 1.0
            gap = char.x0 - last.x1
            low = last.bottom if last.bottom < char.bottom else char.bottom
            high = last.top if last.top > char.top else char.top
            last_height, height = last.bottom - last.top, char.bottom - char.top
            same_line = low - high > 0.5 * (last_height if last_height < height else height)
            simple = text < "\u0300"  # Latin-1 and below: no combining marks, no Devanagari, no RTL
            mark = not simple and _is_mark(text)
            devanagari = not simple and "\u0900" <= text <= "\u097f"
            rtl = not (simple and last.text < "\u0300") and (_is_rtl(text) or _is_rtl(last.text))
            overlap_allowed = (1.0 if mark or devanagari else 0.5) * size
            shared_glyph = -0.5 < char.x0 - last.x0 < 0.5 and -0.5 < char.x1 - last.x1 < 0.5  # ligature "fi" -> f, i
            if rtl and same_line and not -overlap_allowed <= gap <= SEGMENT_GAP_EM * size:
                gap = last.x0 - char.x1  # the next glyph of a right-to-left run sits to the left
            elif same_line and mark and (char.x0 + char.x1) / 2 < last.x0 - 0.1 * size:
                # A combining sign drawn after later letters (e.g. a chandrabindu placed
                # last): it belongs after the letter it sits on.
                center = (char.x0 + char.x1) / 2
                at = max((k for k, (_, c) in enumerate(entries) if c.x0 <= center), default=0)
                entries.insert(at + 1, (False, char))
                current.append(char)
                pending_space = pending_generated = False
                continue
            if same_line and (shared_glyph or -overlap_allowed <= gap <= SEGMENT_GAP_EM * size):
                space = (
                    pending_space
                    # every word-space threshold is at least `MIN_SPACE_GAP_EM`: the glyphs of a
                    # word (most pairs) are decided without computing the pair's threshold
                    or (gap > MIN_SPACE_GAP_EM * size and gap > _word_space_em(char, last, size, devanagari) * size)
                    or (pending_generated and _takes_generated_space(char, last, gap, size))
                    # the size test first: `_is_superscript` is False without it (most pairs)
                    or (char.size < SUPERSCRIPT_SIZE_RATIO * last.size and _is_superscript(char, last))
                    or (
                        last.size < SUPERSCRIPT_SIZE_RATIO * char.size
                        and _is_superscript(last, char)
                        and _opens_word(text)
                    )
                ) and not (shared_glyph or mark)
            else:
                segments.append(_entries_to_segment(current, entries, pending_space))
                current, entries = [], []
        current.append(char)
        entries.append((space, char))
        pending_space = pending_generated = False
        last = char
    if current:
        segments.append(_entries_to_segment(current, entries, pending_space))
    if not (any(segment.space_after for segment in segments) if line_end_spaces is None else line_end_spaces):
        for segment in segments:  # no evidence: this page never draws a space at a line end
            segment.space_after = None
    segments.extend(rotated_chars_to_segments(rotated))
    return segments


def _word_space_em(char: Char, last: Char, size: float, devanagari: bool) -> float:
    """The gap (em of `size`, the smaller of the two sizes) over which `last` and `char` are a
    word apart: `DEVANAGARI_SPACE_GAP_EM` between two Devanagari letters, else
    `_space_gap_em` of the smaller glyph's font. Never below `MIN_SPACE_GAP_EM`."""
    if devanagari and _is_devanagari(last.text):
        return DEVANAGARI_SPACE_GAP_EM
    return _space_gap_em(char if char.size <= last.size else last, size)


def _takes_generated_space(char: Char, last: Char, gap: float, size: float) -> bool:
    """Whether a space pdfium generated between `last` and `char` is a word break: always in a
    font with a space glyph; in one without, when the glyphs are over `MIN_SPACE_GAP_EM` apart
    and their boxes differ in width. Equal widths are the cells of a fixed-pitch font, where
    pdfium guesses spaces from glyphs placed one by one ("console .log" in code_and_formula's
    listing, 0.105-0.145 em apart); in proportional TeX fonts without a space glyph a word gap
    can fall under `SPACE_GAP_EM` ("of|three", eu-026 p5: 0.179 em). Sizes and gaps in points."""
    if char.space_width > 0.0 or last.space_width > 0.0:
        return True
    if gap <= MIN_SPACE_GAP_EM * size:
        return False
    difference = (last.x1 - last.x0) - (char.x1 - char.x0)
    return not -0.01 * size <= difference <= 0.01 * size


@functools.lru_cache(maxsize=4096)
def _is_rtl(text: str) -> bool:
    """A right-to-left letter (Unicode bidi class R: Hebrew; AL: Arabic, Persian)."""
    return text >= "\u0590" and unicodedata.bidirectional(text) in ("R", "AL")


def _opens_word(text: str) -> bool:
    """A glyph that starts a word after a superscript: a letter, a digit, an opening bracket or
    quote (Unicode Ps, Pi: normal_4pages p2's footnote mark "6)" before "(이하"). Closing
    punctuation stays with the superscript ("revenue¹," reads "revenue 1,")."""
    return text.isalnum() or unicodedata.category(text[0]) in ("Ps", "Pi")


def _is_superscript(char: Char, base: Char) -> bool:
    """`char` is set smaller than `base` (`SUPERSCRIPT_SIZE_RATIO`) with its baseline raised by
    `SUPERSCRIPT_RISE_EM` of `base`'s size or more. The baseline is estimated as the loose
    box's bottom less 0.2 of the size (pdfium's loose box spans the font's descent to its
    ascent, about 0.2 em below the baseline to 0.8 em above)."""
    if char.size >= SUPERSCRIPT_SIZE_RATIO * base.size:
        return False
    rise = (base.bottom - 0.2 * base.size) - (char.bottom - 0.2 * char.size)
    return rise >= SUPERSCRIPT_RISE_EM * base.size


def _entries_to_segment(chars: list[Char], entries: list[tuple[bool, Char]], space_after: bool) -> Segment:
    text = "".join([(" " + c.text) if space else c.text for space, c in entries]).strip()
    segment = _build_segment(chars, text)
    # most segments are set in one font: their lead is None without walking the entries
    segment.lead = _lead_run(entries) if len(set(map(_font_of, chars))) > 1 else None
    segment.space_after = space_after
    segment.edge_sizes = (entries[0][1].size, entries[-1][1].size)
    return segment


_font_of = operator.attrgetter("font")


def _lead_run(entries: list[tuple[bool, Char]]) -> StyleRun | None:
    """The first font run of a segment that changes font (see `Segment.lead`), else None.
    Offsets count the text as `_entries_to_segment` builds it (a space before a char adds 1)."""
    first = entries[0][1]
    font = first.font
    end = 0
    size = 0.0
    for count, (space, char) in enumerate(entries):
        if char.font != font:
            return StyleRun(end=end, font=font, bold=first.bold, size=size / count) if count else None
        end += len(char.text) + (1 if space and count else 0)
        size += char.size
    return None


def _build_segment(chars: list[Char], text: str) -> Segment:
    x0, top, x1, bottom = chars[0].x0, chars[0].top, chars[0].x1, chars[0].bottom
    size_sum = 0.0
    bold = 0
    fonts: dict[str, int] = {}
    for c in chars:
        if c.x0 < x0:
            x0 = c.x0
        if c.x1 > x1:
            x1 = c.x1
        if c.top < top:
            top = c.top
        if c.bottom > bottom:
            bottom = c.bottom
        size_sum += c.size
        bold += c.bold
        fonts[c.font] = fonts.get(c.font, 0) + 1
    total = len(chars)
    return Segment(
        text=text,
        x0=x0,
        top=top,
        x1=x1,
        bottom=bottom,
        size=size_sum / total,
        bold=bold / total,
        font=max(fonts, key=fonts.get),
        chars=total,
    )


def rotated_chars_to_segments(chars: list[Char]) -> list[Segment]:
    """Rotated characters grouped into runs by proximity (a margin stamp is one run)."""
    runs: list[list[Char]] = []
    for char in chars:
        if runs:
            prev = runs[-1][-1]
            near = abs(char.x0 - prev.x0) < 2 * char.size and abs(char.top - prev.top) < 3 * char.size
            if near:
                runs[-1].append(char)
                continue
        runs.append([char])
    segments = []
    for run in runs:
        segment = _build_segment(run, _rotated_run_text(run))
        segment.rotated = True
        segments.append(segment)
    return segments


def _rotated_run_text(run: list[Char]) -> str:
    """A run's text with a space wherever the gap to the previous character, measured along
    the run (down or across the page), is a word space."""
    parts = [run[0].text]
    for prev, char in zip(run, run[1:]):
        vertical = abs(char.top - prev.top) > abs(char.x0 - prev.x0)
        gap = (
            max(char.top - prev.bottom, prev.top - char.bottom)
            if vertical
            else max(char.x0 - prev.x1, prev.x0 - char.x1)
        )
        if gap > SPACE_GAP_EM * (char.size or 1.0):  # drawn spaces never get here (chars_to_segments)
            parts.append(" ")
        parts.append(char.text)
    return "".join(parts)


# --- text normalisation -------------------------------------------------------------

_REMOVE = dict.fromkeys(map(ord, "\u00ad\u200b\u200e\u200f\u2060\ufeff"), None)
_DEVANAGARI_PREBASE_I = "\u093f"
_CONSONANT = r"[\u0915-\u0939\u0958-\u095f\u0978-\u097f]"
_PREBASE_FIX = re.compile(r"\u093f((?:" + _CONSONANT + r"\u094d)*" + _CONSONANT + r"\u093c?)")
_DEVANAGARI_ANY = re.compile(r"[\u0900-\u097f]")
_VISUAL_ORDER = re.compile(r"(?:^|[^\u0915-\u0939\u0958-\u095f\u0978-\u097f\u093c])\u093f" + _CONSONANT)
_DEVANAGARI_SPACE = re.compile(r"(?<=[\u0900-\u097f]) (?=[\u0900-\u0903\u093a-\u094d\u0951-\u0957\u0962\u0963])")


def normalize_text(text: str) -> str:
    """NFKC (ligatures such as "ﬁ" -> "fi"), soft hyphens and zero-width marks removed,
    Devanagari put back into logical order.

    PDFs shaped for display may store the short-i matra (ि) before the consonant it
    follows in speech, and some producers leave spaces before combining signs; both are
    undone. The matra is moved only when the text is visibly in display order (a ि that
    starts a word or follows a vowel sign cannot be logical); then every ि in the text is.
    ZWJ/ZWNJ are kept: in Devanagari they select conjunct forms.
    """
    text = unicodedata.normalize("NFKC", text).translate(_REMOVE)
    if _DEVANAGARI_ANY.search(text):
        text = _DEVANAGARI_SPACE.sub("", text)
        if _VISUAL_ORDER.search(text):
            text = _PREBASE_FIX.sub(lambda m: m.group(1) + _DEVANAGARI_PREBASE_I, text)
    return text
