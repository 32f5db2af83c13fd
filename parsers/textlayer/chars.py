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
order, broken where the gap to the next character exceeds `segment_gap_em` (so a table
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

from parsers.textlayer.settings import DEFAULT_TEXT_LAYER_SETTINGS, TextLayerSettings

#: The tolerances of this module are `TextLayerSettings` fields (`settings.py`), each with its
#: unit and reason. How they work together on word spaces: a glyph gap over half the font's
#: own space advance is a word space (`space_share_of_advance`, `_space_gap_em`), held between
#: `min_space_gap_em` and `space_gap_em`; `space_gap_em` alone when the advance is unknown. A
#: fixed threshold of 0.18 em glued "of|the" in 10-Ks set in Times (0.148 em apart: the "f"
#: advance is short), hence half the advance (0.125 em there).
#:
#: pdfium's own space (a zero-width character it generates between two glyphs from the
#: content stream's positioning and the font) is always a word break in a font with a space
#: glyph (`Char.space_width`). A floor on the glyph gap (0.08 em) was tried: it glued italic
#: words, whose glyph boxes overlap across the space (an italic "f" starts 0.15 em before
#: pdfium's space in "to fluctuations"). Checked against pdftotext on filings, a rulebook,
#: brochures and papers: no word split by a generated space. In a font without a space glyph
#: it counts only over `min_space_gap_em` and between glyphs of unequal width
#: (`_takes_generated_space`): in a code listing set in a fixed-pitch font, each glyph placed on
#: its own, pdfium puts one in "console .log".
#:
#: A drawn space that lies inside the advance of the glyph before it (`hidden_space_em`) moves
#: the pen nowhere and is no word break: an OCR engine's invisible layer draws a space after
#: each word from that word's last glyph's start, and a full-width letter's advance (1 em)
#: outruns its narrow space ("小Ｅ14司" would read "Ｅ 14"; pdfium and pdftotext read no space).
#: A space at the glyph's end, zero-width or not, still counts.
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


def _space_gap_em(char: Char, size: float, settings: TextLayerSettings) -> float:
    """The gap (em of `size`) over which two glyphs of `char`'s font are a word apart:
    `space_share_of_advance` of the font's space advance, between `min_space_gap_em` and
    `space_gap_em`; `space_gap_em` when the advance is unknown or implausible (outside
    `space_advance_min_em`..`space_advance_max_em`: no real space glyph, or a CJK full-width one)."""
    space_em = char.space_width / size
    if not settings.space_advance_min_em <= space_em <= settings.space_advance_max_em:
        return settings.space_gap_em
    half = settings.space_share_of_advance * space_em
    low, high = settings.min_space_gap_em, settings.space_gap_em
    return low if half < low else (high if half > high else half)


@functools.lru_cache(maxsize=4096)
def _is_mark(text: str) -> bool:
    """A combining sign (Unicode Mn/Mc): it sits on the previous letter, never after a space."""
    return bool(unicodedata.combining(text)) or unicodedata.category(text) in ("Mn", "Mc")


def _is_devanagari(text: str) -> bool:
    return "\u0900" <= text <= "\u097f"


def _inside_advance(space: Char, last: Char | None, settings: TextLayerSettings) -> bool:
    """Does a drawn `space` lie inside the advance of `last`, the glyph before it on its line:
    starting no earlier than it (`advance_edge_pt`) and ending `hidden_space_em` or more before
    its end? In a right-to-left run the space sits left of the glyph before it and is never
    inside. Rotated glyphs never come here."""
    if last is None or not last.top - last.size < space.top < last.bottom:
        return False
    return last.x0 - settings.advance_edge_pt <= space.x0 and space.x1 < last.x1 - settings.hidden_space_em * last.size


def chars_to_segments(
    chars: list[Char],
    line_end_spaces: bool | None = None,
    settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS,
) -> list[Segment]:
    """Group characters into horizontal segments (see the module docstring).

    `Segment.space_after` is evidence only where the page draws a space after some line end:
    `line_end_spaces` says whether it does, for `chars` that are part of a page (a table
    cell's, `cells.grid_to_rows`); None judges it from `chars` themselves.

    A character continues the current segment when it sits on the same baseline and
    starts at most `segment_gap_em` after the previous one ends (and not far before it);
    in right-to-left script (bidi class R or AL, Arabic and Hebrew) the next character
    sits to the *left* of the previous one, and the run keeps the content stream's
    (logical) order. A space is inserted for a drawn space character, a gap over half
    the font's space advance (`_space_gap_em`), a space pdfium generated (in a font with a
    space glyph), and around a superscript (`_is_superscript`). Tolerances: `settings`.
    """
    # the settings read once into locals: this loop runs once per character of the page
    segment_gap, min_space_gap = settings.segment_gap_em, settings.min_space_gap_em
    superscript_ratio, min_size = settings.superscript_size_ratio, settings.min_font_size_pt
    line_share, shared_pt = settings.same_line_overlap_share, settings.shared_glyph_pt
    glyph_overlap, mark_overlap, mark_behind = (
        settings.glyph_overlap_em,
        settings.mark_overlap_em,
        settings.mark_behind_em,
    )
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
            elif not _inside_advance(char, last, settings):
                pending_space = True
            continue
        space = False
        if last is not None:
            text = char.text
            size = last.size if last.size < char.size else char.size
            if size < min_size:
                size = min_size
            gap = char.x0 - last.x1
            low = last.bottom if last.bottom < char.bottom else char.bottom
            high = last.top if last.top > char.top else char.top
            last_height, height = last.bottom - last.top, char.bottom - char.top
            same_line = low - high > line_share * (last_height if last_height < height else height)
            simple = text < "\u0300"  # Latin-1 and below: no combining marks, no Devanagari, no RTL
            mark = not simple and _is_mark(text)
            devanagari = not simple and "\u0900" <= text <= "\u097f"
            rtl = not (simple and last.text < "\u0300") and (_is_rtl(text) or _is_rtl(last.text))
            overlap_allowed = (mark_overlap if mark or devanagari else glyph_overlap) * size
            # a ligature "fi" read as f, i
            shared_glyph = -shared_pt < char.x0 - last.x0 < shared_pt and -shared_pt < char.x1 - last.x1 < shared_pt
            if rtl and same_line and not -overlap_allowed <= gap <= segment_gap * size:
                gap = last.x0 - char.x1  # the next glyph of a right-to-left run sits to the left
            elif same_line and mark and (char.x0 + char.x1) / 2 < last.x0 - mark_behind * size:
                # A combining sign drawn after later letters (e.g. a chandrabindu placed
                # last): it belongs after the letter it sits on.
                center = (char.x0 + char.x1) / 2
                at = max((k for k, (_, c) in enumerate(entries) if c.x0 <= center), default=0)
                entries.insert(at + 1, (False, char))
                current.append(char)
                pending_space = pending_generated = False
                continue
            if same_line and (shared_glyph or -overlap_allowed <= gap <= segment_gap * size):
                space = (
                    pending_space
                    # every word-space threshold is at least `min_space_gap_em`: the glyphs of a
                    # word (most pairs) are decided without computing the pair's threshold
                    or (
                        gap > min_space_gap * size
                        and gap > _word_space_em(char, last, size, devanagari, settings) * size
                    )
                    or (pending_generated and _takes_generated_space(char, last, gap, size, settings))
                    # the size test first: `_is_superscript` is False without it (most pairs)
                    or (char.size < superscript_ratio * last.size and _is_superscript(char, last, settings))
                    or (
                        last.size < superscript_ratio * char.size
                        and _is_superscript(last, char, settings)
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
    segments.extend(rotated_chars_to_segments(rotated, settings))
    return segments


def _word_space_em(char: Char, last: Char, size: float, devanagari: bool, settings: TextLayerSettings) -> float:
    """The gap (em of `size`, the smaller of the two sizes) over which `last` and `char` are a
    word apart: `devanagari_space_gap_em` between two Devanagari letters, else
    `_space_gap_em` of the smaller glyph's font. Never below `min_space_gap_em`."""
    if devanagari and _is_devanagari(last.text):
        return settings.devanagari_space_gap_em
    return _space_gap_em(char if char.size <= last.size else last, size, settings)


def _takes_generated_space(char: Char, last: Char, gap: float, size: float, settings: TextLayerSettings) -> bool:
    """Whether a space pdfium generated between `last` and `char` is a word break: always in a
    font with a space glyph; in one without, when the glyphs are over `min_space_gap_em` apart
    and their boxes differ in width (`fixed_pitch_width_em`). Equal widths are the cells of a
    fixed-pitch font, where pdfium guesses spaces from glyphs placed one by one (a code listing's
    "console .log", 0.105-0.145 em apart); in proportional TeX fonts without a space glyph a word
    gap can fall under `space_gap_em` ("of|three": 0.179 em). Sizes and gaps in points."""
    if char.space_width > 0.0 or last.space_width > 0.0:
        return True
    if gap <= settings.min_space_gap_em * size:
        return False
    difference = (last.x1 - last.x0) - (char.x1 - char.x0)
    tolerance = settings.fixed_pitch_width_em
    return not -tolerance * size <= difference <= tolerance * size


@functools.lru_cache(maxsize=4096)
def _is_rtl(text: str) -> bool:
    """A right-to-left letter (Unicode bidi class R: Hebrew; AL: Arabic, Persian)."""
    return text >= "\u0590" and unicodedata.bidirectional(text) in ("R", "AL")


def _opens_word(text: str) -> bool:
    """A glyph that starts a word after a superscript: a letter, a digit, an opening bracket or
    quote (Unicode Ps, Pi: a Korean report's footnote mark "6)" before "(이하"). Closing
    punctuation stays with the superscript ("revenue¹," reads "revenue 1,")."""
    return text.isalnum() or unicodedata.category(text[0]) in ("Ps", "Pi")


def _is_superscript(char: Char, base: Char, settings: TextLayerSettings) -> bool:
    """`char` is set smaller than `base` (`superscript_size_ratio`) with its baseline raised by
    `superscript_rise_em` of `base`'s size or more. The baseline is estimated as the loose
    box's bottom less `loose_box_descent_em` of the size (pdfium's loose box spans the font's
    descent to its ascent, about 0.2 em below the baseline to 0.8 em above)."""
    if char.size >= settings.superscript_size_ratio * base.size:
        return False
    descent = settings.loose_box_descent_em
    rise = (base.bottom - descent * base.size) - (char.bottom - descent * char.size)
    return rise >= settings.superscript_rise_em * base.size


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


def rotated_chars_to_segments(
    chars: list[Char], settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS
) -> list[Segment]:
    """Rotated characters grouped into runs by proximity (a margin stamp is one run:
    `rotated_run_dx_em`, `rotated_run_dy_em`); word spaces over `space_gap_em`."""
    dx, dy = settings.rotated_run_dx_em, settings.rotated_run_dy_em
    runs: list[list[Char]] = []
    for char in chars:
        if runs:
            prev = runs[-1][-1]
            near = abs(char.x0 - prev.x0) < dx * char.size and abs(char.top - prev.top) < dy * char.size
            if near:
                runs[-1].append(char)
                continue
        runs.append([char])
    segments = []
    for run in runs:
        segment = _build_segment(run, _rotated_run_text(run, settings.space_gap_em))
        segment.rotated = True
        segments.append(segment)
    return segments


def _rotated_run_text(run: list[Char], space_gap_em: float) -> str:
    """A run's text with a space wherever the gap to the previous character, measured along
    the run (down or across the page), is a word space (over `space_gap_em`)."""
    parts = [run[0].text]
    for prev, char in zip(run, run[1:]):
        vertical = abs(char.top - prev.top) > abs(char.x0 - prev.x0)
        gap = (
            max(char.top - prev.bottom, prev.top - char.bottom)
            if vertical
            else max(char.x0 - prev.x1, prev.x0 - char.x1)
        )
        if gap > space_gap_em * (char.size or 1.0):  # drawn spaces never get here (chars_to_segments)
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
