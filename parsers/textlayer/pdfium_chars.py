"""A pypdfium2 text page -> the page's `Char`s, with as few foreign calls as pdfium allows.

pdfium has no bulk call for what the parser needs per character: its code point, its
loose box and whether its glyph had a Unicode mapping are one call each
(`FPDFText_GetUnicode`, `FPDFText_GetLooseCharBox`, `FPDFText_HasUnicodeMapError`).
`FPDFText_GetText` returns a range's text in one call, but from pdfium's text buffer, which
is not the character list: control characters (U+0002 at a line-end hyphen among them) are
left out of it and a code point above U+FFFF becomes two UTF-16 units there, so its indices
drift from the characters' and it is not used. What is read once, not per character:

- style (font size, font name, weight and flags, baseline direction, the font's space
  advance): once per text object, keyed by the object's address
  (`FPDFText_GetTextObject`, one call per character), since all characters of one text
  object share it (~50 text objects for ~2,900 characters on a page of a dense rulebook);
- the functions themselves: bound once at import as ctypes function pointers with no
  `argtypes`, so a call passes its Python int and pointer arguments straight through instead
  of converting each through pypdfium2's declared pointer types (0.45 us a call instead of
  0.8-1.6 us, measured on a 600-page rulebook), and holding the interpreter lock like any other ctypes
  call releases it; the box goes into one reused `FS_RECTF` read with one `struct` unpack.

Coordinates and the frame: see `chars.py` (the module docstring) and `frames.PageFrame`.
"""

from __future__ import annotations

import ctypes
import math
import struct

import pypdfium2.raw as pdfium_c

from parsers.textlayer.chars import _BOLD_NAME, Char
from parsers.textlayer.frames import PageFrame, baseline_is_rotated
from parsers.textlayer.settings import DEFAULT_TEXT_LAYER_SETTINGS, TextLayerSettings

_FORCE_BOLD_FLAG = 1 << 18
#: The space character's code point.
_SPACE = 0x20
#: Tab, line feed, vertical tab, form feed, carriage return: pdfium's own line breaks, or a
#: drawn glyph a font maps to one (`_drawn`).
_BREAK_CONTROLS = frozenset(range(0x09, 0x0E))


def _unconverted(function, restype):
    """`function` (a pypdfium2.raw function) as a ctypes function pointer that returns
    `restype` and passes its arguments without conversion: Python ints as C `int`, ctypes
    pointers and `byref` as pointers. Callers pass exactly those, as pdfium declares them."""
    bound = ctypes.CFUNCTYPE(restype)(ctypes.cast(function, ctypes.c_void_p).value)
    bound.argtypes = None
    return bound


# (text page, index) -> the character's code point (UTF-16 code unit or above), 0 on error.
_get_unicode = _unconverted(pdfium_c.FPDFText_GetUnicode, ctypes.c_uint)
# (text page, index, byref(FS_RECTF)) -> non-zero on success; the rect in PDF user space.
_get_loose_box = _unconverted(pdfium_c.FPDFText_GetLooseCharBox, ctypes.c_int)
# (text page, index) -> 1 when the glyph has no Unicode mapping, 0 when it has, -1 on error.
_has_map_error = _unconverted(pdfium_c.FPDFText_HasUnicodeMapError, ctypes.c_int)
# (text page, index) -> the character's text object as a plain integer address (None for none),
# so it can key a dict of styles without building a pointer object per character.
_text_object_address = _unconverted(pdfium_c.FPDFText_GetTextObject, ctypes.c_void_p)
# (text object address as c_void_p) -> its font's address (None for none): an int, not a
# pointer object (`ctypes.cast` of a returned pointer makes a reference cycle per call).
_font_address = _unconverted(pdfium_c.FPDFTextObj_GetFont, ctypes.c_void_p)
# (font address as c_void_p, glyph, c_float(size), byref(c_float)) -> non-zero on success.
_glyph_width = _unconverted(pdfium_c.FPDFFont_GetGlyphWidth, ctypes.c_int)
#: FS_RECTF's four floats in field order: left, top, right, bottom.
_unpack_rect = struct.Struct("4f").unpack_from


def page_to_chars(
    page, textpage, settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS
) -> tuple[list[Char], PageFrame]:
    """A pypdfium2 page's characters and the frame they are in (see the module docstring
    of `chars.py`): the displayed frame, or, when more than `sideways_share` of the visible
    characters (and at least `sideways_min_chars`) are upright only in another quarter-turn
    frame, that one (the page is then read twice; such pages are rare)."""
    frame = PageFrame.of_page(page)
    chars, sideways = _read_chars(textpage, frame, settings)
    best = max(sideways, key=sideways.get)
    visible = sum(not c.is_space for c in chars)
    if sideways[best] < settings.sideways_min_chars or sideways[best] <= settings.sideways_share * visible:
        return chars, frame
    frame = frame.turned(best)
    return _read_chars(textpage, frame, settings)[0], frame


def _read_chars(textpage, frame: PageFrame, settings: TextLayerSettings) -> tuple[list[Char], dict[int, int]]:
    """The characters in `frame`, and per other quarter turn (0/90/180/270 clockwise from
    the unrotated page) how many visible characters rotated in `frame` are upright in it.

    Left out: control characters (below U+0020, except U+0002, pdfium's line-end hyphen,
    read as "-") and the non-characters U+FFFE/U+FFFF. A glyph without a Unicode mapping is
    left out too, the character before it stretched over its width. A space or line break
    narrower than `generated_width_pt` is one pdfium generated."""
    raw = textpage.raw
    sideways = {turn: 0 for turn in (0, 90, 180, 270) if turn != frame.rotation}
    count = pdfium_c.FPDFText_CountChars(raw)
    if count <= 0:
        return [], sideways
    get_unicode, get_box, map_error, text_object = _get_unicode, _get_loose_box, _has_map_error, _text_object_address
    rect = pdfium_c.FS_RECTF()
    rect_ref = ctypes.byref(rect)
    unpack_rect = _unpack_rect
    generated_width, space = settings.generated_width_pt, _SPACE
    # (size, bold, font name, rotated in `frame`, upright quarter turn or None, space advance) per text object
    styles: dict[int | None, tuple[float, bool, str, bool, int | None, float]] = {}
    letters: dict[int, tuple[str, bool]] = {}  # code point -> `_letter(code)`
    fonts: dict[int, tuple[str, bool]] = {}  # font address -> (name, bold), see `_char_style`
    to_box = frame.box
    upright_page = frame.rotation == 0  # the common case, mapped inline
    origin_x, origin_top = frame.left, frame.top
    chars: list[Char] = []
    append = chars.append
    pair_tail = -1  # index of a low surrogate already combined with the high one before it
    for index in range(count):
        if index == pair_tail:
            continue
        code = get_unicode(raw, index)
        if code < 32 or code >= 0xD800:  # rare: control characters, surrogates, non-characters
            if 0xD800 <= code <= 0xDFFF:
                # pdfium reports UTF-16 code units: combine a surrogate pair (CJK extension B,
                # symbols) into one character; a lone surrogate cannot be stored, so it becomes U+FFFD.
                low = get_unicode(raw, index + 1) if code <= 0xDBFF and index + 1 < count else 0
                if 0xDC00 <= low <= 0xDFFF:
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    pair_tail = index + 1
                else:
                    code = 0xFFFD
            elif code == 2:  # pdfium reports a hyphen at a line end as U+0002
                code = 0x2D
            elif code in _BREAK_CONTROLS and _drawn(get_box, raw, index, rect_ref, rect, generated_width):
                # a glyph drawn with an advance that the font maps to a tab or line break: its
                # space glyph (see `_drawn`), a word space like any other
                code = space
            elif code < 32 or code in (0xFFFE, 0xFFFF):
                continue
        get_box(raw, index, rect_ref)
        pdf_left, pdf_top, pdf_right, pdf_bottom = unpack_rect(rect)
        if upright_page:
            left, top, right, bottom = (
                pdf_left - origin_x,
                origin_top - pdf_top,
                pdf_right - origin_x,
                origin_top - pdf_bottom,
            )
        else:
            left, top, right, bottom = to_box(pdf_left, pdf_bottom, pdf_right, pdf_top)
        if code == space and right - left < generated_width:
            # a space pdfium generated (zero width): evidence for `chars_to_segments`
            append(Char(" ", left, top, right, bottom, 0.0, False, "", False, True, 0.0, True))
            continue
        if map_error(raw, index) == 1:
            # A glyph without a Unicode mapping (fpdf2 maps a shaped Devanagari cluster to
            # its first glyph): drop it, and let the previous character cover its width so
            # no space is guessed in the gap.
            if chars and not chars[-1].rotated:
                chars[-1].x1 = max(chars[-1].x1, right)
            continue
        key = text_object(raw, index)
        style = styles.get(key)
        if style is None:
            style = styles[key] = _char_style(raw, index, key, frame, fonts, settings)
        size, bold, font, rotated, upright_turn, space_width = style
        letter = letters.get(code)
        if letter is None:
            letter = letters[code] = _letter(code)
        text, is_space = letter
        if rotated and not is_space and upright_turn is not None:
            sideways[upright_turn] += 1
        append(Char(text, left, top, right, bottom, size, bold, font, rotated, is_space, space_width))
    return chars, sideways


def _drawn(get_box, raw, index: int, rect_ref, rect, generated_width: float) -> bool:
    """Whether character `index`, a tab or line break (U+0009-U+000D), is a glyph the page
    draws rather than one pdfium generated: pdfium's own line breaks have no width, a drawn
    glyph has its advance (`generated_width_pt` or more). Word processors that embed a font as
    a subset may map its space glyph to a line feed in the font's ToUnicode table (a filing's
    cover set in bold Times reads "Exact name of registrant" with line feeds between the
    words); read as a control
    character and left out, the words would be told apart by their glyph gaps alone, which
    a short-advance "f" brings under the word-space threshold ("ofthe")."""
    get_box(raw, index, rect_ref)
    left, _, right, _ = _unpack_rect(rect)
    return right - left >= generated_width


def _letter(code: int) -> tuple[str, bool]:
    """(the character's text, whether it is white space) for a code point as `_read_chars`
    keeps it; read once per distinct code point of a page (~80 on a page of prose)."""
    text = chr(code) if code < 0x110000 else "\ufffd"
    return text, code == _SPACE or text.isspace()


def _char_style(
    raw,
    index: int,
    text_object: int | None,
    frame: PageFrame,
    fonts: dict[int, tuple[str, bool]],
    settings: TextLayerSettings,
) -> tuple[float, bool, str, bool, int | None, float]:
    """(size in points, bold, font name, whether the baseline is rotated in `frame`, the
    quarter turn (0/90/180/270) in which that baseline is upright, or None, the font's
    space advance in points or 0.0) of character `index`'s text object (its address, None
    for none). `fonts`: (name, bold) per font address, for the page being read
    (`_font_name_and_bold`, bold from `bold_weight` up); a baseline is rotated beyond
    `upright_slope`."""
    bold_weight, slope = settings.bold_weight, settings.upright_slope
    matrix = pdfium_c.FS_MATRIX()
    pdfium_c.FPDFText_GetMatrix(raw, index, matrix)
    size = pdfium_c.FPDFText_GetFontSize(raw, index) * (math.hypot(matrix.c, matrix.d) or 1.0)
    font = _font_address(ctypes.c_void_p(text_object)) if text_object else None
    if font is None:
        name, bold = _font_name_and_bold(raw, index, bold_weight)
    elif font in fonts:
        name, bold = fonts[font]
    else:
        name, bold = fonts[font] = _font_name_and_bold(raw, index, bold_weight)
    a, b = matrix.a, matrix.b
    direction = next((turn for turn in (0, 90, 180, 270) if not baseline_is_rotated(turn, a, b, slope)), None)
    space_width = _space_advance(font, size)
    return size, bold, name, frame.is_rotated(a, b, slope), direction, space_width


def _font_name_and_bold(raw, index: int, bold_weight: int) -> tuple[str, bool]:
    """(font name without its subset prefix, bold) of character `index`'s font: from the
    font alone (name, weight from `bold_weight` up, the force-bold flag), so read once per font
    on a page (a page of a rulebook has ~50 text objects in a handful of fonts)."""
    name_buffer = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    pdfium_c.FPDFText_GetFontInfo(raw, index, name_buffer, 128, flags)
    name = name_buffer.value.decode("latin-1", "replace").split("+")[-1]
    weight = pdfium_c.FPDFText_GetFontWeight(raw, index)
    return name, bool(_BOLD_NAME.search(name)) or weight >= bold_weight or bool(flags.value & _FORCE_BOLD_FLAG)


def _space_advance(font: int | None, size: float) -> float:
    """The advance of the space character in `font` (the address of pdfium's font of a text
    object, None for none) at `size`, in points; 0.0 when there is no font or pdfium cannot tell."""
    if not font:
        return 0.0
    width = ctypes.c_float()
    if not _glyph_width(ctypes.c_void_p(font), 32, ctypes.c_float(size), ctypes.byref(width)):
        return 0.0
    return max(width.value, 0.0)
