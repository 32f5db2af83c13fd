"""The frame a page is read in: its visible box turned by its /Rotate, as a viewer shows it.

pdfium reports characters and drawn paths in PDF user space of the *unrotated* page
(origin bottom-left), while `page.get_size()` is already the rotated size. Everything
the parser keeps is in points with a top-left origin in the displayed frame: the page's
visible box (crop box clipped to the media box) turned clockwise by /Rotate, width and
height swapped for 90 and 270. `PageFrame` maps points and boxes into it; `chars.py`
(characters), `tables/rulings.py` (table rulings) and `pdfminer_fallback.py` (the pdfminer
fallback) use it. `form_to_page_matrix` and `box_to_page` take the bounds of objects inside a
Form XObject (pdfium gives them in the form's own space) to page space first.
"""

from __future__ import annotations

from dataclasses import dataclass

import pypdfium2.raw as pdfium_c

#: The quarter turns (degrees clockwise) that swap a page's width and height.
QUARTER_TURNS = (90, 270)


@dataclass(frozen=True, slots=True)
class PageFrame:
    """The frame a page is read in: the page's visible box (`left`, `bottom`, `right`,
    `top`, PDF user space of the unrotated page) turned clockwise by `rotation` degrees
    (0, 90, 180 or 270; normally the page's /Rotate). `width`/`height` are the frame's
    (swapped for 90/270); mapped boxes are points with a top-left origin."""

    rotation: int
    left: float
    bottom: float
    right: float
    top: float

    @classmethod
    def of_page(cls, page) -> "PageFrame":
        """The displayed frame of a pypdfium2 page: its bounding box (crop box clipped to
        the media box) turned by its /Rotate."""
        left, bottom, right, top = page.get_bbox()
        return cls(page.get_rotation() % 360, left, bottom, right, top)

    def turned(self, rotation: int) -> "PageFrame":
        return PageFrame(rotation % 360, self.left, self.bottom, self.right, self.top)

    @property
    def width(self) -> float:
        return self.top - self.bottom if self.is_quarter_turned else self.right - self.left

    @property
    def height(self) -> float:
        return self.right - self.left if self.is_quarter_turned else self.top - self.bottom

    @property
    def is_quarter_turned(self) -> bool:
        """Turned a quarter (90 or 270 degrees): the frame's width is the page's height."""
        return self.rotation in QUARTER_TURNS

    def point(self, x: float, y: float) -> tuple[float, float]:
        """A user-space point -> (x, y) in the frame, y growing downwards."""
        r = self.rotation
        if r == 0:
            return x - self.left, self.top - y
        if r == 90:
            return y - self.bottom, x - self.left
        if r == 180:
            return self.right - x, y - self.bottom
        return self.top - y, self.right - x

    def up_point(self, x: float, y: float) -> tuple[float, float]:
        """A user-space point -> (x, y) in the frame with y growing upwards from its
        bottom edge (`height - point(x, y)[1]`); user space itself on an unrotated page
        with its box at the origin."""
        r = self.rotation
        if r == 0:
            return x - self.left, y - self.bottom
        if r == 90:
            return y - self.bottom, self.right - x
        if r == 180:
            return self.right - x, self.top - y
        return self.top - y, x - self.left

    def box(self, left: float, bottom: float, right: float, top: float) -> tuple[float, float, float, float]:
        """A user-space box -> (x0, top, x1, bottom) in the frame."""
        r = self.rotation
        if r == 0:
            return left - self.left, self.top - top, right - self.left, self.top - bottom
        if r == 90:
            return bottom - self.bottom, left - self.left, top - self.bottom, right - self.left
        if r == 180:
            return self.right - right, bottom - self.bottom, self.right - left, top - self.bottom
        return self.top - top, self.right - right, self.top - bottom, self.right - left

    def is_rotated(self, a: float, b: float, upright_slope: float) -> bool:
        """Whether a baseline running along user-space direction (a, b) is not upright
        left-to-right text in this frame (it then never joins horizontal text): it runs
        backwards, or rises more than `upright_slope` of its run (`TextLayerSettings`)."""
        return baseline_is_rotated(self.rotation, a, b, upright_slope)


def baseline_is_rotated(rotation: int, a: float, b: float, upright_slope: float) -> bool:
    """`PageFrame.is_rotated` for a frame turned by `rotation` degrees clockwise."""
    if rotation == 90:
        a, b = b, -a
    elif rotation == 180:
        a, b = -a, -b
    elif rotation == 270:
        a, b = -b, a
    return abs(b) > upright_slope * (abs(a) + _NOT_ZERO) or a < 0


#: Added to a baseline's run before comparing its rise with it: a vertical baseline (run 0)
#: rises more than any share of it.
_NOT_ZERO = 1e-9

#: A PDF matrix (a, b, c, d, e, f): x' = a x + c y + e, y' = b x + d y + f.
Matrix = tuple[float, float, float, float, float, float]


def form_to_page_matrix(form, outer: Matrix | None) -> Matrix | None:
    """The matrix taking a form's content to page space: pdfium gives the bounds of a form's
    objects in the form's own space (an annual report laid out in spreads places a spread's
    right half with e = -595 pt), so its matrix, then the enclosing forms', map them to the page. None for identity."""
    raw = pdfium_c.FS_MATRIX()
    if not pdfium_c.FPDFPageObj_GetMatrix(form, raw):
        return outer
    own = (raw.a, raw.b, raw.c, raw.d, raw.e, raw.f)
    if outer is not None:
        a, b, c, d, e, f = own
        oa, ob, oc, od, oe, of = outer
        own = (
            a * oa + b * oc,
            a * ob + b * od,
            c * oa + d * oc,
            c * ob + d * od,
            e * oa + f * oc + oe,
            e * ob + f * od + of,
        )
    return None if own == (1.0, 0.0, 0.0, 1.0, 0.0, 0.0) else own


def box_to_page(box: tuple[float, float, float, float], matrix: Matrix | None) -> tuple[float, float, float, float]:
    """`box` (left, bottom, right, top) in a form's space -> the page's (its corners' bounds)."""
    if matrix is None:
        return box
    a, b, c, d, e, f = matrix
    xs, ys = [], []
    for x in (box[0], box[2]):
        for y in (box[1], box[3]):
            xs.append(a * x + c * y + e)
            ys.append(b * x + d * y + f)
    return (min(xs), min(ys), max(xs), max(ys))
