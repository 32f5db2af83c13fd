"""The words `text_fidelity.py` compares: the text layer's (the reference) and the parser's (the
output), normalised alike; its docstring states the rules ("Words", "Lines of the text layer")."""

from __future__ import annotations

import functools
import re
import unicodedata

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


def word_windows(words: list[str], low: int, high: int, wanted: set[str]) -> dict[str, list[tuple[str, ...]]]:
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


def letter_runs(words: list[str], wanted: set[str]) -> dict[str, list[tuple[str, ...]]]:
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


def inline_compounds(pages: list[list[str]]) -> set[str]:
    """Hyphenated words printed inside a line anywhere in the document ("non-normal")."""
    return {w for words in pages for w in words if BREAK not in w and "-" in w.strip("-")}
