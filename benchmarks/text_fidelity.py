"""Text fidelity: does every word of a page's text layer reach an element, spelled as printed?

Measures issue 12 ("Nothing lost, nothing glued") against pypdfium2's own text of each page
(`get_text_range`), which is independent of the parser's character grouping.

    python benchmarks/text_fidelity.py                          # corpus + every bench folder
    python benchmarks/text_fidelity.py a.pdf --max-pages 40 --json out.json --examples 5
    python benchmarks/text_fidelity.py --jobs 2                 # two files at once, a process each

Rules (pure functions below; only `read_text_layer`, `first_pages_copy`, `measure_file` read PDFs):

- The page text (`text_layer_glyphs.py`, its docstring states the rules): pypdfium2's text
  without its spaces inside fixed-pitch cells ("console.log(") or its line breaks inside a
  Korean word ("확" / "진자"), with a space where a superscript starts or ends (a glyph under
  0.85 of its neighbour's size, baseline raised 0.2 em or more: pypdfium2 reads "11The", the
  parser sets it apart), and, on a page pypdfium2 reads one glyph per line ("T\\r\\na\\r\\nb..."
  while the glyphs sit side by side on one baseline: CORNING p82), the text rebuilt from glyph
  positions (baseline, then a gap over 0.05 em between advance boxes is a word break).
- Words: text NFKC-normalised and split on whitespace; zero-width marks and soft hyphens removed,
  punctuation, symbols and private-use glyphs (Unicode P*, S*, Co) stripped from both ends of a
  token; empty tokens are no words. Each Han or kana character is a word of its own (no spaces in
  those scripts). No word boundary before a combining mark; words holding Devanagari compare by
  their sorted characters (matra order in a text layer depends on the producer). Arabic vowel
  marks (harakat) are removed (producers set them before or after their letter), and a word
  boundary is set where Arabic script meets Latin ("وPython": two bidi runs).
- Lines of the text layer: a line whose last token ends in "-", U+00AD, U+0002 or U+FFFE (pdfium's
  marks for a line-end hyphen; pdfium then drops the line break) is joined with the next line's
  first token into one word `left + BREAK + right`, which the output must spell "left-right" or
  "leftright", except that a compound (`is_compound_break`) must keep its hyphen.
  A token framed by hyphens ("-1-", the folio atop CORNING's exhibit pages) is no broken word.
  A word ending in a hyphen inside a line (`mid_line_breaks`: a table cell broken at its own
  line end, read side by side with the next cells of its row, "Weighted- Number of") and the
  word that goes on after it both count as found when the output holds them joined at that
  hyphen ("Weighted-average", 3M p130); two lost words joined at a hyphen the text layer does
  not print stay lost. A line-end break pypdfium2 paired with the next line's first word when
  that word is another column's (a stacked header read row by row: "Non-" + "preferred", the
  cell's rest "controlling" ending that line; `_breaks_paired_across_columns`) counts as
  found, with that rest, when the output holds the paired word alone and "Non-controlling".
  A line that is one number alone (a folio) does not take a line-end hyphen of a word part
  ending in lower case: the word goes on after it ("year-on-" / "31" / "year"). A word broken
  at the end of a page (pdfium may also pair it with the folio, "e" U+0002 "3") is joined with
  the first of the next page's first 3 lines that starts in lower case, and counts on its page.
- Per page, the reference words are matched against the multiset of words of the page's elements:
  element texts (titles, paragraphs, list items, captions, headers, footers, page numbers, rotated
  text) and table cells; a table continued across pages serves every page it spans.
- Every reference word left unmatched is LOST. Lost words are then explained, in this order, by
  the output's extra words (those the text layer lacks), compared by `squeeze` (punctuation,
  symbols and hyphens ignored, so "of“large" ~ "of" + "large"):
  hyphen: a word whose hyphen is missing in an extra ("non-normal" -> "nonnormal");
  glued: an extra made of 2-5 consecutive lost words ("ofthe"), or of 6-20 one-letter words
      (a word pypdfium2 spaces letter by letter); its words stay lost, the token is
      counted once in `glued`, and in `glued_fn` when one of its words is a function word;
  split: a lost word equal to 2-4 consecutive extras (a space inside a word: "COVID- 19", "확 진자");
  marker: a word found only in a list item's `data["marker"]` (not in the text a chunk embeds);
  offpage: a word pypdfium2 reads outside the page's visible box (its glyph box is);
  recorded: a word of a drop the parser recorded on that page with its reason
      (`PageInfo.dropped` samples: margin line numbers, a continued table's repeated header;
      off-page drops are left to `offpage`), taken before any output word is matched;
  dropped: the rest, text that reached no element at all.
  `unaccounted` = lost - offpage - recorded: the words the invariant says must be none.
- Second reader: pdftotext (poppler, when installed) decides word boundaries pypdfium2 gets
  wrong. A glued token it reads as one word, or a split word whose parts it reads as
  consecutive words, leaves `lost` for `second` (pypdfium2 runs words together across a font
  change, "Expensessection", breaks one at a font change, or spaces a page letter by letter,
  "T a b l e"). A glued function word is never excused this way unless its parts are single
  letters. Without pdftotext nothing is excused.
- Pages the parser routes to OCR (`PageInfo.ocr_reason`: OCR'd, emptied as glyph garbage, or an
  OCR layer of garbage it keeps only in "never" mode) are excluded (listed in `excluded_pages`).
"""

from __future__ import annotations

import argparse
import builtins
import functools
import itertools
import json
import os
import re
import shutil
import sys
import tempfile
import unicodedata
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from text_layer_glyphs import is_superscript_boundary, page_glyphs, page_texts  # noqa: E402, F401 - a sibling script

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DEFAULT_GLOBS = ("corpus/*.pdf", "bench/*/*.pdf")
BREAK = "\ufffe"  # a line-end hyphen inside a reference word (pdfium's own mark for it)
_FUNCTION_WORDS = (
    "a an the of in on at to for from by with as if or and nor but not no is are was were be been it its "
    "this that these those we our you your he she they their his her than then so into upon per"
)
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS.split())
_LINE_END_HYPHENS = ("-", "\u00ad", "\u0002", BREAK)
_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u200e\u200f\u2060\ufeff"), None)
#: Whitespace before a combining mark; the look-behind starts a match only at the start of a
#: run of whitespace (without it a page of blanks, the off-page text, costs quadratic time).
_SPACE_BEFORE_MARK = re.compile(
    r"(?<!\s)\s+(?=[\u0300-\u036f\u064b-\u065f\u0670\u0900-\u0903\u093a-\u094d\u0951-\u0957\u0962\u0963])"
)
#: Arabic vowel marks (harakat, tanween, shadda): optional, and set before or after their letter
#: as the producer ordered them ("بناًء" / "بًناء"); words compare without them.
_HARAKAT = re.compile(r"[\u064b-\u065f\u0670]")
#: Where Arabic script meets Latin inside a token ("وPython"): two bidi runs, a word boundary.
_ARABIC_LATIN = re.compile(r"(?<=[\u0600-\u06ff])(?=[A-Za-z])|(?<=[A-Za-z])(?=[\u0600-\u06ff])")
_LINES = re.compile(r"\r\n|\r|\n")
_CJK = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff])")


def _is_edge_junk(char: str) -> bool:
    """Punctuation, symbols and private-use glyphs (bullets of symbol fonts) are no word."""
    category = unicodedata.category(char)
    return category[0] in "PS" or category == "Co"


@functools.cache
def normalize_word(token: str) -> str:
    """One token as a comparable word (see the module docstring); "" when nothing is left."""
    token = unicodedata.normalize("NFKC", token).translate(_INVISIBLE)
    start, end = 0, len(token)
    while start < end and _is_edge_junk(token[start]):
        start += 1
    while end > start and _is_edge_junk(token[end - 1]):
        end -= 1
    word = _HARAKAT.sub("", token[start:end])
    if any("\u0900" <= c <= "\u097f" for c in word):
        return "".join(sorted(word))
    return word


def _prepare(text: str) -> str:
    """NFKC, pdfium's U+0002 hyphen as `BREAK`, no space before a combining mark (Arabic
    harakat included), a space where Arabic script meets Latin, and every Han/kana character
    set apart as a word of its own (those scripts put no spaces)."""
    text = unicodedata.normalize("NFKC", text).replace("\u0002", BREAK)
    return _CJK.sub(r" \1 ", _ARABIC_LATIN.sub(" ", _SPACE_BEFORE_MARK.sub("", text)))


def output_words(text: str) -> list[str]:
    """Words of parser output (no hyphen pairing: the parser has already joined its lines)."""
    return [w for w in map(normalize_word, _prepare(text).split()) if w]


def reference_words(text: str) -> list[str]:
    """Words of a page's text layer in order, line-end hyphenation joined with `BREAK`."""
    lines = [line.split() for line in _LINES.split(_prepare(text))]
    lines = [line for line in lines if line]
    tokens: list[str] = []
    carry = ""
    for line in lines:
        line = list(line)
        if carry and not (carry[-1:].islower() and _is_folio(line)):
            line[0] = carry + BREAK + line[0]
            carry = ""
        last = line[-1]
        if last.endswith(_LINE_END_HYPHENS) and len(last) > 1 and last[-2].isalnum() and not carry and last[0] != "-":
            carry = line.pop().rstrip("".join(_LINE_END_HYPHENS))
        tokens.extend(line)
    if tokens and not carry:  # pdfium's own mark may pair the last word with the folio: "e\ufffe3"
        left, _, right = tokens[-1].rpartition(BREAK)
        if right.isdigit() and left[-1:].islower():
            tokens[-1:], carry = [right], left
    if carry:
        tokens.append(carry + BREAK)  # a page-end fragment (`pages_joined_at_breaks`)
    return [w for w in map(_reference_word, tokens) if w]


def _is_folio(line: list[str]) -> bool:
    """A line that is one number alone (a page number): a word broken at the line before it
    (its part ending in a lower-case letter: "2013-" / "2014" is a range) goes on after it,
    on the next line or the next page."""
    return len(line) == 1 and line[0].isdigit()


#: A word broken at the end of a page goes on in the first of the next page's first this many
#: lines that starts in lower case (a running header may come first).
NEXT_PAGE_LINES = 3


def line_starts(text: str) -> list[str]:
    """The first word of each of the first `NEXT_PAGE_LINES` lines of a page's text."""
    lines = [line.split() for line in _LINES.split(_prepare(text))]
    return [normalize_word(line[0]) for line in lines if line][:NEXT_PAGE_LINES]


def pages_joined_at_breaks(pages: list[list[str]], starts: list[list[str]]) -> list[list[str]]:
    """Page-end fragments ("e" + BREAK, a word hyphenated across the page break) joined with
    their rest, the first word starting one of the next page's first lines (`line_starts`)
    in lower case: the whole word counts on the page where it starts, and the rest leaves the
    next page. A fragment with no such rest is a word of its own."""
    pages = [list(words) for words in pages]
    for index, words in enumerate(pages):
        if not words or not words[-1].endswith(BREAK):
            continue
        left = words[-1][: -len(BREAK)]
        following = pages[index + 1] if index + 1 < len(pages) else []
        rest = next((w for w in (starts[index + 1] if following else []) if w[:1].islower()), None)
        if rest is None or rest not in following:
            words[-1] = left
        else:
            following.remove(rest)
            words[-1] = left + BREAK + rest
    return pages


def _reference_word(token: str) -> str:
    if token.endswith(BREAK) and BREAK not in token[:-1]:
        left = normalize_word(token[:-1])
        return left + BREAK if left else ""
    if BREAK not in token.strip(BREAK):
        return normalize_word(token.replace(BREAK, "-"))
    left, right = token.split(BREAK, 1)
    left, right = normalize_word(left), normalize_word(right.replace(BREAK, ""))
    return f"{left}{BREAK}{right}" if left and right else left or right


def is_compound_break(word: str, compounds: set[str]) -> bool:
    """A line-end hyphen that belongs to the word: the hyphenated spelling occurs inside a line
    elsewhere in the document (`compounds`), or the part before it ends in a capital or a
    digit ("FAA-" + "approved", "COVID-" + "19"). Without a lexicon other breaks are taken as
    hyphenation, so hyphen loss is a lower bound."""
    left, right = word.split(BREAK, 1)
    return f"{left}-{right}" in compounds or left[-1:].isupper() or left[-1:].isdigit()


@functools.cache
def squeeze(word: str) -> str:
    """A word without any punctuation, symbol or hyphen mark: the key under which glued, split
    and de-hyphenated spellings are recognised ("of“large" ~ "of" + "large"). A filter per
    character, so the key of consecutive words is the concatenation of their keys."""
    return "".join(c for c in word if c != BREAK and not _is_edge_junk(c))


def _windows(words: list[str], low: int, high: int, wanted: set[str]) -> dict[str, list[tuple[str, ...]]]:
    """`squeeze` of `low`..`high` consecutive words, no word holding `BREAK`, -> the word tuples
    that make it, in order of their first word and then length; only keys in `wanted` (the
    keys a caller will look up) are kept, so a page costs one concatenation per window."""
    keys = [squeeze(w) for w in words]
    found: dict[str, list[tuple[str, ...]]] = {}
    for i in range(len(words)):
        key = ""
        for j in range(i, min(i + high, len(words))):
            if BREAK in words[j]:
                break
            key += keys[j]
            if j - i + 1 >= low and key in wanted:
                found.setdefault(key, []).append(tuple(words[i : j + 1]))
    return found


#: A word pypdfium2 reads letter by letter ("l i a b i l i t i e s") may be this long.
MAX_SPELLED_OUT = 20


def _letter_runs(words: list[str], wanted: set[str]) -> dict[str, list[tuple[str, ...]]]:
    """`squeeze` of 6..`MAX_SPELLED_OUT` consecutive one-character words -> their tuples (keys
    in `wanted` only): the longer glued tokens of a page that pypdfium2 spaces letter by letter."""
    keys = [squeeze(w) for w in words]
    single = [len(w) == 1 and BREAK not in w for w in words]
    found: dict[str, list[tuple[str, ...]]] = {}
    for i in range(len(words) - 5):
        if not all(single[i : i + 6]):
            continue
        key = "".join(keys[i : i + 5])
        for j in range(i + 5, min(i + MAX_SPELLED_OUT, len(words))):
            if not single[j]:
                break
            key += keys[j]
            if key in wanted:
                found.setdefault(key, []).append(tuple(words[i : j + 1]))
    return found


#: The word lists of a `PageResult`: every lost word, then the buckets that explain them.
CATEGORIES = ("lost", "dropped", "glued", "hyphen", "split", "marker", "offpage", "recorded", "second")


@dataclass
class PageResult:
    words: int = 0
    lost: list[str] = field(default_factory=list)
    glued: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    hyphen: list[str] = field(default_factory=list)
    split: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    marker: list[str] = field(default_factory=list)
    offpage: list[str] = field(default_factory=list)
    recorded: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    second: list[str] = field(default_factory=list)


class _Pool:
    """The output words a page may draw on: its own, then those of tables spanning it."""

    def __init__(self, own: Counter, shared: list[Counter]):
        self.counters = [own, *shared]

    def count(self, word: str) -> int:
        return sum(c[word] for c in self.counters)

    def take(self, *words: str) -> bool:
        need = Counter(words)
        if any(self.count(w) < n for w, n in need.items()):
            return False
        for word in words:
            next(c for c in self.counters if c[word] > 0)[word] -= 1
        return True


def compare_page(
    reference: list[str],
    output: list[str],
    *,
    markers: list[str] = (),
    offpage: list[str] = (),
    recorded: list[str] = (),
    shared: list[Counter] = (),
    compounds: set[str] = frozenset(),
    second: list[str] | None = None,
    cell_breaks: set[str] = frozenset(),
    column_breaks: set[tuple[str, str]] = frozenset(),
) -> PageResult:
    """Match one page's reference words against its output words (see the module docstring).

    `output` is in reading order (used for `split`); `shared` counters (tables continued from
    or onto this page) are consumed in place. `second`: pdftotext's words of the page in order;
    a glued or split word on which it reads as the output does is moved to `second`.
    `cell_breaks`: words the text layer ends with a hyphen inside a line (`mid_line_breaks`).
    `column_breaks`: line-end breaks with the last word of their line (`breaks_to_line_ends`).
    `recorded`: the words of the drops the parser recorded on the page; they are taken first
    (lost, and `recorded`), before any output word: an output word they matched could be one
    that another page of a shared table needs."""
    pool = _Pool(Counter(output), list(shared))
    result = PageResult(words=len(reference))
    lost: list[str] = []
    kept_out = Counter(recorded)
    for word in reference:
        if kept_out[word] > 0:
            kept_out[word] -= 1
            result.recorded.append(word)
            continue
        if BREAK in word:
            left, right = word.split(BREAK, 1)
            if pool.take(f"{left}-{right}") or (not is_compound_break(word, compounds) and pool.take(left + right)):
                continue
        elif pool.take(word):
            continue
        lost.append(word)
    extras = [w for w in dict.fromkeys([*output, *(w for counter in shared for w in counter)]) if pool.count(w)]
    if cell_breaks:
        lost = _joined_across_cells(lost, extras, pool, cell_breaks)
        extras = [w for w in extras if pool.count(w)]
    if column_breaks:
        lost = _breaks_paired_across_columns(lost, pool, column_breaks)
        extras = [w for w in extras if pool.count(w)]
    by_key: dict[str, list[str]] = {}
    for word in extras:
        by_key.setdefault(squeeze(word), []).append(word)
    rest: list[str] = []
    for word in lost:
        hyphens = word.replace(BREAK, "-").count("-")
        fewer = [e for e in by_key.get(squeeze(word), ()) if e.count("-") < hyphens and pool.count(e)]
        if fewer and pool.take(fewer[0]):
            result.hyphen.append(word)
        else:
            rest.append(word)
    remaining = Counter(rest)
    wanted = {squeeze(token) for token in extras}
    windows = _windows(reference, 2, 5, wanted)
    for key, parts in _letter_runs(reference, wanted).items():
        windows.setdefault(key, []).extend(parts)
    for token in extras:
        for parts in windows.get(squeeze(token), ()):
            need = Counter(parts)
            while pool.count(token) and all(remaining[w] >= n for w, n in need.items()):
                pool.take(token)
                remaining.subtract(need)
                result.glued.append((token, parts))
    out_windows = _windows(output, 2, 4, {squeeze(word) for word in remaining})
    for word in list(remaining.elements()):
        parts = next((p for p in out_windows.get(squeeze(word), ()) if pool.take(*p)), None)
        if parts:
            remaining[word] -= 1
            result.split.append((word, parts))
    marker_pool, off_pool = Counter(markers), Counter(offpage)
    for word in remaining.elements():
        if marker_pool[word] > 0:
            marker_pool[word] -= 1
            result.marker.append(word)
        elif off_pool[word] > 0:
            off_pool[word] -= 1
            result.offpage.append(word)
        else:
            result.dropped.append(word)
    result.lost = lost + result.recorded
    if second is not None:
        _second_opinion(result, second)
    return result


def mid_line_breaks(text: str) -> set[str]:
    """Words of a page's text layer that end in a hyphen after a letter inside a line, not at
    its end: a word a table cell breaks at its own line end, read by pypdfium2 side by side
    with the next cells of its row ("Number of Weighted- Number of securities" / "securities to
    be average exercise ...", 3M p130), so its rest stands on the next line among other words."""
    found = set()
    for line in _LINES.split(_prepare(text)):
        tokens = line.split()
        for token in tokens[:-1]:
            if len(token) > 1 and token.endswith("-") and token[-2].isalpha():
                found.add(normalize_word(token))
    return found


def _joined_across_cells(lost: list[str], extras: list[str], pool: _Pool, cell_breaks: set[str]) -> list[str]:
    """`lost` less the pairs that an output word joins at a hyphen: "left-right" where "left" is
    one of the `cell_breaks` and both parts are lost (the parser joined the cell's lines, as
    the document prints the word: "Weighted-average"); the output word is taken from `pool`."""
    remaining = Counter(lost)
    for token in extras:
        for index in (i for i, char in enumerate(token) if char == "-" and token[:i] in cell_breaks):
            need = Counter((token[:index], token[index + 1 :]))
            while all(remaining[word] >= n for word, n in need.items()) and pool.take(token):
                remaining.subtract(need)
    return _without(lost, Counter(lost) - remaining)


def breaks_to_line_ends(text: str) -> set[tuple[str, str]]:
    """(break, last) pairs of a page's text: each word broken at a line end, spelled as
    `reference_words` spells it ("Non" BREAK "preferred"), with the last word of the line
    it goes on in ("controlling"). pdfium drops the line break after its own hyphen mark, so
    the word's two parts may stand in one of its lines ("Non\ufffepreferred Common ...")."""
    lines = [line.split() for line in _LINES.split(_prepare(text))]
    lines = [line for line in lines if line]
    pairs = set()
    for index, line in enumerate(lines):
        for token in line[:-1]:
            if BREAK in token.strip(BREAK):
                pairs.add((_reference_word(token), normalize_word(line[-1])))
        after = lines[index + 1] if index + 1 < len(lines) else []
        if len(after) >= 2 and line[-1].endswith(_LINE_END_HYPHENS) and len(line[-1]) > 1:
            pairs.add(
                (
                    _reference_word(line[-1].rstrip("".join(_LINE_END_HYPHENS)) + BREAK + after[0]),
                    normalize_word(after[-1]),
                )
            )
    return {(word, last) for word, last in pairs if BREAK in word and last}


def _breaks_paired_across_columns(lost: list[str], pool: _Pool, column_breaks: set[tuple[str, str]]) -> list[str]:
    """`lost` less the line-end breaks pypdfium2 paired with another column's word, and their
    rests: pypdfium2 reads a stacked header row by row, so the last cell's line-end "Non-"
    is joined with the next line's first word, the first column's ("Non" BREAK "preferred"),
    while the cell's own rest ends that line ("controlling", CORNING 2022 p62, 3M 2018 p59).
    A break and the last word of its line (`column_breaks`, `breaks_to_line_ends`), both
    lost, count as found when the output holds the paired word alone ("preferred") and the
    two parts joined at the printed hyphen ("Non-controlling"); both are taken from `pool`.
    Only the line's last word: an output that joined "Non-" with another column's word
    ("Non-shareholders") loses it."""
    remaining = Counter(lost)
    for word, last in sorted(column_breaks):
        left, right = word.split(BREAK, 1)
        need = Counter((word, last))
        while all(remaining[w] >= n for w, n in need.items()) and pool.take(right, f"{left}-{last}"):
            remaining.subtract(need)
    return _without(lost, Counter(lost) - remaining)


def _without(words: list[str], found: Counter) -> list[str]:
    """`words` in order, less as many of each as `found` counts (the first ones)."""
    found = Counter(found)
    kept: list[str] = []
    for word in words:
        if found[word] > 0:
            found[word] -= 1
        else:
            kept.append(word)
    return kept


def _second_opinion(result: PageResult, second: list[str]) -> None:
    """Move to `result.second` the glued tokens that pdftotext reads as one word and the split
    words that it breaks at least where the output does (as consecutive words, 2-5 of them:
    "X" "x" "Rd.,Hangzhou,China" agrees with the output's "Xx" "Rd.,Hangzhou,China", pr-136 p1):
    there pypdfium2's word boundary, not the parser's, is the odd one out (it runs words together
    across a font change or a line of another column, "Expensessection", "제1695호발행일", breaks
    one at a font change, "carlson}" "@fas.harvard.edu", or spaces a page letter by letter,
    "T a b l e o f"). Their words leave `lost`; a glued function word stays unless its parts are
    single letters."""
    whole = {squeeze(w) for w in second}
    runs = _windows(second, 2, 5, {squeeze(word) for word, _ in result.split})
    agreed: list[str] = []

    def glued_alike(token: str, parts: tuple[str, ...]) -> bool:
        """Never a glued function word, unless pdfium read the word letter by letter ("a n d")."""
        spelled_out = all(len(p) == 1 for p in parts)
        return squeeze(token) in whole and (spelled_out or not any(p.casefold() in FUNCTION_WORDS for p in parts))

    def split_alike(word: str, parts: tuple[str, ...]) -> bool:
        cuts = _cuts(parts)
        return any(cuts <= _cuts(run) for run in runs.get(squeeze(word), ()))

    for bucket, agrees in (("glued", glued_alike), ("split", split_alike)):
        kept = []
        for item in getattr(result, bucket):
            if agrees(*item):
                result.second.append(item[0])
                agreed.extend(item[1] if bucket == "glued" else [item[0]])
            else:
                kept.append(item)
        setattr(result, bucket, kept)
    unmatched = Counter(agreed)
    lost = []
    for word in result.lost:
        if unmatched[word] > 0:
            unmatched[word] -= 1
        else:
            lost.append(word)
    result.lost = lost


def _cuts(parts: tuple[str, ...]) -> set[int]:
    """Where consecutive words break their `squeeze`d concatenation: character offsets."""
    offsets = list(itertools.accumulate(len(squeeze(part)) for part in parts))
    return set(offsets[:-1])


def glued_function_words(glued: list[tuple[str, tuple[str, ...]]]) -> int:
    """Glued tokens with a function word among their parts ("ofthe", "ofregistrant")."""
    return sum(1 for _, parts in glued if any(p.casefold() in FUNCTION_WORDS for p in parts))


def inline_compounds(pages: list[list[str]]) -> set[str]:
    """Hyphenated words printed inside a line anywhere in the document ("non-normal")."""
    return {w for words in pages for w in words if BREAK not in w and "-" in w.strip("-")}


def document_outputs(document, page_count: int) -> tuple[list[list[str]], list[list[str]], list[list[Counter]]]:
    """Per page (index 0 = page 1): output words in reading order, list-marker words, and the
    shared counters of tables spanning several pages."""
    words: list[list[str]] = [[] for _ in range(page_count)]
    markers: list[list[str]] = [[] for _ in range(page_count)]
    shared: list[list[Counter]] = [[] for _ in range(page_count)]
    for element in document.elements:
        if element.rows is not None:
            text = "\n".join(cell for row in element.rows for cell in row)
        else:
            text = element.text
        found = output_words(text)
        last = element.page_end or element.page
        if last > element.page:
            counter = Counter(found)
            for page in range(element.page, min(last, page_count) + 1):
                shared[page - 1].append(counter)
        elif element.page <= page_count:
            words[element.page - 1].extend(found)
        extra = element.data.get("extra") if isinstance(element.data.get("extra"), dict) else {}
        marker = element.data.get("marker") or extra.get("marker")
        if marker and element.page <= page_count:
            markers[element.page - 1].extend(output_words(str(marker)))
    return words, markers, shared


def read_pdftotext(path: str, count: int) -> list[list[str]] | None:
    """Per page, pdftotext's words (poppler, raw order), or None when it is not installed."""
    import subprocess

    if not shutil.which("pdftotext"):
        return None
    done = subprocess.run(["pdftotext", "-enc", "UTF-8", path, "-"], capture_output=True, check=False)
    pages = done.stdout.decode("utf-8", "replace").split("\f")
    return [output_words(pages[i]) if i < len(pages) else [] for i in range(count)]


def read_text_layer(path: str) -> tuple[list[str], list[str]]:
    """Per page: the reference text (`text_layer_glyphs.page_texts`: pypdfium2's text,
    superscripts set apart, rebuilt from glyph positions on a page it reads one glyph per line),
    and its words drawn only outside the visible box."""
    import pypdfium2 as pdfium

    texts, outside = [], []
    document = pdfium.PdfDocument(path)
    try:
        for index in range(len(document)):
            page = document[index]
            textpage = page.get_textpage()
            text, away = page_texts(page_glyphs(textpage, page.get_bbox()))
            outside.append(" ".join(reference_words(away)))
            texts.append(text)
            textpage.close()
            page.close()
    finally:
        document.close()
    return texts, outside


def first_pages_copy(path: str, max_pages: int) -> str | None:
    """A temporary PDF of the first `max_pages` pages, or None when the file is not longer."""
    import pypdfium2 as pdfium

    source = pdfium.PdfDocument(path)
    try:
        if not max_pages or len(source) <= max_pages:
            return None
        cut = pdfium.PdfDocument.new()
        cut.import_pages(source, list(range(max_pages)))
        handle, tmp = tempfile.mkstemp(suffix=".pdf")
        os.close(handle)
        cut.save(tmp)
        cut.close()
        return tmp
    finally:
        source.close()


def measure_file(path: str, max_pages: int = 0, examples: int = 10) -> dict:
    """Parse `path` once (OCR off) and compare every text-layer page with its elements."""
    from ingest.contracts.elements import DropReason
    from parsers import parse_pdf

    cut = first_pages_copy(path, max_pages)
    try:
        document = parse_pdf(cut or path, {"ocr": {"mode": "never"}})
        texts, outside = read_text_layer(cut or path)
        second = read_pdftotext(cut or path, len(texts))
    finally:
        if cut:
            os.unlink(cut)
    count = len(texts)
    reference = pages_joined_at_breaks([reference_words(t) for t in texts], [line_starts(t) for t in texts])
    compounds = inline_compounds(reference)
    words, markers, shared = document_outputs(document, count)
    totals = Counter()
    samples: dict[str, list] = {k: [] for k in CATEGORIES[1:]}
    excluded = []
    for index, info in enumerate(document.pages[:count]):
        if info.ocr_reason:  # OCR'd, or would be in "auto": its text layer is not what the parser keeps
            excluded.append(index + 1)
            continue
        offpage = output_words(outside[index])
        recorded = output_words(" ".join(d.sample for d in info.dropped if d.reason != DropReason.off_page))
        result = compare_page(reference[index], words[index], markers=markers[index], offpage=offpage,
                              recorded=recorded, shared=shared[index], compounds=compounds,
                              second=second[index] if second else None,
                              cell_breaks=mid_line_breaks(texts[index]),
                              column_breaks=breaks_to_line_ends(texts[index]))  # fmt: skip
        totals.update({k: len(getattr(result, k)) for k in CATEGORIES})
        totals.update(pages=1, words=result.words, glued_fn=glued_function_words(result.glued))
        for key, found in samples.items():
            for item in getattr(result, key)[: max(examples - len(found), 0)]:
                shown = item if isinstance(item, str) else f"{item[0]} <- {' '.join(item[1])}"
                found.append([index + 1, shown.replace(BREAK, "-")])
    row = {"file": str(path), "excluded_pages": excluded}
    row.update({k: totals[k] for k in ("pages", "words", "glued_fn", *CATEGORIES)})
    row["unaccounted"] = totals["lost"] - totals["offpage"] - totals["recorded"]
    row["lost_pct"] = round(100 * totals["lost"] / totals["words"], 2) if totals["words"] else 0.0
    row["examples"] = samples
    return row


def _measure_or_error(path: str, max_pages: int, examples: int) -> dict | str:
    """`measure_file`'s row, or the error that stopped it as one line: one unreadable file must
    not stop the measurement."""
    try:
        return measure_file(path, max_pages, examples)
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__}: {error}"


COLUMNS = ("pages", "words", "lost", "lost_pct", "unaccounted", "dropped", "glued", "glued_fn")
COLUMNS += ("hyphen", "split", "marker", "offpage", "recorded", "second")


def format_rows(rows: list[dict]) -> str:
    """A Markdown table, one row per file and a total row."""
    lines = ["| file | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    total = Counter()
    for row in rows:
        name = Path(row["file"]).parent.name + "/" + Path(row["file"]).name
        lines.append(f"| {name} | " + " | ".join(str(row[c]) for c in COLUMNS) + " |")
        total.update({c: row[c] for c in COLUMNS if c != "lost_pct"})
    total["lost_pct"] = round(100 * total["lost"] / total["words"], 2) if total["words"] else 0.0
    lines.append("| **total** | " + " | ".join(str(total[c]) for c in COLUMNS) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="PDF files (default: ../shared/corpus and ../shared/bench/*)")
    parser.add_argument("--max-pages", type=int, default=0, help="only the first N pages of longer files (0 = all)")
    parser.add_argument("--json", help="write the per-file results (with examples) to this file")
    parser.add_argument("--examples", type=int, default=0, help="print this many examples per category and file")
    parser.add_argument("--jobs", type=int, default=1, help="measure this many files at once, a process each")
    args = parser.parse_args(argv)
    if not shutil.which("pdftotext"):
        print(
            "text_fidelity: pdftotext not found (Debian poppler-utils, installed by ./install.sh --dev): "
            "no second reader, so pypdfium2's own word-boundary faults count as lost or glued words",
            file=sys.stderr,
        )
    defaults = [str(p) for pattern in DEFAULT_GLOBS for p in sorted(SHARED.glob(pattern))]
    paths = args.paths or defaults
    jobs = [(path, args.max_pages, max(args.examples, 10)) for path in paths]
    with ProcessPoolExecutor(args.jobs) if args.jobs > 1 else nullcontext() as pool:
        outcomes = (pool or builtins).map(_measure_or_error, *zip(*jobs))  # rows in input order, as they come
        rows = []
        for path, outcome in zip(paths, outcomes):
            if isinstance(outcome, str):
                print(f"{path}: {outcome}", file=sys.stderr)
                continue
            rows.append(outcome)
            shown = {k: v[: args.examples] for k, v in outcome["examples"].items() if v and args.examples}
            if shown:
                print(f"{path}: {json.dumps(shown, ensure_ascii=False)}", file=sys.stderr, flush=True)
    print(format_rows(rows))
    if args.json:
        report = {"max_pages": args.max_pages, "files": rows}
        Path(args.json).write_text(json.dumps(report, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
