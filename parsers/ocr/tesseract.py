"""OCR stage: render PDF pages with pypdfium2, read them with Tesseract, return typed elements.

Entry points (the parser calls these; their signatures are a contract):

- `check_ocr_available(settings)` - call once, before any work: raises
  `OcrUnavailableError` naming the Debian package to install when Tesseract or a
  requested language pack is missing (it lives in `parsers.ocr.availability`, which a run's
  set-up check imports without this module's dependencies).
- `ocr_pages(pdf_path, page_numbers, settings)` - OCR the given 1-based pages,
  `settings.workers` pages at a time, and return one `OcrPageResult` per page. A page
  that cannot be rendered or read gets `error` set (the caller decides whether the
  document fails); it never takes the other pages down with it.

Parallelism: each worker thread renders its page (pdfium is not thread-safe, so
rendering holds a lock, ~0.1 s a page) and then runs a Tesseract *subprocess*, which
is where the seconds go; threads therefore use every core, and they also work inside
a worker process of the batch pool, where a nested process pool could not.
`OMP_THREAD_LIMIT=1` keeps each Tesseract to one core, so `workers` = cores is right.

Coordinates: Tesseract reports pixels of the rendered image; elements carry PDF
points with a top-left origin (pdfplumber's convention): `points = pixels * 72 / dpi`.
"""

from __future__ import annotations

import math
import os
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pypdfium2 as pdfium
from PIL import Image
from pydantic import BaseModel, ConfigDict

from ingest.contracts.elements import Element
from ingest.contracts.errors import OcrError
from parsers.ocr.availability import (
    check_ocr_available,
    debian_package_for,
    pytesseract_module,
    requested_languages,
    tesseract_command,
)
from parsers.ocr.image import INK_THRESHOLD, remove_rules
from parsers.ocr.language_retry import installed_languages, languages_with_script, osd_script, page_needs_script_check
from parsers.ocr.layout import tesseract_data_to_elements
from parsers.ocr.script import LOW_CONFIDENCE
from parsers.ocr.words import WORD_LEVEL
from parsers.settings import OcrSettings

# pdfium (the C library under pypdfium2) must not be called from two threads at once.
_PDFIUM_LOCK = threading.Lock()
__all__ = ["check_ocr_available", "debian_package_for", "ocr_pages", "requested_languages"]
#: Largest page image sent to Tesseract (~ an A2 sheet at 300 dpi); larger pages render at lower dpi.
MAX_PIXELS = 40_000_000


class OcrPageResult(BaseModel):
    """What OCR made of one page. `confidence` is the mean Tesseract word confidence
    (0-100) over the page's words, None when no word was read; `script` the script
    Tesseract's OSD sees on a page read below `script.LOW_CONFIDENCE` (None otherwise, or
    when OSD cannot tell); `error` is set, and `elements` empty, when the page could not be
    rendered or read."""

    model_config = ConfigDict(extra="forbid")

    page_no: int
    elements: list[Element] = []
    confidence: float | None = None
    script: str | None = None
    error: str | None = None
    #: the languages the page was finally read with, when script detection changed them
    #: (`parsers/ocr/language_retry.py`): e.g. "eng+hin+mar" for a Hindi scan under the default "eng".
    languages: str | None = None


def _limit_tesseract_threads() -> None:
    # Tesseract's OpenMP threads fight each other when pages run in parallel; one core each
    # is faster overall. Respect an explicit user value.
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")


#: The lowest resolution a page is rendered at for OCR: a page that would pass `MAX_PIXELS` even
#: at this resolution (a 20,000-inch MediaBox) is not rendered at all (`OcrError`).
MIN_RENDER_DPI = 10


def render_dpi(width_pt: float, height_pt: float, dpi: int) -> int:
    """`dpi`, lowered for a page so large (a poster, a map) that its image would pass
    `MAX_PIXELS`: Tesseract's time and memory grow with pixels, not with text. Raises OcrError
    when even `MIN_RENDER_DPI` would pass `MAX_PIXELS`: the render itself would take gigabytes."""
    pixels = (width_pt * dpi / 72.0) * (height_pt * dpi / 72.0)
    if pixels <= MAX_PIXELS:
        return dpi
    fitted = int(72.0 * math.sqrt(MAX_PIXELS / max(width_pt * height_pt, 1.0)))
    if fitted < MIN_RENDER_DPI:
        raise OcrError(
            f"page is {width_pt / 72:,.0f} x {height_pt / 72:,.0f} inches: too large to render for OCR (over "
            f"{MAX_PIXELS:,} pixels even at {MIN_RENDER_DPI} dpi); the page is left without OCR text"
        )
    return fitted


def render_page(pdf: pdfium.PdfDocument, page_no: int, dpi: int) -> tuple[Image.Image, int]:
    """Page `page_no` (1-based) as a grayscale PIL image, and the resolution used: `dpi`,
    or less for a page whose image would exceed `MAX_PIXELS` (see `render_dpi`)."""
    with _PDFIUM_LOCK:
        page = pdf[page_no - 1]
        try:
            dpi = render_dpi(*page.get_size(), dpi)
            bitmap = page.render(scale=dpi / 72.0, grayscale=True)
            image = bitmap.to_pil()
            # to_pil() may share the bitmap's buffer; copy before the bitmap is freed.
            image = image.copy()
            bitmap.close()
        finally:
            page.close()
    return image, dpi


def image_to_script(image: Image.Image, settings: OcrSettings) -> str | None:
    """The script Tesseract's orientation and script detection (`--psm 0`, `osd` traineddata)
    sees on the page image ("Han", "Latin", "Devanagari", ...); None when it cannot tell (too
    few characters, `osd` not installed, timeout): a warning then names no language rather
    than a guess."""
    pytesseract = pytesseract_module()
    with tempfile.TemporaryDirectory(prefix="osd-") as folder:
        path = os.path.join(folder, "page.pgm")
        image.convert("L").save(path, format="PPM")
        try:
            found = pytesseract.image_to_osd(
                path, config="--psm 0", output_type=pytesseract.Output.DICT, timeout=settings.timeout_seconds
            )
        except (pytesseract.TesseractError, RuntimeError):
            return None
    script = found.get("script")
    return script if isinstance(script, str) and script else None


def image_to_tesseract_data(image: Image.Image, settings: OcrSettings) -> dict[str, list[Any]]:
    """Tesseract's word table for an image (pytesseract `image_to_data`, DICT output).

    The image goes to Tesseract as an uncompressed PGM file: writing it costs ~2 ms where
    pytesseract's default PNG costs ~60-120 ms of CPU per page.
    """
    config = settings.tesseract_config.strip()
    pytesseract = pytesseract_module()
    with tempfile.TemporaryDirectory(prefix="ocr-") as folder:
        path = os.path.join(folder, "page.pgm")
        image.convert("L").save(path, format="PPM")
        return pytesseract.image_to_data(
            path,
            lang=settings.languages,
            config=config,
            output_type=pytesseract.Output.DICT,
            timeout=settings.timeout_seconds,
        )


def word_ink(image: Image.Image, data: dict[str, list[Any]]) -> list[float]:
    """For each row of Tesseract's table, the share of its box that is ink (0 for non-words):
    bold text is ~1.3-1.6x heavier than regular text of the same size (measured on the
    fixtures), which is how a bold heading set at body size is told from body text."""
    dark = np.asarray(image.convert("L")) < INK_THRESHOLD
    inks = []
    for level, left, top, width, height in zip(data["level"], data["left"], data["top"], data["width"], data["height"]):
        if int(level) != WORD_LEVEL or width <= 0 or height <= 0:
            inks.append(0.0)
            continue
        box = dark[int(top) : int(top) + int(height), int(left) : int(left) + int(width)]
        inks.append(float(box.mean()) if box.size else 0.0)
    return inks


def ocr_image(image: Image.Image, page_no: int, settings: OcrSettings, dpi: int | None = None) -> OcrPageResult:
    """OCR one page image rendered at `dpi` (default `settings.dpi`); element boxes in
    PDF points (image pixels * 72 / dpi). A page read with a low confidence is read again with
    the installed languages of the script Tesseract's OSD sees, when `settings.detect_script`
    and those languages are not configured already (`parsers/ocr/language_retry.py`); the more
    confident reading is kept. A page still below `script.LOW_CONFIDENCE` gets its script
    detected for the warning that names the language that would read it."""
    dpi = dpi or settings.dpi
    cleaned = remove_rules(image, dpi)
    result = _read_cleaned(cleaned, page_no, settings, dpi)
    if settings.detect_script and page_needs_script_check(result.confidence):
        installed = installed_languages(tesseract_command())
        # One OSD call per page: the one made for the low-confidence warning, when there was one.
        script = result.script or (osd_script(cleaned, settings.timeout_seconds) if "osd" in installed else None)
        languages = languages_with_script(settings.languages, script, installed)
        if languages:
            reread = _read_cleaned(cleaned, page_no, settings.model_copy(update={"languages": languages}), dpi, script)
            if (reread.confidence or 0.0) > (result.confidence or 0.0):
                return reread.model_copy(update={"languages": languages})
    return result


def _read_cleaned(
    cleaned: Image.Image, page_no: int, settings: OcrSettings, dpi: int, known_script: str | None = None
) -> OcrPageResult:
    """Read a cleaned page image; below `LOW_CONFIDENCE` its script is detected (or `known_script`
    taken, when the caller already asked OSD) for the low-confidence warning."""
    data = image_to_tesseract_data(cleaned, settings)
    data["ink"] = word_ink(cleaned, data)
    elements, confidence = tesseract_data_to_elements(data, page_no=page_no, scale=72.0 / dpi)
    script = None
    if confidence is not None and confidence < LOW_CONFIDENCE:
        script = known_script or image_to_script(cleaned, settings)
    return OcrPageResult(page_no=page_no, elements=elements, confidence=confidence, script=script)


def _ocr_one(pdf: pdfium.PdfDocument, page_no: int, settings: OcrSettings) -> OcrPageResult:
    try:
        image, dpi = render_page(pdf, page_no, settings.dpi)
    except Exception as error:  # pdfium raises PdfiumError, or worse on a damaged page
        return OcrPageResult(page_no=page_no, error=f"cannot render page: {type(error).__name__}: {error}")
    try:
        return ocr_image(image, page_no, settings, dpi)
    except pytesseract_module().TesseractError as error:
        return OcrPageResult(page_no=page_no, error=f"Tesseract failed (status {error.status}): {error.message}")
    except RuntimeError as error:  # pytesseract's timeout
        return OcrPageResult(page_no=page_no, error=f"Tesseract failed: {error} (limit {settings.timeout_seconds} s)")
    finally:
        image.close()


def ocr_pages(
    pdf_path: str | os.PathLike,
    page_numbers: list[int],
    settings: OcrSettings | dict | None = None,
    on_page_read: Callable[[int], None] | None = None,
) -> dict[int, OcrPageResult]:
    """OCR `page_numbers` (1-based) of the PDF; returns {page_no: OcrPageResult} for each.
    `on_page_read(page_no)` is called after each page is OCR'd (failed or not), in page order.

    Raises `OcrUnavailableError` when Tesseract or a language is missing and `OcrError`
    when the file cannot be opened at all; per-page failures are returned, not raised.
    """
    settings = OcrSettings.resolve(settings)
    if not page_numbers:
        return {}
    check_ocr_available(settings)
    pytesseract_module()  # imported once here, not by the page threads at the same time
    _limit_tesseract_threads()
    path = Path(pdf_path)
    try:
        with _PDFIUM_LOCK:
            pdf = pdfium.PdfDocument(str(path))
            page_count = len(pdf)
    except Exception as error:
        raise OcrError(f"cannot open PDF for rendering: {error}", path=str(path)) from error
    results: dict[int, OcrPageResult] = {}
    try:
        wanted = []
        for page_no in dict.fromkeys(page_numbers):
            if 1 <= page_no <= page_count:
                wanted.append(page_no)
            else:
                results[page_no] = OcrPageResult(
                    page_no=page_no, error=f"no page {page_no} (document has {page_count})"
                )
        workers = max(1, min(settings.workers, len(wanted)))
        if workers == 1:
            for page_no in wanted:
                results[page_no] = _ocr_one(pdf, page_no, settings)
                if on_page_read is not None:
                    on_page_read(page_no)
        else:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ocr") as pool:
                for result in pool.map(lambda n: _ocr_one(pdf, n, settings), wanted):
                    results[result.page_no] = result
                    if on_page_read is not None:
                        on_page_read(result.page_no)
    finally:
        with _PDFIUM_LOCK:
            pdf.close()
    return {page_no: results[page_no] for page_no in dict.fromkeys(page_numbers)}
