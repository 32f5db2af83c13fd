"""Page progress: the parser reports each page once, the workers pass it to the
parent, `ingest run` shows a pages bar beside the documents bar, and no bar shows what is not
happening (quiet runs, all-unchanged runs, usage errors)."""

from __future__ import annotations

import functools
import multiprocessing
import os
import signal
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES
from typer.testing import CliRunner

from ingest.cli import app
from ingest.contracts.errors import SoftTimeout
from ingest.pipeline.progress import PageProgress, PageReporter, ProgressChannel, reporter_for, send_whole
from ingest.pipeline.settings import PipelineSettings
from ingest.pipeline.workers import Failure, TaskResult, execute
from parsers.pdf import parse_pdf

sys.path.insert(0, str(Path(__file__).parent))
from test_pipeline import make_pdf  # noqa: E402

runner = CliRunner()
PAGES = 5


def make_long_pdf(path: Path, pages: int = PAGES) -> Path:
    """A text PDF of `pages` pages (one paragraph block per page)."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_title("Long manual")
    for page in range(1, pages + 1):
        pdf.add_page()
        pdf.set_font("Helvetica", "", 11)
        pdf.multi_cell(0, 6, f"Page {page} explains how to scout the field for whitefly and aphids. " * 6)
    path.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(path))
    return path


@pytest.mark.parametrize("mode", ["auto", "never"])
def test_parse_pdf_reports_every_page_once_in_order(mode):
    # mixed.pdf: page 2 is a scan; in "auto" it counts when OCR has read it
    calls = []
    document = parse_pdf(FIXTURES / "mixed.pdf", {"ocr": {"mode": mode}}, on_page=lambda *call: calls.append(call))
    assert document.page_count == 3
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_a_page_sent_to_ocr_counts_when_ocr_has_read_it(monkeypatch):
    import parsers.ocr.tesseract as tesseract

    events: list = []
    real_ocr_one = tesseract._ocr_one

    def recorded_ocr_one(pdf, page_no, settings):
        result = real_ocr_one(pdf, page_no, settings)
        events.append(f"ocr read page {page_no}")
        return result

    monkeypatch.setattr(tesseract, "_ocr_one", recorded_ocr_one)
    parse_pdf(FIXTURES / "mixed.pdf", {"ocr": {"mode": "auto"}}, on_page=lambda *call: events.append(call))
    # pages 1 and 3 count in the text pass; the scanned page 2 only once Tesseract has read it
    assert events == [(1, 3), (2, 3), "ocr read page 2", (3, 3)]


def test_the_page_hook_changes_nothing_in_the_document():
    plain = parse_pdf(FIXTURES / "mixed.pdf")
    watched = parse_pdf(FIXTURES / "mixed.pdf", on_page=lambda _done, _total: None)
    assert watched.model_dump() == plain.model_dump()


@pytest.mark.parametrize("mode", ["auto", "never"])
def test_the_page_hook_judges_each_page_text_layer_once(monkeypatch, mode):
    # the routing verdict the progress count asks for is the one OCR routing uses
    import parsers.ocr.routing as routing

    judged: list[int] = []
    real_assess = routing.assess_text_layer

    def counted_assess(text, *rest):
        judged.append(len(text))
        return real_assess(text, *rest)

    monkeypatch.setattr(routing, "assess_text_layer", counted_assess)
    parse_pdf(FIXTURES / "mixed.pdf", {"ocr": {"mode": mode}}, on_page=lambda _done, _total: None)
    assert len(judged) == 3  # mixed.pdf's three pages, each judged once


def test_reporter_throttles_but_sends_the_first_and_last_page():
    sent: list[PageProgress] = []
    report = PageReporter("a.pdf", sent.append)
    for done in range(1, 201):
        report(done, 200)
    assert sent[0] == PageProgress("a.pdf", 1, 200) and sent[-1] == PageProgress("a.pdf", 200, 200)
    assert len(sent) < 200  # the 198 pages between came within far less than 198 intervals
    assert [message.done for message in sent] == sorted(message.done for message in sent)


def test_a_failing_progress_channel_never_fails_the_parse_but_a_timeout_passes():
    def broken(_message):
        raise OSError("pipe closed")

    PageReporter("a.pdf", broken)(1, 3)  # swallowed

    def expired(_message):
        raise SoftTimeout

    with pytest.raises(SoftTimeout):  # the soft time limit must still stop the document
        PageReporter("a.pdf", expired)(1, 3)


def test_a_full_pipe_drops_messages_without_blocking_and_never_splits_one():
    reader, writer = multiprocessing.Pipe(duplex=False)
    os.set_blocking(writer.fileno(), False)  # as in a worker
    report = PageReporter("a.pdf", functools.partial(send_whole, writer))
    for _ in range(5000):  # far more than a pipe holds (64 KiB); page 1 is never throttled
        report(1, 619)
    PageReporter("/" + "x" * 5000 + ".pdf", functools.partial(send_whole, writer))(1, 3)  # too long: dropped
    received: list[PageProgress] = []
    channel = ProgressChannel(multiprocessing.get_context("forkserver"), received.append)
    channel.attach("pool", (reader, writer))
    channel.drain()
    assert 0 < len(received) < 5000
    assert set(received) == {PageProgress("a.pdf", 1, 619)}  # whole messages only; the long path's none
    channel.close()


def reporting_task(path: str, settings: PipelineSettings) -> TaskResult:
    """Reports three pages through the real worker channel; `crash` dies after its first page."""
    report = reporter_for(path)
    for page in (1, 2, 3):
        report(page, 3)
        if "crash" in path:
            os.kill(os.getpid(), signal.SIGKILL)
    return TaskResult(value=f"done {path}", seconds=0.0)


@pytest.mark.slow
def test_a_crashing_worker_fails_only_its_document_with_progress_on():
    progress: list[PageProgress] = []
    jobs = ["a", "crash", "b", "c"]
    got = {
        tag: result.value
        for tag, result in execute(jobs, jobs, PipelineSettings(workers=2), reporting_task, progress.append)
    }
    assert {tag: got[tag] for tag in ("a", "b", "c")} == {tag: f"done {tag}" for tag in ("a", "b", "c")}
    assert isinstance(got["crash"], Failure)
    for tag in ("a", "b", "c"):  # first and last page of every finished document arrived
        assert {PageProgress(tag, 1, 3), PageProgress(tag, 3, 3)} <= set(progress)


@pytest.mark.parametrize("workers", [0, 1])
def test_page_progress_reaches_the_caller_before_the_document_ends(tmp_path, workers):
    from ingest import api

    long_pdf = make_long_pdf(tmp_path / "pdfs" / "long.pdf")
    make_pdf(tmp_path / "pdfs" / "short.pdf", "Short note", ["One page about neem oil."])
    events = []
    summary = api.run(
        [str(tmp_path / "pdfs")],
        db=str(tmp_path / "i.db"),
        workers=workers,
        ocr="never",
        observer=lambda event, value: events.append((event, value)),
    )
    assert summary.counts["new"] == 2
    long_events = [
        (event, value)
        for event, value in events
        if event in ("pages", "item") and Path(value.path).name == long_pdf.name
    ]
    pages = [value for event, value in long_events if event == "pages"]
    assert long_events[-1][0] == "item"  # every page report came before the document's end
    assert {progress.total for progress in pages} == {PAGES}
    assert pages[0].done == 1 and pages[-1].done == PAGES
    assert [progress.done for progress in pages] == sorted(progress.done for progress in pages)


def test_ingest_run_shows_a_pages_bar_with_the_pages_of_the_run(tmp_path):
    make_long_pdf(tmp_path / "pdfs" / "long.pdf")
    make_pdf(tmp_path / "pdfs" / "short.pdf", "Short note", ["One page about neem oil."])
    db = tmp_path / "i.db"
    result = runner.invoke(app, ["run", str(tmp_path / "pdfs"), "--db", str(db), "--workers", "1", "--ocr", "never"])
    assert result.exit_code == 0, result.output
    assert "pages read" in result.stderr and f"{PAGES + 1}/{PAGES + 1}" in result.stderr
    assert "ingesting" in result.stderr and "2/2" in result.stderr

    again = runner.invoke(app, ["run", str(tmp_path / "pdfs"), "--db", str(db), "--workers", "1", "--ocr", "never"])
    assert again.exit_code == 0  # all unchanged: nothing parsed, so no bar at all
    assert "pages read" not in again.output and "0/0" not in again.output and "ingesting" not in again.output


def test_quiet_run_shows_no_bar(tmp_path):
    make_long_pdf(tmp_path / "pdfs" / "long.pdf")
    args = ["run", str(tmp_path / "pdfs"), "--db", str(tmp_path / "i.db"), "--workers", "0", "--ocr", "never", "-q"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "pages read" not in result.output and "ingesting" not in result.output
    assert "finding and hashing" not in result.output


def test_a_usage_error_shows_no_bar(tmp_path):
    result = runner.invoke(app, ["run", str(tmp_path / "nonexistent"), "--db", str(tmp_path / "i.db")])
    assert result.exit_code == 2
    assert "finding and hashing" not in result.output and "pages read" not in result.output
