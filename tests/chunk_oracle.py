"""An oracle for the chunker's structure, written from the contract and nothing of the chunker.

The property tests check the chunks against these functions, not against the chunker's own
section builder: a bug shared by the chunker and its self-check would pass a check that
reuses the chunker's code.

- Heading paths: a level -> headings map over the elements in reading order; a heading drops
  every deeper level; the document title, when set, heads every path (once: a first heading
  that repeats it is not repeated). Headings in a row at one level ("PART I" then at once
  "Item 1. Business") stack: the bodiless ones, at most `carried_max` of them, stay in the path
  of the heading after them and of everything under it.
- Table pieces: every piece of a table with header rows starts (after its caption line) with
  one Markdown header line holding each header cell of its columns, then the `| --- |` line
  (a table of header rows alone, and a piece holding the caption alone, head nothing).
"""

from __future__ import annotations

from ingest.contracts.chunks import Chunk
from ingest.contracts.elements import Document, Element


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def element_heading_paths(document: Document, carried_max: int = 2) -> list[list[str]]:
    """For each element, the headings it sits under. A heading sits under the headings above
    it, not under itself: a heading that heads nothing (the document ends) is text of the
    section it sits in. A heading that follows another of its level at once (no body between)
    sits under the last `carried_max` headings of that run too, and so does all it heads."""
    title = _squeeze(document.title or "")
    in_force: dict[int, list[str]] = {}
    paths = []
    previous_heading_level = None  # the level of the previous body element when it is a heading
    for element in document.elements:
        if element.is_furniture:
            paths.append([])
            continue
        carried: list[str] = []
        if element.type == "title":
            level = element.heading_level or 1
            if previous_heading_level == level and carried_max:
                carried = in_force.get(level, [])[-carried_max:]
            in_force = {lvl: texts for lvl, texts in in_force.items() if lvl < level}
        path = [text for lvl in sorted(in_force) for text in in_force[lvl]] + carried
        if element.type == "title":
            in_force[level] = carried + [_squeeze(element.text)]
            previous_heading_level = level
        else:
            previous_heading_level = None
        if title and not (path and path[0].casefold() == title.casefold()):
            path = [title] + path
        paths.append(path)
    return paths


def common_prefix(paths: list[list[str]]) -> list[str]:
    """The longest list every path starts with."""
    if not paths:
        return []
    prefix = paths[0]
    for path in paths[1:]:
        size = 0
        while size < min(len(prefix), len(path)) and prefix[size] == path[size]:
            size += 1
        prefix = prefix[:size]
    return prefix


def expected_heading_path(document: Document, chunk: Chunk, paths: list[list[str]]) -> list[str]:
    """The headings every element of the chunk sits under: the common prefix of their paths."""
    body = [paths[i] for i in chunk.element_indexes if not document.elements[i].is_furniture]
    return common_prefix(body)


def _bodiless_headings(document: Document) -> set[str]:
    """Texts of the headings followed at once by another heading (furniture between set aside)."""
    body = [element for element in document.elements if not element.is_furniture]
    return {
        _squeeze(element.text)
        for element, following in zip(body, body[1:])
        if element.type == "title" and following.type == "title"
    }


def _without(path: list[str], texts: set[str]) -> list[str]:
    return [text for text in path if text not in texts]


def heading_path_problems(document: Document, chunks: list[Chunk], carried_max: int = 2) -> list[str]:
    """Chunks whose heading path is not the one the elements give them (`carried_max`: the chunk
    settings' `carried_headings_max`)."""
    paths = element_heading_paths(document, carried_max)
    bodiless = _bodiless_headings(document)
    problems = []
    for chunk in chunks:
        expected = expected_heading_path(document, chunk, paths)
        actual = list(chunk.heading_path)
        if chunk.metadata.get("lead_in"):  # a list's lead-in repeated as the last entry
            actual = actual[:-1]
        if chunk.metadata.get("heading_path_truncated"):
            # outermost headings dropped, then the innermost cut at a word
            ok = (
                bool(actual)
                and len(actual) <= len(expected)
                and actual[:-1] == expected[len(expected) - len(actual) : -1]
                and expected[-1].startswith(actual[-1].rstrip(" …."))
            )
        else:
            # where both put the same headings, it is the same path up to how a run of bodiless
            # headings is carried: those are compared as present or absent, not by position
            ok = actual == expected or _without(actual, bodiless) == _without(expected, bodiless)
        if not ok:
            problems.append(f"chunk {chunk.index}: heading path {chunk.heading_path}, elements say {expected}")
    return problems


def _header_cells(table: Element, columns: list[int] | None) -> list[str]:
    """The header cells a piece must show, one per column: the header rows' texts of that column."""
    width = max(len(row) for row in table.rows)
    keep = columns if columns is not None else list(range(width))
    cells = []
    for column in keep:
        parts = [_squeeze(row[column]) for row in table.rows[: table.header_rows] if column < len(row)]
        # a cell spanning two header rows repeats its text in both: it is shown once
        cells.append([part for position, part in enumerate(parts) if part and part not in parts[:position]])
    return cells


def table_header_problems(document: Document, chunks: list[Chunk]) -> list[str]:
    """Table pieces that do not start with their table's header rows."""
    problems = []
    for chunk in chunks:
        if chunk.kind != "child" or "table_element" not in chunk.metadata:
            continue
        table = document.elements[chunk.metadata["table_element"]]
        if not table.header_rows or len(table.rows or []) <= table.header_rows:
            continue  # no header, or nothing but header rows: no data row for a header to head
        if chunk.metadata.get("table_rows") == []:
            continue  # the caption alone, when even one column of the table does not fit beside it
        lines = chunk.body.split("\n")
        while lines and not lines[0].startswith("|"):  # the caption (the table's or a caption element's)
            lines = lines[1:]
        where = f"chunk {chunk.index} (table {chunk.metadata['table_element']})"
        if len(lines) < 2 or not lines[0].startswith("|") or not lines[1].replace(" ", "").startswith("|---"):
            problems.append(f"{where}: does not start with a header line and its | --- | line: {lines[:2]}")
            continue
        header = _squeeze(lines[0].replace("\\|", "|"))
        position = 0
        for cell_parts in _header_cells(table, chunk.metadata.get("table_columns")):
            for part in cell_parts:
                found = header.find(part, position)
                if found < 0:
                    problems.append(f"{where}: header cell {part!r} missing or out of order in {lines[0]!r}")
                    break
                position = found + len(part)
    return problems
