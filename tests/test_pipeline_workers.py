"""The worker pool: time limits, crashed workers, environment. Tasks are stand-ins for
`run_task` (module-level, so they can be pickled to worker processes)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from ingest.pipeline.settings import PipelineSettings
from ingest.pipeline.workers import FORK_FROM_HERE_MAX_BYTES, Failure, TaskResult, execute, run_task


def sleepy_task(path: str, settings: PipelineSettings) -> TaskResult:
    """Sleeps without the soft alarm, like a parser stuck in native code."""
    if "hang" in path:
        time.sleep(120)
    return TaskResult(value=f"done {path}", seconds=0.0)


def crashing_task(path: str, settings: PipelineSettings) -> TaskResult:
    if "crash" in path:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.2)
    return TaskResult(value=f"done {path}", seconds=0.0)


def environment_task(path: str, settings: PipelineSettings) -> TaskResult:
    return TaskResult(value=os.environ.get("OMP_THREAD_LIMIT"), seconds=0.0)


def results(paths, settings, task) -> dict[str, object]:
    return {tag: result.value for tag, result in execute(paths, paths, settings, task)}


@pytest.mark.slow
def test_hung_document_is_killed_and_the_others_finish():
    # The hard limit (timeout + 5 s grace) counts from submission, worker start-up included: 5 s
    # leaves room for a slow start on a loaded machine while the hung task is still killed early.
    settings = PipelineSettings(workers=2, timeout=5)
    started = time.monotonic()
    got = results(["a", "hang", "b", "c"], settings, sleepy_task)
    assert time.monotonic() - started < 60
    assert got["a"] == "done a" and got["b"] == "done b" and got["c"] == "done c"
    assert isinstance(got["hang"], Failure)
    assert got["hang"].stage == "parse" and got["hang"].message.startswith("timed out after 5 s")


@pytest.mark.slow
def test_crashing_worker_fails_only_its_document():
    got = results(["a", "crash", "b", "c", "d"], PipelineSettings(workers=2, timeout=60), crashing_task)
    assert {tag: value for tag, value in got.items() if tag != "crash"} == {
        tag: f"done {tag}" for tag in ("a", "b", "c", "d")
    }
    assert isinstance(got["crash"], Failure) and "died" in got["crash"].message


@pytest.mark.slow
def test_workers_limit_tesseract_threads():
    assert set(results(["a", "b"], PipelineSettings(workers=2), environment_task).values()) == {"1"}


def test_soft_time_limit_in_process(monkeypatch):
    def slow_document(path, settings, sha256=None, on_page=None):
        time.sleep(10)

    monkeypatch.setattr("ingest.pipeline.document.process_document", slow_document)
    started = time.monotonic()
    result = run_task("x.pdf", PipelineSettings(workers=0, timeout=0.5))
    assert time.monotonic() - started < 5
    assert isinstance(result.value, Failure) and result.value.message.startswith("timed out after 0.5 s")


def test_unexpected_exception_becomes_a_failure_naming_the_stage(monkeypatch):
    def broken_chunker(*args, **kwargs):
        raise ZeroDivisionError("bug")

    monkeypatch.setattr("ingest.pipeline.document.chunk_document", broken_chunker)
    monkeypatch.setattr(
        "ingest.pipeline.document.parse_pdf",
        lambda path, settings, sha256=None, on_page=None, pages_read=None: __import__(
            "ingest.contracts.elements", fromlist=["Document"]
        ).Document(source_path=path, content_sha256="", size_bytes=0, page_count=0),
    )
    result = run_task("x.pdf", PipelineSettings(workers=0))
    assert result.value == Failure(stage="chunk", message="ZeroDivisionError: bug")


def _empty_document(path, settings=None, sha256=None, on_page=None, pages_read=None):
    from ingest.contracts.elements import Document

    return Document(source_path=path, content_sha256=sha256 or "", size_bytes=0, page_count=0)


def _sleep_in_ocr(path, settings=None, sha256=None, on_page=None, pages_read=None):
    """A parse whose OCR hangs: the real `ocr_pages` with its per-page worker replaced."""
    import parsers.ocr.tesseract

    parsers.ocr.tesseract.ocr_pages(path, [1], {"workers": 1})
    return _empty_document(path)


def _hang(*_args, **_kwargs):
    time.sleep(30)


FIXTURE_PDF = str(Path(__file__).resolve().parents[1] / "fixtures" / "mixed.pdf")


@pytest.mark.parametrize("running", ["parse", "ocr", "chunk", "enrich"])
def test_soft_time_limit_names_the_stage_that_was_running(monkeypatch, running):
    parse = {"parse": _hang, "ocr": _sleep_in_ocr}.get(running, _empty_document)
    monkeypatch.setattr("ingest.pipeline.document.parse_pdf", parse)
    monkeypatch.setattr("parsers.ocr.tesseract._ocr_one", _hang)
    monkeypatch.setattr("parsers.ocr.tesseract.check_ocr_available", lambda settings: None)
    if running == "chunk":
        monkeypatch.setattr("ingest.pipeline.document.chunk_document", _hang)
    if running == "enrich":
        monkeypatch.setattr("ingest.pipeline.document.document_metadata", _hang)
    result = run_task(FIXTURE_PDF, PipelineSettings(workers=0, timeout=0.3))
    assert isinstance(result.value, Failure)
    assert result.value.stage == running and result.value.message.startswith("timed out after 0.3 s")


def test_a_parser_catching_every_exception_cannot_swallow_the_time_limit(monkeypatch):
    def parse_that_records_page_errors(path, settings=None, sha256=None, on_page=None, pages_read=None):
        try:
            time.sleep(30)
        except Exception:  # noqa: BLE001 - as parsers do to record one bad page and go on
            pass
        return _empty_document(path)

    monkeypatch.setattr("ingest.pipeline.document.parse_pdf", parse_that_records_page_errors)
    result = run_task("x.pdf", PipelineSettings(workers=0, timeout=0.3))
    assert isinstance(result.value, Failure) and result.value.stage == "parse"
    assert result.value.message.startswith("timed out")


def pid_task(path: str, settings: PipelineSettings) -> TaskResult:
    """Reports a resident size over the recycling limit for a path containing "big"."""
    return TaskResult(value=os.getpid(), seconds=0.0, rss_mb=1e6 if "big" in path else 1.0)


def test_workers_stay_warm_and_are_replaced_by_memory_not_by_count():
    paths = [f"small{i}" for i in range(30)] + ["big", "after1", "after2"]
    pids = results(paths, PipelineSettings(workers=1), pid_task)
    assert len({pids[f"small{i}"] for i in range(30)} | {pids["big"]}) == 1  # 31 documents, one worker
    assert pids["after1"] == pids["after2"] != pids["big"]  # replaced once, after the document over the limit


def test_run_task_reports_the_workers_resident_memory(tmp_path):
    result = run_task(str(Path(__file__).parent.parent / "fixtures" / "two_column.pdf"), PipelineSettings(workers=0))
    assert result.rss_mb > 10


def parent_task(path: str, settings: PipelineSettings) -> TaskResult:
    """Reports the worker's parent, its address-space cap and whether its stderr can be written."""
    import resource
    import sys

    print(f"worker {path} writes to stderr", file=sys.stderr)
    return TaskResult(value=(os.getppid(), resource.getrlimit(resource.RLIMIT_AS)[0]), seconds=0.0)


def test_a_run_of_one_document_per_worker_starts_no_forkserver_and_keeps_the_memory_cap():
    # One small PDF paid for a second interpreter (the forkserver, importing the whole pipeline
    # again) and a resource tracker; now its worker is forked from this process, capped as before.
    got = results(["a", "b"], PipelineSettings(workers=2, memory_limit_mb=4096), parent_task)
    assert got == {"a": (os.getpid(), 4096 << 20), "b": (os.getpid(), 4096 << 20)}


def test_a_longer_run_still_uses_the_forkserver():
    got = results(["a", "b", "c"], PipelineSettings(workers=2), parent_task)
    assert {parent for parent, _cap in got.values()} != {os.getpid()}


def test_a_run_of_one_big_file_uses_the_lean_forkserver(tmp_path):
    # A worker forked from this process would carry its whole heap (DA-619p: 160 MB a worker
    # against 130 MB from the forkserver); a big file's run is long enough to pay for a forkserver.
    big = tmp_path / "big.pdf"
    big.write_bytes(b"%PDF-1.4\n" + b"0" * (FORK_FROM_HERE_MAX_BYTES + 1))
    got = results([str(big)], PipelineSettings(workers=2), parent_task)
    assert got[str(big)][0] != os.getpid()


def test_a_crash_in_a_run_of_one_document_fails_only_that_document():
    got = results(["crash"], PipelineSettings(workers=2, timeout=60), crashing_task)
    assert isinstance(got["crash"], Failure) and "died" in got["crash"].message


@pytest.mark.slow
def test_a_hung_document_alone_is_killed_by_the_hard_limit():
    started = time.monotonic()
    got = results(["hang"], PipelineSettings(workers=2, timeout=1), sleepy_task)
    assert time.monotonic() - started < 60
    assert isinstance(got["hang"], Failure) and got["hang"].message.startswith("timed out after 1 s (worker killed)")
