"""`ingest report`: one self-contained HTML page per document, pages beside their chunks.

Self-contained means one file that works from file:// with no network: CSS and JS inline, page
pictures embedded as JPEG data URLs. Boxes are positioned in percent of the page, so the page
pictures scale with the screen (laptop and phone). Each chunk box carries `data-chunk`, each
chunk card `data-chunk` and `data-types`; clicking (or hovering) a card gives exactly that
chunk's boxes the class `on` and scrolls the first into view.
"""

from __future__ import annotations

import base64
import html
import io
from dataclasses import dataclass, field
from pathlib import Path

from ingest.contracts.chunks import Chunk
from ingest.contracts.elements import Element, ElementType, TextSource
from ingest.views.geometry import Fragment, document_to_chunk_fragments, element_to_parts
from ingest.views.render import TYPE_COLOURS
from ingest.views.settings import ReportSettings
from ingest.views.source import StoredDocument, load_stored, open_pdf, page_to_image


@dataclass
class ReportResult:
    """The written report: its path, how many pages and child chunks it shows, and the warnings at its top."""

    path: Path
    pages: int
    chunks: int
    warnings: list[str] = field(default_factory=list)


def report_document(
    db: str, id_or_path: str, settings: ReportSettings | dict | None = None, out: str | Path | None = None
) -> ReportResult:
    """Write the report of a stored document to `out` (default `<id>.html` in the working folder)."""
    settings = ReportSettings.resolve(settings)
    stored = load_stored(db, id_or_path)
    warnings = document_to_warnings(stored, settings)
    pictures = pages_to_data_urls(stored, settings)
    page = stored_to_html(stored, pictures, warnings)
    path = Path(out) if out is not None else Path(f"{stored.id}.html")
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".part")
    temporary.write_text(page, encoding="utf-8")
    temporary.replace(path)  # never a half-written report under the real name
    children = sum(1 for chunk in stored.chunks if chunk.kind == "child")
    return ReportResult(path, len(pictures), children, warnings)


def document_to_warnings(stored: StoredDocument, settings: ReportSettings) -> list[str]:
    """What a reader should know first: parser warnings, pages that lost their text, low OCR confidence."""
    warnings = list(stored.document.warnings)
    if stored.pdf_warning:
        warnings.append(stored.pdf_warning)
    for page in stored.document.pages:
        if page.error:
            warnings.append(f"page {page.page_no} could not be read: {page.error}")
        elif page.text_source is TextSource.empty:
            warnings.append(f"page {page.page_no} gave no text")
        elif page.ocr_confidence is not None and page.ocr_confidence < settings.low_ocr_confidence:
            warnings.append(f"page {page.page_no}: low OCR confidence {page.ocr_confidence:.0f}")
    over = [chunk.index for chunk in stored.chunks if chunk.metadata.get("over_embedding_limit")]
    if over:
        warnings.append(f"{len(over)} chunk(s) over the embedding-model limit: {', '.join(map(str, over))}")
    return warnings


def pages_to_data_urls(stored: StoredDocument, settings: ReportSettings) -> list[str]:
    """Every page as a JPEG data URL, in page order."""
    pdf = open_pdf(stored)
    sizes = {page.page_no: (page.width, page.height) for page in stored.document.pages}
    urls = []
    try:
        for number in range(1, stored.document.page_count + 1):
            width, height = sizes.get(number, (595.0, 842.0))
            buffer = io.BytesIO()
            page_to_image(pdf, number, width, height, settings.dpi).save(buffer, "JPEG", quality=settings.quality)
            urls.append("data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii"))
    finally:
        if pdf is not None:
            pdf.close()
    return urls


def _percent(rect: tuple[float, float, float, float], width: float, height: float) -> str:
    x0, top, x1, bottom = rect
    return (
        f"left:{100 * x0 / width:.3f}%;top:{100 * top / height:.3f}%;"
        f"width:{100 * max(x1 - x0, 0) / width:.3f}%;height:{100 * max(bottom - top, 0) / height:.3f}%"
    )


def _colour(kind: ElementType) -> str:
    return "#%02x%02x%02x" % TYPE_COLOURS[kind]


def stored_to_html(stored: StoredDocument, pictures: list[str], warnings: list[str]) -> str:
    """The whole report as one HTML string."""
    document = stored.document
    fragments = document_to_chunk_fragments(document, stored.chunks)
    sizes = {page.page_no: (page.width or 595.0, page.height or 842.0) for page in document.pages}
    pages_html = []
    for number, picture in enumerate(pictures, start=1):
        width, height = sizes.get(number, (595.0, 842.0))
        boxes = [
            f'<div class="box t-{element.type.value}" data-el="{seq}" title="#{seq} {element.type.value}" '
            f'style="{_percent(part.rect, width, height)}"></div>'
            for seq, element in enumerate(document.elements)
            for part in element_to_parts(element)
            if part.page == number
        ]
        boxes += [
            f'<div class="cbox" data-chunk="{index}" style="{_percent(fragment.rect, width, height)}"></div>'
            for index, found in fragments.items()
            for fragment in found
            if fragment.page == number
        ]
        pages_html.append(
            f'<figure class="page" id="page-{number}" style="aspect-ratio:{width:.2f}/{height:.2f}">'
            f'<img src="{picture}" alt="page {number}">{"".join(boxes)}'
            f"<figcaption>page {number}</figcaption></figure>"
        )
    cards = [_chunk_card(chunk, document.elements, fragments.get(chunk.index, [])) for chunk in stored.chunks]
    types = [kind for kind in ElementType if any(element.type is kind for element in document.elements)]
    filters = "".join(
        f'<label><input type="checkbox" checked value="{kind.value}"> '
        f'<span class="sw" style="background:{_colour(kind)}"></span>{kind.value.replace("_", " ")}</label>'
        for kind in types
    )
    warning_html = (
        '<ul class="warnings">' + "".join(f"<li>{html.escape(text)}</li>" for text in warnings) + "</ul>"
        if warnings
        else '<p class="ok">No warnings: every page gave text.</p>'
    )
    title = html.escape(stored.title or Path(stored.source_path).name)
    type_css = "".join(
        f".t-{kind.value}{{border-color:{_colour(kind)};background:{_colour(kind)}22}}" for kind in ElementType
    )
    return TEMPLATE.format(
        title=title,
        id=html.escape(stored.id),
        source=html.escape(stored.source_path),
        pages=document.page_count,
        chunks=sum(1 for chunk in stored.chunks if chunk.kind == "child"),
        warnings=warning_html,
        filters=filters,
        page_html="".join(pages_html),
        cards="".join(card for card in cards if card),
        type_css=type_css,
        script=SCRIPT,
        style=STYLE,
    )


def _chunk_card(chunk: Chunk, elements: list[Element], fragments: list[Fragment]) -> str:
    """A child chunk as a card: index, heading path, pages, tokens, over-limit flag, the text as indexed."""
    if chunk.kind != "child":
        return ""
    pages = f"{chunk.page_start}" if chunk.page_start == chunk.page_end else f"{chunk.page_start}-{chunk.page_end}"
    over = chunk.metadata.get("over_embedding_limit")
    flag = ' <span class="over">over the embedding limit</span>' if over else ""
    heading = html.escape(" / ".join(chunk.heading_path)) or "<i>no heading</i>"
    first_page = fragments[0].page if fragments else chunk.page_start
    return (
        f'<article class="chunk" id="chunk-{chunk.index}" data-chunk="{chunk.index}" data-page="{first_page}" '
        f'data-types="{" ".join(chunk.element_types)}" tabindex="0">'
        f'<header><b>#{chunk.index}</b> <span class="path">{heading}</span></header>'
        f'<p class="meta">page {pages} · {chunk.token_count} tokens · {", ".join(chunk.element_types)}{flag}</p>'
        f"{_table_html(chunk, elements)}"
        f"<pre>{html.escape(chunk.text)}</pre></article>"
    )


def _table_html(chunk: Chunk, elements: list[Element]) -> str:
    """A table piece as an HTML table: the header rows, then the piece's rows."""
    index = chunk.metadata.get("table_element")
    if index is None or not 0 <= index < len(elements) or not elements[index].rows:
        return ""
    element = elements[index]
    header, body = element.rows[: element.header_rows], element.rows[element.header_rows :]
    rows = [body[row] for row in chunk.metadata.get("table_rows", range(len(body))) if 0 <= row < len(body)]

    def cells(row: list[str], tag: str) -> str:
        return "<tr>" + "".join(f"<{tag}>{html.escape(cell)}</{tag}>" for cell in row) + "</tr>"

    return (
        "<table><thead>"
        + "".join(cells(row, "th") for row in header)
        + "</thead><tbody>"
        + "".join(cells(row, "td") for row in rows)
        + "</tbody></table>"
    )


STYLE = """
*{box-sizing:border-box}body{margin:0;font:14px/1.4 system-ui,sans-serif;color:#222}
header.top{padding:8px 12px;border-bottom:1px solid #ccc;background:#fafafa}
header.top h1{font-size:18px;margin:0 0 4px}.src{color:#666;font-size:12px;word-break:break-all}
.warnings{color:#8a4b00;margin:6px 0;padding-left:20px}.ok{color:#276b27;margin:6px 0}
.filters label{margin-right:10px;white-space:nowrap;font-size:13px}
.sw{display:inline-block;width:10px;height:10px;margin:0 3px;vertical-align:middle}
main{display:flex;height:calc(100vh - 110px)}
#pages,#chunks{overflow:auto;padding:8px}#pages{flex:1 1 55%;background:#eee}#chunks{flex:1 1 45%}
.page{position:relative;margin:0 auto 12px;max-width:900px;background:#fff;box-shadow:0 1px 3px #999}
.page img{display:block;width:100%;height:100%}.page figcaption{position:absolute;right:4px;bottom:2px;
font-size:11px;color:#777}
.box{position:absolute;border:1px solid;pointer-events:none}
.cbox{position:absolute;border:3px solid #c80078;display:none;pointer-events:none}
.cbox.on{display:block;background:#c8007822}
.chunk{border:1px solid #ccc;border-left:4px solid #0a6e6e;margin:0 0 8px;padding:6px 8px;cursor:pointer}
.chunk.on{border-color:#c80078;background:#fff0f7}.chunk header{font-size:13px}
.path{color:#444}.meta{margin:2px 0;color:#666;font-size:12px}.over{color:#b00;font-weight:bold}
.chunk pre{white-space:pre-wrap;word-break:break-word;margin:4px 0 0;font-size:12px;background:#f7f7f7;
padding:4px}
.chunk table{border-collapse:collapse;font-size:12px;margin:4px 0}
.chunk th,.chunk td{border:1px solid #bbb;padding:2px 4px;text-align:left}.chunk th{background:#fde3c8}
.hidden{display:none!important}
@media (max-width:800px){main{display:block;height:auto}#pages,#chunks{overflow:visible}}
"""

SCRIPT = """
(function(){
  var cards=document.querySelectorAll('.chunk');
  function select(n, scroll){
    document.querySelectorAll('.cbox.on,.chunk.on').forEach(function(e){e.classList.remove('on');});
    var boxes=document.querySelectorAll('.cbox[data-chunk="'+n+'"]');
    boxes.forEach(function(e){e.classList.add('on');});
    var card=document.getElementById('chunk-'+n); if(card){card.classList.add('on');}
    if(scroll&&boxes.length){boxes[0].scrollIntoView({block:'center'});}
  }
  cards.forEach(function(card){
    var n=card.getAttribute('data-chunk');
    card.addEventListener('click',function(){select(n,true);});
    card.addEventListener('keydown',function(e){if(e.key==='Enter'){select(n,true);}});
    card.addEventListener('mouseenter',function(){select(n,false);});
  });
  var checks=document.querySelectorAll('.filters input');
  function filter(){
    var shown={};checks.forEach(function(c){shown[c.value]=c.checked;});
    document.querySelectorAll('.box').forEach(function(b){
      var t=b.className.match(/t-(\\w+)/)[1];b.classList.toggle('hidden',!shown[t]);});
    cards.forEach(function(card){
      var types=card.getAttribute('data-types').split(' ').filter(Boolean);
      card.classList.toggle('hidden',types.length>0&&!types.some(function(t){return shown[t];}));});
  }
  checks.forEach(function(c){c.addEventListener('change',filter);});
})();
"""

TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>{title} · ingest report</title>
<style>{style}{type_css}</style></head>
<body>
<header class="top"><h1>{title}</h1>
<div class="src">{id} · {source} · {pages} page(s) · {chunks} chunk(s)</div>
{warnings}
<div class="filters">element types: {filters}</div></header>
<main><section id="pages">{page_html}</section>
<section id="chunks">{cards}</section></main>
<script>{script}</script>
</body></html>
"""
