"""Opening a PDF with pypdfium2 (errors named and explained), its info dictionary and outline."""

from __future__ import annotations

import os
import re
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pypdfium2 as pdfium

from ingest.contracts.errors import ParseError
from parsers.structure.settings import TitleSettings

DEFAULT_TITLE_SETTINGS = TitleSettings()

_DATE = re.compile(r"^D?:?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*([Zz+\-])?\s*(\d{2})?'?\s*(\d{2})?'?\s*$")
#: An ISO 8601 date or date-time (what `pdf_date_to_iso` returns, or what some producers write
#: instead of a PDF date): "2023-07", "2023-07-21", "2023-07-21T16:22:25-07:00", "... 16:22:25.5Z".
_ISO = re.compile(
    r"^(\d{4})-(\d{2})(?:-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?"
    r"(?:[Zz]|[+-](\d{2})(?::?(\d{2}))?)?)?)?$"
)
_BAD_TITLES = re.compile(
    r"^(untitled|microsoft (word|powerpoint|excel)\b|powerpoint presentation$|document\d*$|slide \d+|title$|\s*$)"
    r"|\.(docx?|pptx?|xlsx?|pdf|indd|qxd|tex|exe|rtf|txt)\s*$",
    re.IGNORECASE,
)


def reset_pdfium() -> bool:
    """Give pdfium a fresh process-wide state, so a document parses the same whatever was parsed
    before it in this process; False (nothing done) while any pdfium object is still open.

    Why: pdfium keeps FreeType faces of substituted (non-embedded) fonts in a process-wide cache,
    and rendering a page (OCR) leaves them in a state that changes the character boxes later
    documents read: a French report set in a non-embedded narrow sans gave "Liaisonsaux" alone
    and "Liaisons aux" after another document had been rendered in the same worker. Destroying and
    re-initialising the library costs ~0.02 ms. Call it between documents (the batch worker does,
    before each task), never while another thread may be using pdfium.
    """
    try:
        from pypdfium2 import _library_scope
        from pypdfium2.internal import bases
    except ImportError:  # a pypdfium2 without these (private) hooks: keep the shared state
        return False
    if any(ref() is not None for refs in list(bases.ObjectTracker.values()) for ref in list(refs)):
        return False
    _library_scope.destroy_lib()
    _library_scope.init_lib()
    return True


def open_pdfium(path: Path) -> pdfium.PdfDocument:
    """Open `path` with pypdfium2, turning every failure into a `ParseError` that says
    what is wrong with the file and what to do about it."""
    where = str(path)
    if not path.exists():
        raise ParseError("file not found; check the path", path=where)
    if path.stat().st_size == 0:
        raise ParseError("empty file (0 bytes); the download or copy probably failed, fetch it again", path=where)
    with open(path, "rb") as handle:
        head = handle.read(1024)
    if b"%PDF-" not in head:
        raise ParseError("not a PDF (no %PDF- header); check the file type", path=where)
    try:
        document = pdfium.PdfDocument(os.fspath(path))
    except pdfium.PdfiumError as error:
        message = str(error)
        if "password" in message.lower() or "security" in message.lower():
            raise ParseError(
                "encrypted PDF needs a password; decrypt it first (e.g. `qpdf --decrypt "
                "--password=... in.pdf out.pdf`) and ingest the decrypted copy",
                path=where,
            ) from error
        if declares_no_pages(path):
            raise ParseError(NO_PAGES, path=where) from error
        raise ParseError(
            f"damaged or truncated PDF that cannot be opened ({message}); re-export or re-download it", path=where
        ) from error
    if len(document) == 0:
        document.close()
        raise ParseError(NO_PAGES, path=where)
    return document


#: A well-formed PDF whose page tree is empty: nothing is wrong with the bytes, there is just
#: nothing to ingest.
NO_PAGES = "the PDF has no pages (a valid file with an empty page tree); remove it or replace it with the full document"


def declares_no_pages(path: Path) -> bool:
    """Does `path` parse (pdfminer) as a PDF whose catalog's page tree says /Count 0 and has no
    /Kids? PDFium refuses such a file with the same exception as a damaged one (its error code
    is unreliable: it can be left over from an earlier failure in the process)."""
    from pdfminer.pdfdocument import PDFDocument
    from pdfminer.pdfparser import PDFParser
    from pdfminer.pdftypes import resolve1

    try:
        with open(path, "rb") as handle:
            tree = resolve1(PDFDocument(PDFParser(handle)).catalog.get("Pages"))
            return isinstance(tree, dict) and resolve1(tree.get("Count")) == 0 and not resolve1(tree.get("Kids"))
    except Exception:  # noqa: BLE001 - a file pdfminer cannot read either is damaged, not empty
        return False


def _iso_normalised(match: re.Match) -> str | None:
    """An ISO 8601 month, date or date-time (`_ISO` matched) in its canonical form; None when
    impossible."""
    value = match.group(0)
    try:
        if match.group(3) is None:  # "2023-07": a month, checked on the month's first day
            date.fromisoformat(f"{value}-01")
            return value
        if match.group(4) is None:
            return date.fromisoformat(value).isoformat()
        return datetime.fromisoformat(re.sub(r"[Zz]$", "+00:00", value)).isoformat()
    except ValueError:
        return None


def pdf_date_to_iso(value: str) -> str | None:
    """ "D:20200331180255+09'00'" -> "2020-03-31T18:02:55+09:00"; None when not a PDF date.

    Idempotent: a value already in ISO 8601 form comes back in the same form, normalised
    ("2023-07-21 16:22" -> "2023-07-21T16:22:00", "-07" -> "-07:00"; a date or a month stays
    one), or None when it names an impossible date or time ("2023-13-01"). Anything else
    that is not a whole PDF date ("2023/07/21", "2023-7-21") is None, never a guess."""
    value = value.strip()
    iso = _ISO.match(value)
    if iso:
        return _iso_normalised(iso)
    match = _DATE.match(value)
    if not match:
        return None
    year, month, day, hour, minute, second, sign, tz_h, tz_m = match.groups()
    try:
        moment = datetime(int(year), int(month or 1), int(day or 1), int(hour or 0), int(minute or 0), int(second or 0))
    except ValueError:
        return None
    if sign in ("+", "-"):
        delta = timedelta(hours=int(tz_h or 0), minutes=int(tz_m or 0))
        moment = moment.replace(tzinfo=timezone(delta if sign == "+" else -delta))
    elif sign in ("Z", "z"):
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.isoformat()


def document_to_info(document: pdfium.PdfDocument) -> dict[str, str]:
    """The info dictionary (Title, Author, ..., dates as ISO 8601 where parseable), empty values
    dropped. Raises what pdfium raises for a broken dictionary; the caller records it."""
    raw = document.get_metadata_dict(skip_empty=True)
    info = {}
    for key, value in raw.items():
        value = str(value).strip()
        if key in ("CreationDate", "ModDate"):
            value = pdf_date_to_iso(value) or value
        if value:
            info[key] = value
    return info


def sensible_info_title(info: dict[str, str], settings: TitleSettings = DEFAULT_TITLE_SETTINGS) -> str | None:
    """The info Title when it reads like a title, not a file name or a producer default."""
    return sensible_title(info.get("Title", ""), settings)


def sensible_title(text: str, settings: TitleSettings = DEFAULT_TITLE_SETTINGS) -> str | None:
    """`text` stripped when it reads like a title a person wrote, not a file name ("Precinct_905_NoOU",
    "Q3 Release_Final__v2", an EDGAR accession number "0001234567-21-000008"), nor a producer's default
    ("Microsoft Word - X.doc", "PowerPoint Presentation", "untitled"); else None. Info Titles
    and bookmarks are written by tools as often as by people."""
    title = text.strip()
    if len(title) < settings.min_chars or _BAD_TITLES.search(title):
        return None
    if " " not in title and "_" in title or (title.isascii() and " " not in title and any(c in ".-" for c in title)):
        return None  # "Precinct_905_NoOU", "annual-report-v2": file names (CJK titles have no spaces: kept)
    if "__" in title or re.search(r"_(final|draft|v\d+|copy|rev\d*)(?![a-z])", title, re.IGNORECASE):
        return None  # a file name with spaces: "Q3 Press Release_Final__v2", "Annual report_draft"
    return title


def document_to_outline(document: pdfium.PdfDocument) -> list[tuple[int, str, int]]:
    """Bookmarks as (level from 0, title, 1-based page or 0 when unknown).

    Works with pypdfium2 5 (`get_title()`, `get_dest().get_index()`) and 4 (`title`,
    `page_index`). A broken outline raises; the caller records a warning and goes on.
    """
    outline = []
    for item in document.get_toc(max_depth=8):
        if hasattr(item, "get_title"):
            title = item.get_title() or ""
            dest = item.get_dest()
            index = dest.get_index() if dest is not None else None
        else:
            title, index = item.title or "", getattr(item, "page_index", None)
        page = index + 1 if index is not None and index >= 0 else 0
        if title.strip():
            outline.append((item.level, title.strip(), page))
    return outline
