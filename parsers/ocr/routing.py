"""Is a page's text layer worth using, or must the page go to OCR?

`assess_text_layer` is a pure function of what the parser already knows about a page:
its extracted text, its size in PDF points and how much of it images cover. The
rules, in the order they are checked (the first that fires gives the reason):

1. **no text layer** - the text is empty or whitespace only.
2. **glyph garbage** - at least `GARBAGE_RATIO_LIMIT` (10%) of the visible glyphs are
   unmapped: pdfminer's `(cid:NN)` placeholders (each counts as one glyph), Unicode
   private-use characters (fonts without a ToUnicode map often land there) or the
   replacement character U+FFFD; *and* at least `GARBAGE_WORD_LIMIT` (5%) of the words
   are mostly unmapped. The second condition spares pages whose unmapped glyphs sit
   inside otherwise readable words (fpdf2's shaped Devanagari: `कि(cid:10)सान`), which
   the parser repairs by dropping the placeholders. The reason names the glyph share
   and the dominant kind, e.g. ``glyph garbage: 40% (cid:NN)``.
3. **page covered by one image** - an image covers at least `COVERED_IMAGE_RATIO`
   (85%) of the page and the text layer is not substantial, i.e. it has fewer than
   `SUBSTANTIAL_CHARS_PER_KPT2` visible characters per 1000 pt^2 (about 240 on a
   Letter page) or fewer than `SUBSTANTIAL_WORDS` words (and fewer than 10x as many
   characters: Chinese or Japanese text has few spaces). A scan that already carries
   an OCR text layer (a full-page image *and* hundreds of words, like the corpus's
   `pdf-with-ocr-text.pdf`) is accepted: re-OCR would cost seconds for a similar
   result. A scan whose only text is a stamp or a scanner's banner is sent to OCR.
3b. **invisible text over a scan that reads as garbage** - the page is covered by one image
   (as in rule 3), at least `INVISIBLE_SHARE` (90%) of its text objects are drawn invisible
   (PDF text render mode 3: the layer another OCR engine left under the picture) and, in
   Latin script, fewer than `PLAUSIBLE_WORD_SHARE` (80%) of its words are English words
   (`word_plausibility`). Such a layer is what a search or a reader gets instead of the
   picture, so its quality decides: `pdf-with-ocr-text.pdf` reads "you Kill tee interested
   to knot" (67% words) where Tesseract reads "you will be interested to know". The gate
   matters: a born-digital page never draws invisible text over a page-sized image, and its
   proper names and acronyms can score as low (an election table: 64%).
4. **too little text for its area** - images cover at least `IMAGE_RATIO_FOR_SPARSE`
   (30%) of the page and there are fewer than `MIN_CHARS_PER_KPT2` visible characters
   per 1000 pt^2 (about 100 on a Letter page): the words are probably inside the
   image. A sparse page *without* images (a section divider, a cover) is accepted,
   because OCR could find nothing that the text layer lacks.

Densities are per 1000 square points so the rules hold for A4, Letter and small pages alike.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

from ingest.contracts.elements import PageInfo, TextSource
from parsers.textlayer.layout import PageLayout
from parsers.textlayer.lexicon import is_english_word

#: The reason of rule 4: the text layer is clean but sparse beside images (a cover page).
SPARSE_BESIDE_IMAGES = "too little text for its area"

GARBAGE_RATIO_LIMIT = 0.10
GARBAGE_WORD_LIMIT = 0.05
COVERED_IMAGE_RATIO = 0.85
SUBSTANTIAL_CHARS_PER_KPT2 = 0.5
SUBSTANTIAL_WORDS = 20
IMAGE_RATIO_FOR_SPARSE = 0.30
MIN_CHARS_PER_KPT2 = 0.2
#: Rule 3b: share of the page's text objects drawn invisible (render mode 3) for the layer
#: to count as another engine's OCR layer, and the share of English words it must reach.
INVISIBLE_SHARE = 0.9
PLAUSIBLE_WORD_SHARE = 0.8
#: Fewer candidate words than this tell nothing about a layer's quality.
MIN_WORDS_TO_JUDGE = 20
#: The reason of rule 3b starts with this.
IMPLAUSIBLE_HIDDEN_LAYER = "invisible OCR layer reads as garbage"

_CID = re.compile(r"\(cid:\d+\)")
_EDGE_PUNCTUATION = re.compile(r"^\W+|\W+$")
_LETTER = re.compile(r"[^\W\d_]")
_WORD_JOINERS = re.compile(r"['\u2019\-]")


class TextLayerVerdict(BaseModel):
    """`usable` False means: OCR this page (in `auto` mode); `reason` says why, for `pages.ocr_reason`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    usable: bool
    reason: str | None = None


_PRIVATE_USE = re.compile("[\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]")


def glyph_counts(text: str) -> dict[str, int]:
    """Visible glyphs and unmapped ones by kind: keys `glyphs`, `cid`, `private_use`, `replacement`.

    A `(cid:NN)` placeholder counts as one glyph (it stands for one), not as its 8 characters.
    Visible = not `str.isspace` (`str.split()` splits on exactly those); private-use characters
    and U+FFFD are never whitespace. Counted by C-level scans, not per character in Python:
    this runs on every page's text (~3,000 characters).
    """
    cid = len(_CID.findall(text))
    rest = _CID.sub("", text)
    visible = sum(map(len, rest.split()))
    private = len(_PRIVATE_USE.findall(rest))
    replacement = rest.count("\ufffd")
    return {"glyphs": visible + cid, "cid": cid, "private_use": private, "replacement": replacement}


def garbage_word_ratio(text: str) -> float:
    """Share of whitespace-separated words whose glyphs are at least half unmapped."""
    words = text.split()
    if not words:
        return 0.0
    bad = 0
    for word in words:
        counts = glyph_counts(word)
        unmapped = counts["cid"] + counts["private_use"] + counts["replacement"]
        if counts["glyphs"] and unmapped * 2 >= counts["glyphs"]:
            bad += 1
    return bad / len(words)


def word_plausibility(text: str) -> float | None:
    """Share (0-1) of `text`'s words that are English words (`lexicon.is_english_word`).

    A word here is a whitespace-separated token with at least 2 letters; punctuation at its
    edges is ignored and a token joined by an apostrophe or hyphen must be words in every
    part. A token with other marks inside ("s*r;tiiR", "H^uid": an OCR engine's misreads) is
    not a word. None when the text has fewer than `MIN_WORDS_TO_JUDGE` such tokens or when
    most of its letters are not Latin: the lexicon can only judge English."""
    tokens = [token for token in text.split() if len(_LETTER.findall(token)) >= 2]
    if len(tokens) < MIN_WORDS_TO_JUDGE:
        return None
    letters = [c for token in tokens for c in token if c.isalpha()]
    if sum(1 for c in letters if c < "\u0250") * 2 < len(letters):
        return None
    words = 0
    for token in tokens:
        core = _EDGE_PUNCTUATION.sub("", token)
        parts = [part for part in _WORD_JOINERS.split(core) if part]
        if parts and all(part.isalpha() and is_english_word(part.lower()) for part in parts):
            words += 1
    return words / len(tokens)


def assess_text_layer(
    text: str, page_width: float, page_height: float, image_area_ratio: float, invisible_text_share: float = 0.0
) -> TextLayerVerdict:
    """Decide whether a page's text layer is usable (see the module docstring for the rules).

    `page_width`/`page_height` are in PDF points; `image_area_ratio` is the share (0-1) of
    the page area covered by its largest image (the parser may pass the union of all
    images; values above 1 are clipped); `invisible_text_share` the share (0-1) of the
    page's text objects drawn in render mode 3 (invisible).
    """
    counts = glyph_counts(text or "")
    if counts["glyphs"] == 0:
        return TextLayerVerdict(usable=False, reason="no text layer")

    bad = {
        "(cid:NN)": counts["cid"],
        "private-use characters": counts["private_use"],
        "replacement characters": counts["replacement"],
    }
    bad_total = sum(bad.values())
    ratio = bad_total / counts["glyphs"]
    if ratio >= GARBAGE_RATIO_LIMIT and garbage_word_ratio(text) >= GARBAGE_WORD_LIMIT:
        kind = max(bad, key=bad.get)
        return TextLayerVerdict(usable=False, reason=f"glyph garbage: {round(ratio * 100)}% {kind}")

    good_glyphs = counts["glyphs"] - bad_total
    area_kpt2 = max(page_width * page_height, 1.0) / 1000.0
    density = good_glyphs / area_kpt2
    image_ratio = min(max(image_area_ratio, 0.0), 1.0)
    words = len((text or "").split())

    # CJK text has few spaces, so a substantial layer may hold few "words": many glyphs count too.
    few_words = words < SUBSTANTIAL_WORDS and good_glyphs < 10 * SUBSTANTIAL_WORDS
    if image_ratio >= COVERED_IMAGE_RATIO and (density < SUBSTANTIAL_CHARS_PER_KPT2 or few_words):
        return TextLayerVerdict(usable=False, reason="page covered by one image")
    if image_ratio >= COVERED_IMAGE_RATIO and invisible_text_share >= INVISIBLE_SHARE:
        plausibility = word_plausibility(text)
        if plausibility is not None and plausibility < PLAUSIBLE_WORD_SHARE:
            return TextLayerVerdict(
                usable=False, reason=f"{IMPLAUSIBLE_HIDDEN_LAYER}: {round(plausibility * 100)}% English words"
            )
    if image_ratio >= IMAGE_RATIO_FOR_SPARSE and density < MIN_CHARS_PER_KPT2:
        return TextLayerVerdict(usable=False, reason=SPARSE_BESIDE_IMAGES)
    return TextLayerVerdict(usable=True, reason=None)


def pages_needing_ocr(
    layouts: list[PageLayout], pages: list[PageInfo], mode: str, verdicts: dict[int, TextLayerVerdict] | None = None
) -> set[int]:
    """Page numbers to OCR; sets `ocr_reason` on them.

    In "never" mode nothing is OCR'd and `ocr_reason` still says why OCR would have been
    wanted. A page with no text or with glyph garbage is then `empty` (garbage dropped);
    a page whose text is merely sparse beside images (a cover) keeps its text layer.
    `verdicts`: `routing_verdict` per page number where the caller already has it (the page
    progress counter asks it of every page as it is read), so it is not computed twice.
    """
    wanted = set()
    known = verdicts or {}
    for layout, page in zip(layouts, pages):
        verdict = known.get(layout.page_no)
        if verdict is None:
            verdict = routing_verdict(layout, mode)
        if mode != "always":
            layout.text = ""  # only needed for the verdict; do not hold every page's text
        if verdict.usable:
            continue
        page.ocr_reason = verdict.reason
        if mode == "never":
            if not layout.segments or (verdict.reason or "").startswith("glyph garbage"):
                page.text_source = TextSource.empty
                layout.segments, layout.lines, layout.tables, layout.rotated = [], [], [], []
        else:
            wanted.add(layout.page_no)
    return wanted


def routing_verdict(layout: PageLayout, mode: str) -> TextLayerVerdict:
    """The one per-page routing rule: `usable` False = the text layer is not used as it is
    (OCR'd in "auto" and "always", only the reason kept in "never"). An unreadable page is
    `usable`: there is nothing to OCR. Needs `layout.text`, so call it before
    `pages_needing_ocr` clears it."""
    if layout.error is not None:
        return TextLayerVerdict(usable=True, reason=None)
    if mode == "always":
        return TextLayerVerdict(usable=False, reason="ocr mode always")
    return assess_text_layer(
        layout.text, layout.width, layout.height, layout.image_area_ratio, layout.invisible_text_share
    )
