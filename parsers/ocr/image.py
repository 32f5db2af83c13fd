"""Image clean-up before Tesseract: erase table rules, which it otherwise reads as glyphs.

A ruled table's lines touch the cell text; Tesseract then merges a rule with the
letters beside it and returns junk for the whole row (measured on a ruled Devanagari
table: the header row came back as `|बवा.......््___़्£ऐझफ`). Erasing long straight
dark runs first gives clean rows. The runs must be much longer than any stroke of a
letter: horizontal >= 2 inches (a Devanagari headline, the shirorekha, spans a whole
word, ~0.6 inch at 11 pt, so it is never touched), vertical >= 0.5 inch (taller than
any character below ~36 pt).
"""

from __future__ import annotations

import numpy as np
from PIL import Image

INK_THRESHOLD = 140  # grey levels below this are ink (scans: ink ~20, paper ~240)
MIN_HORIZONTAL_INCH = 2.0
MIN_VERTICAL_INCH = 0.5


def _shifted(array: np.ndarray, axis: int, start: int | None, stop: int | None) -> np.ndarray:
    index = [slice(None)] * array.ndim
    index[axis] = slice(start, stop)
    return array[tuple(index)]


def _long_runs(dark: np.ndarray, length: int, axis: int = 1) -> np.ndarray:
    """Mask of pixels lying on a run of >= `length` consecutive True values along `axis`.

    A morphological opening with a 1 x `length` line: erosion then dilation, each by
    doubling shifts (log2(length) boolean ANDs/ORs over the image, ~10x faster than
    running sums on a 300 dpi page).
    """
    if length <= 1 or length > dark.shape[axis]:
        return np.zeros_like(dark)
    runs = dark.copy()
    span = 1
    while span < length:  # runs[j] = all(dark[j : j + span])
        step = min(span, length - span)
        _shifted(runs, axis, None, -step)[...] &= _shifted(runs, axis, step, None)
        _shifted(runs, axis, -step, None)[...] = False
        span += step
    span = 1
    while span < length:  # runs[j] = any(start in [j - span + 1, j])
        step = min(span, length - span)
        _shifted(runs, axis, step, None)[...] |= _shifted(runs, axis, None, -step).copy()
        span += step
    return runs


def remove_rules(image: Image.Image, dpi: int) -> Image.Image:
    """A copy of the greyscale `image` with long horizontal and vertical rules painted white."""
    grey = np.asarray(image.convert("L"))
    dark = grey < INK_THRESHOLD
    mask = _long_runs(dark, int(MIN_HORIZONTAL_INCH * dpi), axis=1) | _long_runs(
        dark, int(MIN_VERTICAL_INCH * dpi), axis=0
    )
    if not mask.any():
        return image
    # widen by one pixel each way so the anti-aliased edges of a rule go too
    grown = mask.copy()
    grown[1:, :] |= mask[:-1, :]
    grown[:-1, :] |= mask[1:, :]
    grown[:, 1:] |= mask[:, :-1]
    grown[:, :-1] |= mask[:, 1:]
    cleaned = grey.copy()
    cleaned[grown] = 255
    return Image.fromarray(cleaned, mode="L")
