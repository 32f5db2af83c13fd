"""`ingest render` and `ingest report`; the library side is ingest/views/."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from ingest.cli.common import (
    DbOption,
    app,
    call,
    say,
)

# ---------------------------------------------------------------------------------------------
# RENDER AND REPORT (the library side is ingest/views/).
# ---------------------------------------------------------------------------------------------


class What(str, Enum):
    elements = "elements"
    chunks = "chunks"
    both = "both"


@app.command()
def render(
    document: str = typer.Argument(..., help="Document id (or unique prefix) or source path."),
    db: Optional[str] = DbOption,
    pages: Optional[str] = typer.Option(None, "--pages", "-p", help="Pages to draw, e.g. 1,3-5 (default: all)."),
    out: Path = typer.Option(Path("."), "--out", "-o", help="Folder for the PNGs (<id>-p<N>.png)."),
    what: What = typer.Option(What.both, "--what", help="Draw elements, chunk spans, or both."),
    dpi: int = typer.Option(100, "--dpi", min=36, max=600, help="Pixels per inch (72 = one pixel per point)."),
) -> None:
    """Draw page pictures: elements boxed and coloured by type, each child chunk outlined and numbered."""
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = api.resolve_db(db)

    drawn = call(api.render, db, document, pages=pages, what=what.value, dpi=dpi, out=out)
    for page in drawn:
        say(f"{page.path}  page {page.page_no}: {len(page.element_boxes)} boxes, {len(page.chunk_labels)} chunks")
    for warning in sorted({warning for page in drawn for warning in page.warnings}):
        say(f"warning: {warning}", stderr=True)


@app.command()
def report(
    document: str = typer.Argument(..., help="Document id (or unique prefix) or source path."),
    db: Optional[str] = DbOption,
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="HTML file to write (default: <id>.html)."),
    dpi: int = typer.Option(100, "--dpi", min=36, max=300, help="Resolution of the embedded page pictures."),
) -> None:
    """Write one self-contained HTML page: page pictures beside the chunks; click a chunk to see its boxes."""
    from ingest import api  # here, not at the top: `ingest --help` loads no library

    db = api.resolve_db(db)

    result = call(api.report, db, document, out=out, dpi=dpi)
    say(f"{result.path}  {result.pages} page(s), {result.chunks} chunk(s), {len(result.warnings)} warning(s)")
