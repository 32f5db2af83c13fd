"""The English lexicon, shared by the passes that need to know whether a string is a word.

Two passes ask: `text_joins` (is "re-" + "quired" one word, or "third-party" a compound?) and
`ocr.routing` (is an invisible text layer over a scan plausible text, or another OCR engine's
garbage?). One lexicon, loaded once per process on the first question (~0.15 s).
"""

from __future__ import annotations

import functools

#: Regular inflections stripped to find a lexicon stem ("requirements", "applied").
_SUFFIXES = ("s", "es", "ed", "d", "ing", "ly", "er", "ers", "ies")
#: Letters a stem keeps at least once a suffix is stripped: "bed" is no "b" + "ed".
_MIN_STEM = 3


def is_english_word(word: str) -> bool:
    """`word` (lower case) is in the lexicon as it is or without a regular inflection."""
    words = english_lexicon()
    if word in words:
        return True
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= _MIN_STEM:
            stem = word[: -len(suffix)]
            if stem in words or (suffix == "ies" and stem + "y" in words) or stem + "e" in words:
                return True
    return False


@functools.cache
def english_lexicon() -> frozenset[str]:
    """English words, lower case, compounds with their hyphen (GCIDE, ~115,000 words with
    inflected forms, from the `english-words` package, a dependency: nothing is downloaded)."""
    from english_words import get_english_words_set

    return frozenset(get_english_words_set(["gcide"], lower=True))
