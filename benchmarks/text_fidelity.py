"""Text fidelity: does every word of a page's text layer reach an element, spelled as printed?

Measures issue 12 ("Nothing lost, nothing glued") against pypdfium2's own text of each page
(`get_text_range`), which is independent of the parser's character grouping.

    python benchmarks/text_fidelity.py                          # corpus + every bench folder
    python benchmarks/text_fidelity.py a.pdf --max-pages 40 --json out.json --examples 5
    python benchmarks/text_fidelity.py --jobs 2                 # two files at once, a process each

Rules (pure functions: the words in `text_fidelity_words.py`, the matching in
`text_fidelity_match.py`; only `read_text_layer`, `first_pages_copy`, `measure_file` here read PDFs):

- The page text (`text_layer_glyphs.py`, its docstring states the rules): pypdfium2's text
  without its spaces inside fixed-pitch cells ("console.log(") or its line breaks inside a
  Korean word ("확" / "진자"), with a space where a superscript starts or ends (a glyph under
  0.85 of its neighbour's size, baseline raised 0.2 em or more: pypdfium2 reads "11The", the
  parser sets it apart), and, on a page pypdfium2 reads one glyph per line ("T\\r\\na\\r\\nb..."
  while the glyphs sit side by side on one baseline: CORNING p82), the text rebuilt from glyph
  positions (baseline, then a gap over 0.05 em between advance boxes is a word break).
- Words: text NFKC-normalised and split on whitespace; zero-width marks and soft hyphens removed,
  punctuation, symbols and private-use glyphs (Unicode P*, S*, Co) stripped from both ends of a
  token; empty tokens are no words. Each Han or kana character is a word of its own (no spaces in
  those scripts). No word boundary before a combining mark; words holding Devanagari compare by
  their sorted characters (matra order in a text layer depends on the producer). Arabic vowel
  marks (harakat) are removed (producers set them before or after their letter), and a word
  boundary is set where Arabic script meets Latin ("وPython": two bidi runs).
- Lines of the text layer: a line whose last token ends in "-", U+00AD, U+0002 or U+FFFE (pdfium's
  marks for a line-end hyphen; pdfium then drops the line break) is joined with the next line's
  first token into one word `left + BREAK + right`, which the output must spell "left-right" or
  "leftright", except that a compound (`is_compound_break`) must keep its hyphen.
  A token framed by hyphens ("-1-", the folio atop CORNING's exhibit pages) is no broken word.
  A word ending in a hyphen inside a line (`mid_line_breaks`: a table cell broken at its own
  line end, read side by side with the next cells of its row, "Weighted- Number of") and the
  word that goes on after it both count as found when the output holds them joined at that
  hyphen ("Weighted-average", 3M p130); two lost words joined at a hyphen the text layer does
  not print stay lost. A line-end break pypdfium2 paired with the next line's first word when
  that word is another column's (a stacked header read row by row: "Non-" + "preferred", the
  cell's rest "controlling" ending that line; `_breaks_paired_across_columns`) counts as
  found, with that rest, when the output holds the paired word alone and "Non-controlling".
  A line that is one number alone (a folio) does not take a line-end hyphen of a word part
  ending in lower case: the word goes on after it ("year-on-" / "31" / "year"). A word broken
  at the end of a page (pdfium may also pair it with the folio, "e" U+0002 "3") is joined with
  the first of the next page's first 3 lines that starts in lower case, and counts on its page.
- Per page, the reference words are matched against the multiset of words of the page's elements:
  element texts (titles, paragraphs, list items, captions, headers, footers, page numbers, rotated
  text) and table cells; a table continued across pages serves every page it spans.
- Every reference word left unmatched is LOST. Lost words are then explained, in this order, by
  the output's extra words (those the text layer lacks), compared by `squeeze` (punctuation,
  symbols and hyphens ignored, so "of“large" ~ "of" + "large"):
  hyphen: a word whose hyphen is missing in an extra ("non-normal" -> "nonnormal");
  glued: an extra made of 2-5 consecutive lost words ("ofthe"), or of 6-20 one-letter words
      (a word pypdfium2 spaces letter by letter); its words stay lost, the token is
      counted once in `glued`, and in `glued_fn` when one of its words is a function word;
  split: a lost word equal to 2-4 consecutive extras (a space inside a word: "COVID- 19", "확 진자");
  marker: a word found only in a list item's `data["marker"]` (not in the text a chunk embeds);
  offpage: a word pypdfium2 reads outside the page's visible box (its glyph box is);
  recorded: a word of a drop the parser recorded on that page with its reason
      (`PageInfo.dropped` samples: margin line numbers, a continued table's repeated header;
      off-page drops are left to `offpage`), taken before any output word is matched;
  dropped: the rest, text that reached no element at all.
  `unaccounted` = lost - offpage - recorded: the words the invariant says must be none.
- Second reader: pdftotext (poppler, when installed) decides word boundaries pypdfium2 gets
  wrong. A glued token it reads as one word, or a split word whose parts it reads as
  consecutive words, leaves `lost` for `second` (pypdfium2 runs words together across a font
  change, "Expensessection", breaks one at a font change, or spaces a page letter by letter,
  "T a b l e"). A glued function word is never excused this way unless its parts are single
  letters. Without pdftotext nothing is excused.
- Pages the parser routes to OCR (`PageInfo.ocr_reason`: OCR'd, emptied as glyph garbage, or an
  OCR layer of garbage it keeps only in "never" mode) are excluded (listed in `excluded_pages`).
"""

from __future__ import annotations

import argparse
import builtins
import json
import os
import shutil
import sys
import tempfile
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from text_fidelity_match import CATEGORIES, compare_page, glued_function_words  # noqa: E402
from text_fidelity_words import (  # noqa: E402
    BREAK,
    breaks_to_line_ends,
    inline_compounds,
    line_starts,
    mid_line_breaks,
    output_words,
    pages_joined_at_breaks,
    reference_words,
)
from text_layer_glyphs import is_superscript_boundary, page_glyphs, page_texts  # noqa: E402, F401 - a sibling script

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DEFAULT_GLOBS = ("corpus/*.pdf", "bench/*/*.pdf")


def document_outputs(document, page_count: int) -> tuple[list[list[str]], list[list[str]], list[list[Counter]]]:
    """Per page (index 0 = page 1): output words in reading order, list-marker words, and the
    shared counters of tables spanning several pages."""
    words: list[list[str]] = [[] for _ in range(page_count)]
    markers: list[list[str]] = [[] for _ in range(page_count)]
    shared: list[list[Counter]] = [[] for _ in range(page_count)]
    for element in document.elements:
        if element.rows is not None:
            text = "\n".join(cell for row in element.rows for cell in row)
        else:
            text = element.text
        found = output_words(text)
        last = element.page_end or element.page
        if last > element.page:
            counter = Counter(found)
            for page in range(element.page, min(last, page_count) + 1):
                shared[page - 1].append(counter)
        elif element.page <= page_count:
            words[element.page - 1].extend(found)
        extra = element.data.get("extra") if isinstance(element.data.get("extra"), dict) else {}
        marker = element.data.get("marker") or extra.get("marker")
        if marker and element.page <= page_count:
            markers[element.page - 1].extend(output_words(str(marker)))
    return words, markers, shared


def read_pdftotext(path: str, count: int) -> list[list[str]] | None:
    """Per page, pdftotext's words (poppler, raw order), or None when it is not installed."""
    import subprocess

    if not shutil.which("pdftotext"):
        return None
    done = subprocess.run(["pdftotext", "-enc", "UTF-8", path, "-"], capture_output=True, check=False)
    pages = done.stdout.decode("utf-8", "replace").split("\f")
    return [output_words(pages[i]) if i < len(pages) else [] for i in range(count)]


def read_text_layer(path: str) -> tuple[list[str], list[str]]:
    """Per page: the reference text (`text_layer_glyphs.page_texts`: pypdfium2's text,
    superscripts set apart, rebuilt from glyph positions on a page it reads one glyph per line),
    and its words drawn only outside the visible box."""
    import pypdfium2 as pdfium

    texts, outside = [], []
    document = pdfium.PdfDocument(path)
    try:
        for index in range(len(document)):
            page = document[index]
            textpage = page.get_textpage()
            text, away = page_texts(page_glyphs(textpage, page.get_bbox()))
            outside.append(" ".join(reference_words(away)))
            texts.append(text)
            textpage.close()
            page.close()
    finally:
        document.close()
    return texts, outside


def first_pages_copy(path: str, max_pages: int) -> str | None:
    """A temporary PDF of the first `max_pages` pages, or None when the file is not longer."""
    import pypdfium2 as pdfium

    source = pdfium.PdfDocument(path)
    try:
        if not max_pages or len(source) <= max_pages:
            return None
        cut = pdfium.PdfDocument.new()
        cut.import_pages(source, list(range(max_pages)))
        handle, tmp = tempfile.mkstemp(suffix=".pdf")
        os.close(handle)
        cut.save(tmp)
        cut.close()
        return tmp
    finally:
        source.close()


def measure_file(path: str, max_pages: int = 0, examples: int = 10) -> dict:
    """Parse `path` once (OCR off) and compare every text-layer page with its elements."""
    from ingest.contracts.elements import DropReason
    from parsers import parse_pdf

    cut = first_pages_copy(path, max_pages)
    try:
        document = parse_pdf(cut or path, {"ocr": {"mode": "never"}})
        texts, outside = read_text_layer(cut or path)
        second = read_pdftotext(cut or path, len(texts))
    finally:
        if cut:
            os.unlink(cut)
    count = len(texts)
    reference = pages_joined_at_breaks([reference_words(t) for t in texts], [line_starts(t) for t in texts])
    compounds = inline_compounds(reference)
    words, markers, shared = document_outputs(document, count)
    totals = Counter()
    samples: dict[str, list] = {k: [] for k in CATEGORIES[1:]}
    excluded = []
    for index, info in enumerate(document.pages[:count]):
        if info.ocr_reason:  # OCR'd, or would be in "auto": its text layer is not what the parser keeps
            excluded.append(index + 1)
            continue
        offpage = output_words(outside[index])
        recorded = output_words(" ".join(d.sample for d in info.dropped if d.reason != DropReason.off_page))
        result = compare_page(reference[index], words[index], markers=markers[index], offpage=offpage,
                              recorded=recorded, shared=shared[index], compounds=compounds,
                              second=second[index] if second else None,
                              cell_breaks=mid_line_breaks(texts[index]),
                              column_breaks=breaks_to_line_ends(texts[index]))  # fmt: skip
        totals.update({k: len(getattr(result, k)) for k in CATEGORIES})
        totals.update(pages=1, words=result.words, glued_fn=glued_function_words(result.glued))
        for key, found in samples.items():
            for item in getattr(result, key)[: max(examples - len(found), 0)]:
                shown = item if isinstance(item, str) else f"{item[0]} <- {' '.join(item[1])}"
                found.append([index + 1, shown.replace(BREAK, "-")])
    row = {"file": str(path), "excluded_pages": excluded}
    row.update({k: totals[k] for k in ("pages", "words", "glued_fn", *CATEGORIES)})
    row["unaccounted"] = totals["lost"] - totals["offpage"] - totals["recorded"]
    row["lost_pct"] = round(100 * totals["lost"] / totals["words"], 2) if totals["words"] else 0.0
    row["examples"] = samples
    return row


def _measure_or_error(path: str, max_pages: int, examples: int) -> dict | str:
    """`measure_file`'s row, or the error that stopped it as one line: one unreadable file must
    not stop the measurement."""
    try:
        return measure_file(path, max_pages, examples)
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__}: {error}"


COLUMNS = ("pages", "words", "lost", "lost_pct", "unaccounted", "dropped", "glued", "glued_fn")
COLUMNS += ("hyphen", "split", "marker", "offpage", "recorded", "second")


def format_rows(rows: list[dict]) -> str:
    """A Markdown table, one row per file and a total row."""
    lines = ["| file | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    total = Counter()
    for row in rows:
        name = Path(row["file"]).parent.name + "/" + Path(row["file"]).name
        lines.append(f"| {name} | " + " | ".join(str(row[c]) for c in COLUMNS) + " |")
        total.update({c: row[c] for c in COLUMNS if c != "lost_pct"})
    total["lost_pct"] = round(100 * total["lost"] / total["words"], 2) if total["words"] else 0.0
    lines.append("| **total** | " + " | ".join(str(total[c]) for c in COLUMNS) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="PDF files (default: ../shared/corpus and ../shared/bench/*)")
    parser.add_argument("--max-pages", type=int, default=0, help="only the first N pages of longer files (0 = all)")
    parser.add_argument("--json", help="write the per-file results (with examples) to this file")
    parser.add_argument("--examples", type=int, default=0, help="print this many examples per category and file")
    parser.add_argument("--jobs", type=int, default=1, help="measure this many files at once, a process each")
    args = parser.parse_args(argv)
    if not shutil.which("pdftotext"):
        print(
            "text_fidelity: pdftotext not found (Debian poppler-utils, installed by ./install.sh --dev): "
            "no second reader, so pypdfium2's own word-boundary faults count as lost or glued words",
            file=sys.stderr,
        )
    defaults = [str(p) for pattern in DEFAULT_GLOBS for p in sorted(SHARED.glob(pattern))]
    paths = args.paths or defaults
    jobs = [(path, args.max_pages, max(args.examples, 10)) for path in paths]
    with ProcessPoolExecutor(args.jobs) if args.jobs > 1 else nullcontext() as pool:
        outcomes = (pool or builtins).map(_measure_or_error, *zip(*jobs))  # rows in input order, as they come
        rows = []
        for path, outcome in zip(paths, outcomes):
            if isinstance(outcome, str):
                print(f"{path}: {outcome}", file=sys.stderr)
                continue
            rows.append(outcome)
            shown = {k: v[: args.examples] for k, v in outcome["examples"].items() if v and args.examples}
            if shown:
                print(f"{path}: {json.dumps(shown, ensure_ascii=False)}", file=sys.stderr, flush=True)
    print(format_rows(rows))
    if args.json:
        report = {"max_pages": args.max_pages, "files": rows}
        Path(args.json).write_text(json.dumps(report, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    if not os.environ.get("PYTHONPATH"):  # a PYTHONPATH names the code to measure (validate.py's sides)
        sys.path.insert(0, str(ROOT))
    sys.exit(main())
