"""The document title: a name that tells this document apart from the others of its kind.

The title heads every chunk's heading path, so a line that every document of a kind shares
("UNITED STATES SECURITIES AND EXCHANGE COMMISSION", "FORM 10-K", "Annual Report", "Table of
Contents", a bare agency name) or a running header repeated on most pages tells a retriever
nothing: it is never the title alone (`TitleSettings.shared_lines`, `is_running_line`).

Candidates, in the order `TitleSettings.sources` sets (the first acceptable one wins):

- `filing_cover`: an SEC-style filing cover states the registrant's "exact name as specified in
  its charter", the form ("FORM 10-K") and the period ("For the fiscal year ended December 31,
  2023"); the title is "Issuer - Form 10-K, fiscal year ended December 31, 2023"
  (`elements_to_filing_cover`).
- `outline`: the PDF outline's single root, when every other bookmark hangs under it: the
  author named the whole document there (`outline_to_title`). Bookmarks side by side at the
  top ("Cover Page", "Part I", ...) are its sections, not its name.
- `typographic`: the largest type on page 1 (`structure.headings`).
- `pdf_info`: the info Title when it reads like a title (`pdf_info.sensible_info_title`).
- `first_heading`: page 1's headings high up, in turn (e.g. from OCR).

What was read is kept (`TitleChoice.metadata`: `title_source`, and for a filing cover `issuer`,
`document_kind`, `period`, `period_end`), so a user can filter on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ingest.contracts.elements import Element, ElementType
from parsers.pdf_info import sensible_title
from parsers.structure.settings import TitleSettings, TitleSource

_MONTH = (
    r"(?i:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
#: A date as filing covers print it: "December 31, 2023", "Dec. 31, 2023", "31 December 2023".
_DATE = rf"(?:{_MONTH}\s+\d{{1,2}},?\s+(?:19|20)\d{{2}}|\d{{1,2}}\s+{_MONTH},?\s+(?:19|20)\d{{2}})"
#: Years, year ranges and dates are taken out before a line is compared with the shared lines.
_DATES_AND_YEARS = re.compile(
    rf"{_DATE}|(?<![\w-])(?:fy\s?'?)?(?:19|20)\d{{2}}(?:\s?[-/–]\s?(?:19|20)?\d{{2}})?(?![\w-])", re.IGNORECASE
)

#: The caption SEC forms print under the registrant's name.
_REGISTRANT = re.compile(
    r"\(?\s*exact\s+name\s+of\s+(?:the\s+)?registrants?\s+as\s+specified\s+in\s+(?:its|their)\s+charters?\s*\)?", re.I
)
#: "Commission File Number: 001-37622", the line SEC covers print just above the registrant's name.
_FILE_NUMBER = re.compile(r"commission\s+file\s+(?:number|no\.?)\s*:?\s*[\d-]+", re.I)
#: The form a filing cover names: "FORM 10-K", "Form 10-Q", "FORM 8-K", "FORM 20-F", "Form 10-K/A".
_FORM = re.compile(r"\bform\s+(\d{1,2}-[A-Z]{1,2}(?:/A)?|[A-Z]-\d{1,2}(?:/A)?)(?![\w-])", re.I)
#: The period a periodic report covers, and the date an event report is dated.
_PERIOD = re.compile(
    rf"\bfor\s+the\s+(fiscal\s+year|quarterly\s+period|year|quarter|period)\s+ended\s*:?\s*({_DATE})", re.I
)
_EVENT_DATE = re.compile(rf"\bdate\s+of\s+(?:the\s+)?report\s*(?:\([^)]*\))?\s*:?\s*({_DATE})", re.I)
#: A news release's dateline: "City, State (Date) – Issuer (NYSE: TICK) today announced results for
#: ...". News releases (an earnings release is filed as a current report's exhibit) open their
#: first paragraph so, and the issuer with its listing and the date are what tell one release
#: from another.
_DATELINE = re.compile(
    rf"\(({_DATE})\)\s*[-\u2013\u2014]+\s*(?P<issuer>[^()]{{2,120}}?)\s*\((?:NYSE|NASDAQ|Nasdaq|NYSE American|"
    rf"TSX|LSE|OTC\w*)\s*:\s*[A-Z.]{{1,6}}\)\s*(?:today\s+)?(?:announced|reported)\s+(?P<what>[^.\u201c\"]{{3,}})",
)
#: Runs of underscores or dashes: the rules that filing covers draw between their lines as text.
_RULE_TEXT = re.compile(r"[_\u2014\u2013-]{3,}")


@dataclass(frozen=True)
class FilingCover:
    """What an SEC-style filing cover states: the registrant's name as printed, the form
    ("Form 10-K"), the period as printed ("fiscal year ended December 31, 2023", "report dated
    August 30, 2023") and its end as an ISO date, when the cover gives them."""

    issuer: str
    document_kind: str
    period: str | None = None
    period_end: str | None = None
    #: What a news release announces ("results for second-quarter 2023"), as its dateline says.
    subject: str | None = None

    @property
    def title(self) -> str:
        period = f", {self.period}" if self.period else ""
        return f"{self.issuer} - {self.document_kind}{period}" + (f": {self.subject}" if self.subject else "")


@dataclass(frozen=True)
class TitleChoice:
    """The chosen title (None: no source gave one), where it came from, and the filing cover
    when one was read (also when another source won, its facts are still metadata)."""

    title: str | None
    source: TitleSource | None
    cover: FilingCover | None = None
    #: The typographic title when it was refused as a shared or running line, or when the chosen
    #: title already says it (a filing's issuer set large): its heading must not head every
    #: chunk under the title (`elements_without_shared_title`).
    refused_heading: str | None = None

    @property
    def metadata(self) -> dict[str, str]:
        """Document metadata keys: `title_source`, and `issuer`, `document_kind`, `period`,
        `period_end` from a filing cover, each only when known."""
        found: dict[str, str] = {}
        if self.source:
            found["title_source"] = self.source
        if self.cover is not None:
            found.update(issuer=self.cover.issuer, document_kind=self.cover.document_kind)
            if self.cover.period:
                found["period"] = self.cover.period
            if self.cover.period_end:
                found["period_end"] = self.cover.period_end
            if self.cover.subject:
                found["subject"] = self.cover.subject
        return found


def shared_line_key(text: str) -> str:
    """`text` case folded, with dates, years and punctuation at the ends taken out and spaces
    collapsed: the form in which it is compared with `TitleSettings.shared_lines`."""
    text = _DATES_AND_YEARS.sub(" ", text.casefold().replace("\u2019", "'"))
    return " ".join(text.split()).strip(" .,:;-–—|/()[]")


def is_shared_line(text: str, settings: TitleSettings) -> bool:
    """A line that many documents share (an agency or form line, "Annual Report 2023", "Table of
    Contents", a bare agency name): never a title alone. An empty line is one too."""
    key = shared_line_key(text)
    return not key or any(re.fullmatch(pattern, key) for pattern in settings.shared_lines)


def _running_key(text: str) -> str:
    return re.sub(r"[\W\d_]+", "", text.casefold())


def is_running_line(text: str, elements: list[Element], page_count: int, settings: TitleSettings) -> bool:
    """Is `text`, as a line on page 1, a running header: the same words (digits aside) at the
    same height (within `running_top_tolerance`) on at least `running_min_pages` pages and
    `running_min_share` of the document's pages? A manual's title set large on its first page
    and repeated small in the running head above is no running line: its height differs."""
    key, line = _running_key(text), " ".join(text.split())
    tops = [e.bbox[1] for e in elements if e.page == 1 and e.bbox is not None and " ".join(e.text.split()) == line]
    if not key or not tops:
        return False
    pages = {
        e.page
        for e in elements
        if e.bbox is not None
        and _running_key(e.text) == key
        and any(abs(e.bbox[1] - top) <= settings.running_top_tolerance for top in tops)
    }
    return len(pages) >= max(settings.running_min_pages, settings.running_min_share * page_count)


def outline_to_title(outline: list[tuple[int, str, int]]) -> str | None:
    """The outline's root when it is the only top-level bookmark, has bookmarks under it and
    points at page 1 (or nowhere): the name the author gave the whole document. None otherwise."""
    roots = [(title, page) for level, title, page in outline if level == 0]
    if len(roots) != 1 or len(roots) == len(outline) or roots[0][1] not in (0, 1):
        return None
    return roots[0][0]


def _cover_lines(elements: list[Element], settings: TitleSettings) -> list[str]:
    """The text of the first `cover_pages` pages as lines in reading order: each element's text
    (each table cell on its own), split at rules drawn as underscores."""
    lines: list[str] = []
    for element in elements:
        if element.page > settings.cover_pages:
            break
        texts = [cell for row in element.rows for cell in row] if element.rows else element.text.splitlines()
        for text in texts:
            lines.extend(part.strip() for part in _RULE_TEXT.split(text) if part.strip())
    return lines


def _issuer(lines: list[str], settings: TitleSettings) -> str | None:
    """The registrant's name: the text just before the "(Exact name of registrant ...)" caption
    (on its line, else the line above), else the text just after "Commission File Number ..."
    (covers that leave the caption out set the name right below the file number)."""
    for index, line in enumerate(lines):
        match = _REGISTRANT.search(line)
        if match:
            before = _FILE_NUMBER.split(line[: match.start()])[-1].strip()
            if not before and index:
                before = _FILE_NUMBER.split(lines[index - 1])[-1].strip()
            return _name_or_none(before, settings)
    for index, line in enumerate(lines):
        match = _FILE_NUMBER.search(line)
        if match:
            after = line[match.end() :].strip() or (lines[index + 1] if index + 1 < len(lines) else "")
            return _name_or_none(after, settings)
    return None


def _name_or_none(text: str, settings: TitleSettings) -> str | None:
    """`text` when it can be a registrant's name: letters, not a caption in parentheses, at most
    `issuer_max_chars` long."""
    text = " ".join(text.split()).strip(" :;,")
    if not text or text.startswith("(") or len(text) > settings.issuer_max_chars:
        return None
    return text if any(c.isalpha() for c in text) else None


def _iso_date(text: str) -> str | None:
    text = re.sub(r"\s+", " ", text.replace(",", "").replace(".", "")).strip()
    for pattern in ("%B %d %Y", "%b %d %Y", "%d %B %Y", "%d %b %Y"):
        try:
            return datetime.strptime(text, pattern).date().isoformat()
        except ValueError:
            continue
    return None


def elements_to_filing_cover(elements: list[Element], settings: TitleSettings) -> FilingCover | None:
    """The issuer, form and period of an SEC-style filing cover on the first `cover_pages`
    pages; None unless both a form and the registrant's name are found."""
    lines = _cover_lines(elements, settings)
    text = " ".join(lines)
    form = _FORM.search(text)
    issuer = _issuer(lines, settings) if form else None
    if form is None or issuer is None:
        return _dateline_to_cover(text, settings)
    period = end = None
    periodic = _PERIOD.search(text)
    if periodic:
        end = " ".join(periodic.group(2).split())
        period = f"{' '.join(periodic.group(1).split()).lower()} ended {end}"
    else:
        event = _EVENT_DATE.search(text)
        if event:
            end = " ".join(event.group(1).split())
            period = f"report dated {end}"
    return FilingCover(
        issuer=issuer,
        document_kind=f"Form {form.group(1).upper()}",
        period=period,
        period_end=_iso_date(end) if end else None,
    )


def _dateline_to_cover(text: str, settings: TitleSettings) -> FilingCover | None:
    """A news release's issuer, date and what it announces ("results for second-quarter 2023")
    from its dateline (`_DATELINE`); None without one."""
    match = _DATELINE.search(text)
    issuer = _name_or_none(match.group("issuer"), settings) if match else None
    if issuer is None:
        return None
    date = " ".join(match.group(1).split())
    what = " ".join(match.group("what").split()).rstrip(" ,;:")
    return FilingCover(
        issuer=issuer,
        document_kind="News release",
        period=date,
        period_end=_iso_date(date),
        subject=what if len(what) <= settings.issuer_max_chars else None,
    )


def page_one_headings(elements: list[Element], max_top: float) -> list[str]:
    """The headings of page 1 that start above `max_top` (points from the top), highest level
    first, in reading order within a level: the last source of a title, e.g. from OCR, tried in
    turn so that an agency line set as the top heading leaves the notice's own heading below
    it. A title chosen by type starts high: a cover's large slogan lower down is no title."""
    found = [
        (e.heading_level or 1, index, e.text)
        for index, e in enumerate(elements)
        if e.page == 1 and e.type is ElementType.title and (e.bbox is None or e.bbox[1] < max_top)
    ]
    return [text for _, _, text in sorted(found)]


def document_to_title_choice(
    typographic: str | None,
    info_title: str | None,
    outline: list[tuple[int, str, int]],
    elements: list[Element],
    page_count: int,
    first_headings: list[str],
    settings: TitleSettings,
) -> TitleChoice:
    """The title from the first source in `settings.sources` whose candidate is neither a shared
    line (`is_shared_line`), nor a running header (`is_running_line`, for lines of page 1), nor
    longer than `max_chars`. `info_title` is the info Title already judged sensible
    (`sensible_info_title`); `first_headings` page 1's headings high up (`page_one_headings`),
    tried in turn."""
    cover = elements_to_filing_cover(elements, settings) if "filing_cover" in settings.sources else None
    candidates: dict[str, list[str | None]] = {
        "filing_cover": [cover.title if cover else None],
        "outline": [sensible_title(outline_to_title(outline) or "", settings)],
        "typographic": [typographic],
        "pdf_info": [info_title],
        "first_heading": list(first_headings),
    }
    printed = ("typographic", "first_heading")  # lines of page 1, which may be its running head

    def refused(source: str, text: str) -> bool:
        return is_shared_line(text, settings) or (
            source in printed and is_running_line(text, elements, page_count, settings)
        )

    refused_heading = typographic if typographic and refused("typographic", typographic) else None
    for source in settings.sources:
        for candidate in candidates[source]:
            candidate = " ".join((candidate or "").split())
            if candidate and len(candidate) <= settings.max_chars and not refused(source, candidate):
                if typographic and source != "typographic" and _says(candidate, typographic):
                    refused_heading = typographic  # "ACME CORP" under "ACME CORP - Form 10-K, ...": said twice
                return TitleChoice(title=candidate, source=source, cover=cover, refused_heading=refused_heading)
    return TitleChoice(title=None, source=None, cover=cover, refused_heading=refused_heading)


def _says(title: str, heading: str) -> bool:
    """Does `title` carry `heading`'s words, in order (case and spacing aside), and more?"""
    title, heading = " ".join(title.casefold().split()), " ".join(heading.casefold().split())
    return heading in title and heading != title


def elements_without_shared_title(elements: list[Element], choice: TitleChoice) -> list[Element]:
    """`elements` with the page-1 level-1 heading of a refused typographic title
    (`TitleChoice.refused_heading`) made a paragraph: a filing's agency line, a running header
    set large on the cover, or the issuer's name the title already carries is the cover's text,
    not the heading every chunk sits under (below the title, it would be said twice).
    The other elements are returned as they are; so is the list when nothing was refused."""
    if choice.refused_heading is None:
        return elements
    for index, element in enumerate(elements):
        if element.page == 1 and element.type is ElementType.title and element.heading_level == 1:
            if " ".join(element.text.split()) == " ".join(choice.refused_heading.split()):
                paragraph = element.model_copy(update={"type": ElementType.paragraph, "heading_level": None})
                return elements[:index] + [paragraph] + elements[index + 1 :]
    return elements
