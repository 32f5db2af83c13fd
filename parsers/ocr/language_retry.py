"""A page OCR read at low confidence, read again in the installed languages of its script.

Why: the default OCR language is `eng`, and Tesseract reads a Hindi scan in `eng` as Latin
garbage ("Wurst Hae STAT atstar: watt 2024" for "प्रधानमंत्री फसल बीमा योजना: खरीफ 2024") at a
mean word confidence of ~43, where a page read in its own language scores 90-95 (the fixtures).
So a page read with a low confidence is shown to Tesseract's orientation-and-script detection
(OSD, the `osd` traineddata); when the script it names is not covered by the configured
languages and an installed language pack covers it, the caller reads the page again with those
languages added (`ocr_image` in `tesseract.py`, which keeps the more confident reading).

Cost: OSD takes about as long as one `eng` pass (~2-4 s a page on a loaded 2-core machine), so
it runs only on pages below `LOW_CONFIDENCE`, never on a page that was read well.
"""

from __future__ import annotations

import functools
from typing import Any

from PIL import Image

from ingest.contracts.errors import OcrUnavailableError
from parsers.ocr.availability import installed_languages as listed_languages
from parsers.ocr.availability import pytesseract_module
from parsers.ocr.script import SCRIPT_LANGUAGES  # script -> packs, shared with the warning

#: A page whose mean word confidence (0-100) is below this was probably read in the wrong
#: language: a scan in its own language scores 90-95 here, Devanagari read as `eng` ~43.
LOW_CONFIDENCE = 70.0
#: OSD's script confidence below this is a guess (it reports ~4-12 for a clear Devanagari page
#: and < 1 for a page with a few scattered words).
MIN_SCRIPT_CONFIDENCE = 2.0


@functools.lru_cache(maxsize=4)
def installed_languages(tesseract_cmd: str) -> frozenset[str]:
    """The traineddata names Tesseract at `tesseract_cmd` has (the set-up check's listing, once per
    process); empty when it cannot be listed: the retry is then skipped, never an error."""
    try:
        return frozenset(listed_languages(tesseract_cmd))
    except OcrUnavailableError:
        return frozenset()


def osd_script(image: Image.Image, timeout_seconds: int = 0) -> str | None:
    """The script Tesseract's OSD sees on `image` ("Devanagari", "Latin", ...), or None when
    OSD cannot tell (too few characters, a low script confidence, OSD not installed)."""
    pytesseract = pytesseract_module()
    try:
        osd: dict[str, Any] = pytesseract.image_to_osd(
            image, config="--psm 0", output_type=pytesseract.Output.DICT, timeout=timeout_seconds
        )
    except (pytesseract.TesseractError, RuntimeError, OSError):
        return None
    if float(osd.get("script_conf", 0.0)) < MIN_SCRIPT_CONFIDENCE:
        return None
    return str(osd.get("script") or "") or None


def languages_with_script(configured: str, script: str | None, installed: frozenset[str]) -> str | None:
    """`configured` ("eng") plus the installed packs that read `script` ("eng+hin+mar"), or
    None when the script is unknown, already covered by a configured pack, or has no installed
    pack. Pure; the configured languages keep their order and come first."""
    if not script:
        return None
    configured_codes = [code for code in configured.split("+") if code]
    script_packs = [code for code in SCRIPT_LANGUAGES.get(script, ()) if code in installed]
    whole_script = f"script/{script}"
    if whole_script in installed:
        script_packs.append(whole_script)
    if not script_packs or any(code in configured_codes for code in script_packs):
        return None
    return "+".join(configured_codes + script_packs)


def page_needs_script_check(confidence: float | None) -> bool:
    """True for a page read with a mean word confidence below `LOW_CONFIDENCE`; a page with no
    word read (blank) is not worth an OSD pass."""
    return confidence is not None and confidence < LOW_CONFIDENCE
