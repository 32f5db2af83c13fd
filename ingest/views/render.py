"""`ingest render`: one picture per page with the elements and the child chunks drawn on it.

Elements are filled and outlined in their type's colour (titles with their level, tables with
their row/column grid and header rows shaded, furniture grey, OCR elements with their
confidence); each child chunk's fragments are outlined and numbered with the chunk's index
(`chunks.seq`, as in `ingest show`), so a table split into three pieces shows three numbers over
its rows. A legend strip sits under the page, so the page area keeps its exact size:
round(points * dpi / 72) pixels a side.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ingest.contracts.elements import Element, ElementType, PageInfo, TextSource
from ingest.contracts.errors import ConfigError
from ingest.views.geometry import (
    Fragment,
    document_to_chunk_fragments,
    element_to_parts,
    page_spec_to_numbers,
    table_to_column_edges,
    table_to_row_bands,
)
from ingest.views.settings import RenderSettings
from ingest.views.source import StoredDocument, load_stored, open_pdf, page_to_image

if TYPE_CHECKING:
    from PIL import Image, ImageDraw

#: RGB per element type (colour-blind-safe-ish tab10 hues; furniture grey so it recedes).
TYPE_COLOURS: dict[ElementType, tuple[int, int, int]] = {
    ElementType.title: (214, 39, 40),
    ElementType.paragraph: (31, 119, 180),
    ElementType.list_item: (44, 160, 44),
    ElementType.table: (255, 127, 14),
    ElementType.caption: (148, 103, 189),
    ElementType.figure: (140, 86, 75),
    ElementType.header: (150, 150, 150),
    ElementType.footer: (150, 150, 150),
    ElementType.page_number: (150, 150, 150),
}
#: Fill opacity of element boxes (0-255): light enough to read the text through.
FILL_ALPHA = 48
#: Table header rows get this much more fill, so they read as shaded.
HEADER_ALPHA = 110
#: Chunk outlines alternate between two colours, so neighbouring and overlapping chunks part.
CHUNK_COLOURS = ((200, 0, 120), (0, 110, 110))
LEGEND_HEIGHT_POINTS = 20


@dataclass
class RenderedPage:
    """One drawn page. Boxes and labels are in pixels of `image` (left, top, right, bottom);
    `page_size` is the page area (the legend strip is below it, `image.height - page_size[1]` tall)."""

    page_no: int
    image: Image.Image
    dpi: int
    page_size: tuple[int, int]
    element_boxes: list[tuple[int, str, tuple[int, int, int, int]]] = field(default_factory=list)
    chunk_labels: list[tuple[int, tuple[int, int, int, int]]] = field(default_factory=list)
    path: Path | None = None
    warnings: list[str] = field(default_factory=list)


def render_document(
    db: str, id_or_path: str, settings: RenderSettings | dict | None = None, out: str | Path | None = None
) -> list[RenderedPage]:
    """Draw the chosen pages of a stored document; with `out`, also write `<id>-p<N>.png` there."""
    settings = RenderSettings.resolve(settings)
    stored = load_stored(db, id_or_path)
    try:
        numbers = page_spec_to_numbers(settings.pages, stored.document.page_count)
    except ValueError as error:
        raise ConfigError(f"--pages {settings.pages!r}: {error}", path=stored.source_path, stage="render") from None
    pages = render_pages(stored, numbers, settings)
    if out is not None:
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        for page in pages:
            page.path = folder / f"{stored.id}-p{page.page_no}.png"
            page.image.save(page.path, compress_level=6)  # optimize=True costs ~5x the time for ~10% size
    return pages


def render_pages(stored: StoredDocument, numbers: list[int], settings: RenderSettings) -> list[RenderedPage]:
    """Draw pages `numbers` (1-based, in range) of a loaded document."""
    document = stored.document
    info = {page.page_no: page for page in document.pages}
    fragments = document_to_chunk_fragments(document, stored.chunks) if settings.what != "elements" else {}
    pdf = open_pdf(stored)
    try:
        drawn = []
        for number in numbers:
            page = info.get(number) or PageInfo(page_no=number, width=595.0, height=842.0)
            image = page_to_image(pdf, number, page.width, page.height, settings.dpi)
            elements = [
                (seq, element)
                for seq, element in enumerate(document.elements)
                if any(part.page == number for part in element_to_parts(element))
            ]
            chunks = {
                index: [fragment for fragment in found if fragment.page == number] for index, found in fragments.items()
            }
            drawn.append(draw_page(image, page, elements, chunks, settings))
            if stored.pdf_warning:
                drawn[-1].warnings.append(stored.pdf_warning)
        return drawn
    finally:
        if pdf is not None:
            pdf.close()


def draw_page(
    image: Image.Image,
    page: PageInfo,
    elements: list[tuple[int, Element]],
    chunks: dict[int, list[Fragment]],
    settings: RenderSettings,
) -> RenderedPage:
    """Draw elements (unless `what` is 'chunks') and chunk fragments (unless 'elements') on a page
    picture; returns the picture with the legend strip added."""
    from PIL import Image, ImageDraw

    scale = image.width / page.width if page.width else settings.dpi / 72
    result = RenderedPage(page.page_no, image, settings.dpi, image.size)
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    font = _font(max(9, round(9 * scale)))
    if settings.what != "chunks":
        for seq, element in elements:
            for box in _draw_element(draw, element, page.page_no, scale, font):
                result.element_boxes.append((seq, element.type.value, box))
    if settings.what != "elements":
        for index, fragments in chunks.items():
            if fragments:
                result.chunk_labels.append((index, _draw_chunk(draw, index, fragments, scale, font)))
    page_area = Image.alpha_composite(image.convert("RGBA"), overlay).convert("RGB")
    result.image = _with_legend(page_area, page, elements, settings, scale)
    return result


def _px(rect: tuple[float, float, float, float], scale: float) -> tuple[int, int, int, int]:
    x0, top, x1, bottom = rect
    return round(x0 * scale), round(top * scale), round(x1 * scale), round(bottom * scale)


def _draw_element(draw: ImageDraw.ImageDraw, element: Element, page_no: int, scale: float, font) -> list:
    colour = TYPE_COLOURS.get(element.type, (0, 0, 0))
    boxes = [_px(part.rect, scale) for part in element_to_parts(element) if part.page == page_no]
    width = max(1, round(scale))
    for box in boxes:
        draw.rectangle(box, fill=(*colour, FILL_ALPHA), outline=(*colour, 255), width=width)
    if element.type is ElementType.table and element.rows:
        bands = table_to_row_bands(element)
        for row, band in enumerate(bands):
            if band.page != page_no:
                continue
            x0, top, x1, bottom = _px(band.rect, scale)
            if row < element.header_rows:
                draw.rectangle((x0, top, x1, bottom), fill=(*colour, HEADER_ALPHA))
            draw.line((x0, top, x1, top), fill=(*colour, 160), width=1)
        for x in table_to_column_edges(element):
            for box in boxes:
                draw.line((round(x * scale), box[1], round(x * scale), box[3]), fill=(*colour, 160), width=1)
    tag = _element_tag(element)
    if tag and boxes:
        x0, top = boxes[0][0], boxes[0][1]
        size = draw.textbbox((0, 0), tag, font=font)
        y = max(top - (size[3] - size[1]) - 2, 0)
        draw.rectangle((x0, y, x0 + size[2] + 4, y + size[3] + 2), fill=(*colour, 220))
        draw.text((x0 + 2, y), tag, fill=(255, 255, 255, 255), font=font)
    return boxes


def _element_tag(element: Element) -> str:
    """The small label over an element: the title level, the OCR confidence."""
    parts = []
    if element.type is ElementType.title and element.heading_level:
        parts.append(f"h{element.heading_level}")
    if element.source is TextSource.ocr and element.confidence is not None:
        parts.append(f"ocr {element.confidence:.0f}")
    return " ".join(parts)


def _draw_chunk(draw: ImageDraw.ImageDraw, index: int, fragments: list[Fragment], scale: float, font):
    """Outline each fragment, inset by chunk parity so overlapping neighbours stay visible; one
    numbered label at the first fragment. Returns the label's box."""
    colour = CHUNK_COLOURS[index % 2]
    inset = round(scale) * (2 + 2 * (index % 2))
    for fragment in fragments:
        x0, top, x1, bottom = _px(fragment.rect, scale)
        box = (x0 - inset, top - inset // 2, x1 + inset, max(bottom + inset // 2, top - inset // 2))
        draw.rectangle(box, outline=(*colour, 255), width=max(2, round(1.5 * scale)))
    x0, top, x1, _ = _px(fragments[0].rect, scale)
    text = str(index)
    size = draw.textbbox((0, 0), text, font=font)
    left = x1 + inset - size[2] - 6
    label = (left, top, left + size[2] + 6, top + size[3] + 4)
    draw.rectangle(label, fill=(*colour, 255))
    draw.text((left + 3, top + 1), text, fill=(255, 255, 255, 255), font=font)
    return label


def _with_legend(
    page_area: Image.Image, page: PageInfo, elements: list[tuple[int, Element]], settings: RenderSettings, scale
) -> Image.Image:
    """The page with a legend strip under it: the types present, the chunk colours, the page's text source."""
    from PIL import Image, ImageDraw

    height = round(LEGEND_HEIGHT_POINTS * scale)
    picture = Image.new("RGB", (page_area.width, page_area.height + height), "white")
    picture.paste(page_area, (0, 0))
    draw = ImageDraw.Draw(picture)
    font = _font(max(9, round(8 * scale)))
    y = page_area.height + height // 4
    x = round(6 * scale)
    draw.line((0, page_area.height, page_area.width, page_area.height), fill=(120, 120, 120), width=1)
    present = {element.type for _, element in elements}
    types = [] if settings.what == "chunks" else [kind for kind in ElementType if kind in present]
    entries = [(TYPE_COLOURS[kind], kind.value.replace("_", " ")) for kind in types]
    if settings.what != "elements":
        entries.append((CHUNK_COLOURS[0], "chunk N"))
    source = page.text_source.value.replace("_", " ")
    if page.ocr_confidence is not None:
        source += f" {page.ocr_confidence:.0f}"
    for colour, label in entries:
        swatch = height // 2
        draw.rectangle((x, y, x + swatch, y + swatch), fill=colour)
        draw.text((x + swatch + 3, y - 1), label, fill=(30, 30, 30), font=font)
        x += swatch + 10 + round(draw.textlength(label, font=font))
    draw.text((x + 6, y - 1), f"p{page.page_no} · {source}", fill=(90, 90, 90), font=font)
    return picture


def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1 has only the small bitmap font
        return ImageFont.load_default()
