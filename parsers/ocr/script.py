"""A page OCR read at low confidence: which script is it in, and which `--ocr-lang` would read it?

Tesseract reads whatever it is given in the languages it was asked for: a Chinese page read
with `eng` comes back as Latin garbage ("KES THA FB AT") at a mean word confidence near 37,
and nothing else says the text is wrong. Below `LOW_CONFIDENCE`, the page's script is asked
of Tesseract's orientation and script detection (`--psm 0`, the `osd` traineddata that the
`tesseract-ocr` package installs; ~3-8 s a page, spent only on such pages; the call is
`tesseract.image_to_script`), and
`low_confidence_warning` names the page, the confidence and the language pack that reads
that script when the configured languages do not.
"""

from __future__ import annotations

from parsers.ocr.availability import debian_package_for

#: Mean word confidence (0-100) under which a page's OCR is reported. Clean scans of the
#: fixtures read at 85-95; `pdf-with-ocr-text.pdf`, a 1950s typescript, at 74; a Chinese
#: page read with `eng` at 37-39.
LOW_CONFIDENCE = 60.0

#: Tesseract OSD script name -> the language packs that read it (the first is suggested).
SCRIPT_LANGUAGES: dict[str, tuple[str, ...]] = {
    "Arabic": ("ara", "fas", "urd"),
    "Armenian": ("hye",),
    "Bengali": ("ben", "asm"),
    "Cyrillic": ("rus", "ukr", "bul", "srp"),
    "Devanagari": ("hin", "mar", "nep", "san"),
    "Ethiopic": ("amh",),
    "Georgian": ("kat",),
    "Greek": ("ell",),
    "Gujarati": ("guj",),
    "Gurmukhi": ("pan",),
    "Han": ("chi_sim", "chi_tra"),
    "Hangul": ("kor",),
    "Hebrew": ("heb",),
    "Japanese": ("jpn",),
    "Kannada": ("kan",),
    "Khmer": ("khm",),
    "Lao": ("lao",),
    "Latin": ("eng", "fra", "deu", "spa", "ita", "por", "nld"),
    "Malayalam": ("mal",),
    "Myanmar": ("mya",),
    "Oriya": ("ori",),
    "Sinhala": ("sin",),
    "Tamil": ("tam",),
    "Telugu": ("tel",),
    "Thai": ("tha",),
    "Tibetan": ("bod",),
}

#: Every low-confidence warning contains this, so a run's summary can name it first.
LOW_CONFIDENCE_MARK = "OCR read at low confidence"


def low_confidence_warning(page_no: int, confidence: float | None, script: str | None, languages: str) -> str | None:
    """The document warning for page `page_no` read at `confidence` (0-100) with `languages`
    (Tesseract's "eng+hin" form); None when the confidence is not low or no word was read.

    When `script` is known and none of `languages` reads it, the warning names the language
    pack that would (`--ocr-lang eng+chi_sim`) and its Debian package."""
    if confidence is None or confidence >= LOW_CONFIDENCE:
        return None
    head = f"page {page_no}: {LOW_CONFIDENCE_MARK} {confidence:.0f} (of 100) with --ocr-lang {languages}"
    readers = SCRIPT_LANGUAGES.get(script or "", ())
    configured = set(languages.split("+"))
    if readers and not configured & set(readers):
        suggested = readers[0]
        package = debian_package_for(suggested)
        return (
            f"{head}; the page looks like {script} script, which those languages do not read: "
            f"try --ocr-lang {languages}+{suggested} (apt-get install {package})"
        )
    if script:
        return f"{head}; the page looks like {script} script: check the scan (resolution, skew, noise)"
    return f"{head}; check the scan (resolution, skew, noise) and the document's language"
