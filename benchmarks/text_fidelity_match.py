"""One page's reference words matched against its output words: the lost words and the buckets
that explain them; `text_fidelity.py`'s docstring states the rules (from "Per page")."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass, field

from text_fidelity_words import BREAK, FUNCTION_WORDS, is_compound_break, letter_runs, squeeze, word_windows

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
    windows = word_windows(reference, 2, 5, wanted)
    for key, parts in letter_runs(reference, wanted).items():
        windows.setdefault(key, []).extend(parts)
    for token in extras:
        for parts in windows.get(squeeze(token), ()):
            need = Counter(parts)
            while pool.count(token) and all(remaining[w] >= n for w, n in need.items()):
                pool.take(token)
                remaining.subtract(need)
                result.glued.append((token, parts))
    out_windows = word_windows(output, 2, 4, {squeeze(word) for word in remaining})
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
    runs = word_windows(second, 2, 5, {squeeze(word) for word, _ in result.split})
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
