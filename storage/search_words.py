"""The question's words, for full-text search on either engine (`storage.search`): stop words per
language, the search terms of a question, and the words that name a document.

Pure functions, no database: SQLite quotes the terms into an FTS5 MATCH expression, PostgreSQL
passes each through `plainto_tsquery`; both start from `question_to_terms`, so a question means
the same words on both engines.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from pathlib import PurePath

ENGLISH_STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers him his how i if in into is it its itself just me more
    most my no nor not now of off on once only or other our ours out over own same she should so
    some such than that the their theirs them then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you
    your yours tell know need want please much many get got give us
    """.split()
)

#: Hindi function words: postpositions, auxiliaries, pronouns, question words.
HINDI_STOPWORDS = frozenset(
    """
    का की के को में से पर है हैं था थी थे और या भी तो ही कि क्या कौन कैसे कब कहाँ कहां कितना कितनी
    कितने यह वह ये वे इस उस इन उन एक लिए मुझे हम आप किस किसे होता होती होते हो
    """.split()
)

#: Marathi function words.
MARATHI_STOPWORDS = frozenset(
    """
    आहे आहेत व आणि चा ची चे ला ना त मध्ये साठी काय कोण कसे कधी कुठे किती हा ही हे तो ते
    """.split()
)

#: Stop words per language code (the codes `chunks.language` uses).
STOPWORDS: dict[str, frozenset[str]] = {"en": ENGLISH_STOPWORDS, "hi": HINDI_STOPWORDS, "mr": MARATHI_STOPWORDS}


def word_language(word: str) -> str:
    """`en` for a word with Latin letters, `deva` for Devanagari, `other` otherwise (digits, other scripts)."""
    for ch in word:
        if "\u0900" <= ch <= "\u097f":
            return "deva"
        if ch.isascii() and ch.isalpha():
            return "en"
    return "other"


def is_stopword(word: str) -> bool:
    """A word is dropped when it is a stop word of a language written in its script
    (English for Latin words; Hindi or Marathi for Devanagari ones)."""
    script = word_language(word)
    if script == "en":
        return word in STOPWORDS["en"]
    if script == "deva":
        return word in STOPWORDS["hi"] or word in STOPWORDS["mr"]
    return False


#: The number inside a word that joins letters and digits ("fy2022", "q4fy23", "covid19"): a run
#: of at least NUMBER_PART_MIN_DIGITS digits. Shorter runs ("q4", "2ml", "3m") are not searched alone:
#: one digit matches every list number and amount.
NUMBER_PART_MIN_DIGITS = 2
NUMBER_PART = re.compile(rf"(?<!\d)\d{{{NUMBER_PART_MIN_DIGITS},}}(?!\d)")


def number_parts(word: str) -> list[str]:
    """The numbers of at least NUMBER_PART_MIN_DIGITS digits inside a word that also has letters
    ("fy2022" -> ["2022"]); [] for a plain word or a plain number.

    The tokenizer keeps "FY2022" one token, and a filing writes "2022" or "fiscal 2022": a question's
    "FY2022" then matched nothing. Searched besides the word itself (a document that writes "FY2022"
    still matches it whole)."""
    if word.isdigit() or not any(ch.isdigit() for ch in word):
        return []
    return NUMBER_PART.findall(word)


def question_to_terms(question: str) -> list[str]:
    """The question's search words in order, unique, case-folded, without punctuation, symbols or stop words.

    Characters of Unicode categories P* (punctuation), S* (symbols) and Z* (separators)
    become spaces; letters, digits and combining marks (Devanagari vowel signs) are kept, so
    `2ml?` gives `2ml` and `किसानों` stays one word. A word joining letters and a number of two
    digits or more is followed by that number (`number_parts`: `FY2022` gives `fy2022`, `2022`).
    If every word is a stop word, the words are kept anyway: a question must search for something.
    """
    cleaned = "".join(
        " " if unicodedata.category(ch)[0] in "PSZ" else ch for ch in unicodedata.normalize("NFC", question).casefold()
    )
    unique = list(dict.fromkeys(cleaned.split()))
    terms = [word for word in unique if not is_stopword(word)] or unique
    return list(dict.fromkeys(part for word in terms for part in (word, *number_parts(word))))


def document_name_words(title: str | None, source_path: str | None) -> frozenset[str]:
    """The words that name a document: its title's and its file stem's, case-folded, stop words out
    (`VERIZON_2021_10K.pdf`, title "UNITED STATES SECURITIES ..." -> verizon, 2021, 10k, united, ...)."""
    stem = PurePath(source_path).stem if source_path else ""
    return frozenset(question_to_terms(f"{title or ''} {stem.replace('_', ' ')}")) - {""}


def name_matches(terms: Sequence[str], names: Mapping[str, frozenset[str]]) -> dict[str, int]:
    """Per document, how many question terms name it. A term found in every document's name
    (e.g. "manual" in a folder of manuals) names none; a term matches a name word when equal,
    or when one is a prefix of the other and the shorter has at least 4 letters (plurals)."""

    def hit(term: str, words: frozenset[str]) -> bool:
        return any(
            term == word or min(len(term), len(word)) >= 4 and (term.startswith(word) or word.startswith(term))
            for word in words
        )

    counts = {doc: 0 for doc in names}
    for term in terms:
        named = [doc for doc, words in names.items() if hit(term, words)]
        if len(named) < len(names):
            for doc in named:
                counts[doc] += 1
    return counts
