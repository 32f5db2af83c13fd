"""Long documents read as page ranges by several workers (`parsers.pages`, `ingest.pipeline.split`):
the same `Document` and the same stored rows as one pass, and a failed part fails its document once."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from ingest.pipeline.settings import PipelineSettings
from ingest.pipeline.split import _as_document_result, _Document, _Part, _part_done
from ingest.pipeline.workers import Failure, Job, TaskResult, timeout_message
from parsers.pages import PagesRead, page_ranges, pages_read_in_order, read_page_range_of_file
from parsers.pdf import parse_pdf
from parsers.settings import ParseSettings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_page_ranges_are_consecutive_even_and_cover_every_page():
    assert page_ranges(10, 3) == [(0, 4), (4, 7), (7, 10)]
    assert page_ranges(2, 4) == [(0, 1), (1, 2)]  # never an empty range
    assert page_ranges(619, 2) == [(0, 310), (310, 619)]
    assert page_ranges(5, 1) == [(0, 5)]


def test_parts_are_put_back_in_page_order_and_a_gap_is_refused():
    first, second = PagesRead(first=0, warnings=["a"]), PagesRead(first=0, warnings=["b"])
    first.layouts = [object(), object()]  # type: ignore[list-item] - only counted here
    second.first = 2
    whole = pages_read_in_order([second, first])
    assert whole.first == 0 and whole.stop == 2 and whole.warnings == ["a", "b"]
    second.first = 3
    with pytest.raises(ValueError, match="do not join"):
        pages_read_in_order([first, second])


@pytest.mark.parametrize("name", ["crop_manual.pdf", "pest_advisory.pdf", "mixed.pdf"])
def test_a_document_parsed_from_page_ranges_is_the_document_of_one_pass(name):
    """Running headers, headings, continued tables and OCR'd pages are document-wide: they run
    once over the pages read, so reading the pages in three parts changes nothing."""
    path = FIXTURES / name
    settings = ParseSettings()
    import pypdfium2

    pages = len(pypdfium2.PdfDocument(path))
    parts = [read_page_range_of_file(path, settings, first, stop) for first, stop in page_ranges(pages, 3)]
    split = parse_pdf(path, settings, pages_read=pages_read_in_order(parts))
    assert split.model_dump_json() == parse_pdf(path, settings).model_dump_json()


def test_pages_read_that_do_not_cover_the_document_are_ignored():
    path = FIXTURES / "pest_advisory.pdf"
    part = read_page_range_of_file(path, ParseSettings(), 0, 2)
    assert parse_pdf(path, pages_read=part).model_dump_json() == parse_pdf(path).model_dump_json()


def stored_rows(db: Path) -> dict[str, list]:
    """Every document's elements and chunks as stored, run-dependent ids left out."""
    connection = sqlite3.connect(db)
    rows = {}
    for doc_id, source in connection.execute("select id, source_path from documents order by source_path"):
        elements = connection.execute(
            "select seq, page_no, type, heading_level, text, x0, top, x1, bottom, data from elements "
            "where document_id = ? order by seq",
            (doc_id,),
        ).fetchall()
        chunks = connection.execute(
            "select seq, kind, text, heading_path, page_start, page_end, token_count, language from chunks "
            "where document_id = ? order by seq",
            (doc_id,),
        ).fetchall()
        rows[Path(source).name] = [elements, chunks]
    connection.close()
    return rows


@pytest.mark.slow
def test_a_run_that_splits_documents_stores_what_a_serial_run_stores(tmp_path):
    from ingest.pipeline.batch import run_pipeline

    pdfs = [str(FIXTURES / name) for name in ("crop_manual.pdf", "pest_advisory.pdf", "two_column.pdf")]
    never = {"parse": {"ocr": {"mode": "never"}}}
    serial = run_pipeline(pdfs, {**never, "workers": 0}, db=str(tmp_path / "serial.db"))
    split = run_pipeline(pdfs, {**never, "workers": 2, "split_pages": 2}, db=str(tmp_path / "split.db"))
    assert serial.counts["new"] == split.counts["new"] == 3 and not split.failed
    assert stored_rows(tmp_path / "split.db") == stored_rows(tmp_path / "serial.db")


def _document(timeout: float = 60.0) -> _Document:
    job = Job("long.pdf", settings=PipelineSettings(timeout=timeout, workers=2))
    return _Document(tag="long.pdf", job=job, parts=2, started=time.monotonic())


def test_a_failed_part_fails_its_document_once_and_the_other_parts_are_dropped():
    document = _document()
    failure = TaskResult(value=Failure(stage="parse", message="memory limit exceeded"), seconds=1.0)
    done = _part_done(_Part(document, 0), failure, PipelineSettings())
    assert isinstance(done, TaskResult) and done.value.message == "memory limit exceeded"
    later = TaskResult(value=PagesRead(first=5), seconds=1.0)
    assert _part_done(_Part(document, 1), later, PipelineSettings()) is None


def test_the_assembly_runs_under_what_is_left_of_the_documents_time_limit():
    document = _document(timeout=60.0)
    document.started -= 20.0  # the parts took 20 s
    settings = PipelineSettings()
    first = PagesRead(first=0, layouts=[object()] * 3)  # type: ignore[list-item] - only counted here
    assert _part_done(_Part(document, 1), TaskResult(value=PagesRead(first=3), seconds=20.0), settings) is None
    job, tag = _part_done(_Part(document, 0), TaskResult(value=first, seconds=20.0), settings)
    assert tag.document is document and job.pages_read.stop == 3 and job.pages is None
    assert 39.0 < job.settings.timeout <= 40.0
    timed_out = TaskResult(value=Failure(stage="chunk", message=timeout_message(job.settings.timeout)), seconds=40.0)
    result = _as_document_result(document, timed_out, settings)
    assert result.value == Failure(stage="chunk", message=timeout_message(60.0)) and result.seconds >= 20.0


@pytest.mark.parametrize("mode", ["auto", "never"])
def test_a_document_parsed_from_page_ranges_reports_each_page_once(mode):
    """The range reads report nothing; parsing from the pages read reports every page once, in
    order (mixed.pdf's scanned page 2 counts when OCR has read it, in "auto")."""
    path = FIXTURES / "mixed.pdf"
    settings = ParseSettings.resolve({"ocr": {"mode": mode}})
    parts = [read_page_range_of_file(path, settings, first, stop) for first, stop in page_ranges(3, 2)]
    calls: list = []
    parse_pdf(path, settings, pages_read=pages_read_in_order(parts), on_page=lambda *call: calls.append(call))
    assert calls == [(1, 3), (2, 3), (3, 3)]


@pytest.mark.slow
def test_a_split_document_reports_its_pages_through_the_progress_channel(tmp_path):
    from ingest.pipeline.batch import run_pipeline

    path = FIXTURES / "crop_manual.pdf"
    import pypdfium2

    pages = len(pypdfium2.PdfDocument(path))
    events: list = []
    summary = run_pipeline(
        [str(path)],
        {"parse": {"ocr": {"mode": "never"}}, "workers": 2, "split_pages": 2},
        db=str(tmp_path / "split.db"),
        observer=lambda event, value: events.append((event, value)),
    )
    assert summary.counts["new"] == 1 and not summary.failed
    reports = [value for event, value in events if event == "pages"]
    assert [event for event, _ in events if event in ("pages", "item")][-1] == "item"
    assert {report.total for report in reports} == {pages} and pages > 2
    done = [report.done for report in reports]
    assert done[0] == 1 and done[-1] == pages and done == sorted(set(done))
