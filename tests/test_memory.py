"""Memory per process: the mapped language model, results handed over as files, and
what a worker keeps after reading pages. Figures: docs/benchmarks.md, "Memory per process"."""

from __future__ import annotations

import gc
import json
import time
import tracemalloc
from pathlib import Path

import pytest
from conftest import pdf_pages

from ingest.pipeline.settings import DEFAULT_LANGUAGES, PipelineSettings
from ingest.pipeline.spill import Spilled, loaded, spill

FIXTURES = Path(__file__).parent.parent / "fixtures"


def _texts() -> list[str]:
    """Every paragraph, heading and title of the fixtures' ground truth (English, Hindi, Marathi),
    and a few mixed or short strings."""
    texts = ["", "12 34 56", "Namaste: नमस्ते दुनिया, hello world", "Ceci n'est pas une pipe, dit-il en riant."]
    for truth in sorted(FIXTURES.glob("*.truth.json")):
        data = json.loads(truth.read_text(encoding="utf-8"))
        texts.append(data.get("title") or "")
        for key in ("paragraphs", "headings", "lists"):
            for item in data.get(key) or []:
                texts.append(item["text"] if isinstance(item, dict) and "text" in item else json.dumps(item))
    return [text for text in texts if isinstance(text, str)]


@pytest.fixture(scope="module")
def model_cache(tmp_path_factory) -> Path:
    """One cache directory for the module's tests (the model is unpacked into it once)."""
    return tmp_path_factory.mktemp("model-cache")


@pytest.mark.parametrize("languages", [tuple(DEFAULT_LANGUAGES), ()])
def test_the_mapped_language_model_scores_every_text_as_py3langid_does(model_cache, monkeypatch, languages):
    from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

    from ingest.pipeline.language_model import load_identifier

    monkeypatch.setenv("INGEST_CACHE_DIR", str(model_cache))
    reference = LanguageIdentifier.from_model_file(MODEL_DIR / MODEL_FILE)
    if languages:
        reference.set_languages(list(languages))
    mapped = load_identifier(languages)
    assert len(list(model_cache.glob("py3langid-*.bin"))) == 1  # unpacked once, then mapped
    texts = _texts()
    assert len(texts) > 100
    for text in texts:
        assert mapped._decide(text).tolist() == reference._decide(text).tolist(), text
        assert mapped.classify(text) == reference.classify(text)
    again = load_identifier(languages)  # from the file now
    assert [again.classify(text) for text in texts] == [reference.classify(text) for text in texts]


def test_without_a_writable_cache_the_model_is_loaded_in_memory(tmp_path, monkeypatch):
    from ingest.pipeline.language_model import load_identifier

    blocker = tmp_path / "a file, not a directory"
    blocker.write_text("")
    monkeypatch.setenv("INGEST_CACHE_DIR", str(blocker / "cache"))
    identifier = load_identifier(("en", "hi"))
    assert identifier.classify("The whitefly is controlled with neem oil sprayed at dusk.")[0] == "en"


def test_a_spilled_value_reads_back_once_and_its_file_goes(tmp_path):
    value = {"pages": list(range(1000)), "text": "x" * 10_000}
    handed = spill(value, str(tmp_path))
    assert isinstance(handed, Spilled) and Path(handed.path).exists()
    assert loaded(handed) == value and not Path(handed.path).exists()
    kept = spill(value, str(tmp_path), keep=True)
    assert loaded(kept) is kept and kept.load() == value  # kept: for the next task, not read here
    assert spill(value, str(tmp_path / "gone")) is value  # no directory: handed over as it is


def test_a_failed_part_removes_the_files_of_the_parts_already_read(tmp_path):
    from ingest.pipeline.split import _Document, _Part, _part_done
    from ingest.pipeline.workers import Failure, Job, TaskResult

    document = _Document(tag="long.pdf", job=Job("long.pdf"), parts=2, started=time.monotonic())
    first = spill({"page": 1}, str(tmp_path), keep=True)
    assert _part_done(_Part(document, 0), TaskResult(value=first, seconds=1.0), PipelineSettings()) is None
    failure = TaskResult(value=Failure(stage="parse", message="page 400: unreadable"), seconds=1.0)
    assert isinstance(_part_done(_Part(document, 1), failure, PipelineSettings()), TaskResult)
    assert list(tmp_path.iterdir()) == []


def _pages_pdf(tmp_path: Path, copies: int) -> Path:
    """fixtures/crop_manual.pdf's five pages `copies` times over, as one PDF."""
    return pdf_pages(FIXTURES / "crop_manual.pdf", 1, 5, into=tmp_path, times=copies)


def _retained_after_reading(path: Path, pages: int, monkeypatch, spill_dir: Path) -> int:
    """Bytes of Python memory still allocated after a worker read `pages` pages of `path` as a
    split document's range and handed them over (`run_task`, in this process)."""
    from ingest.pipeline import workers

    monkeypatch.setattr(workers, "_SPILL_DIR", str(spill_dir))
    job = workers.Job(str(path), pages=(0, pages))
    settings = PipelineSettings(workers=0, parse={"ocr": {"mode": "never"}})
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    result = workers.run_task(job, settings)
    assert isinstance(result.value, Spilled)
    result.value.remove()
    del result
    gc.collect()
    return tracemalloc.get_traced_memory()[0] - before


@pytest.mark.slow
def test_what_a_worker_keeps_after_handing_over_pages_does_not_grow_with_their_number(tmp_path, monkeypatch):
    """Reading 3x the pages leaves no more behind than reading 1x (a ratio of Python memory
    traced, not a time): nothing per page outlives the task once its pages are handed over."""
    small, large = _pages_pdf(tmp_path, 2), _pages_pdf(tmp_path, 6)
    pages = len(__import__("pypdfium2").PdfDocument(small))
    tracemalloc.start()
    try:
        _retained_after_reading(small, pages, monkeypatch, tmp_path)  # first use: imports, caches
        once = _retained_after_reading(small, pages, monkeypatch, tmp_path)
        thrice = _retained_after_reading(large, 3 * pages, monkeypatch, tmp_path)
    finally:
        tracemalloc.stop()
    assert thrice <= max(2 * once, 64 * 1024), (once, thrice)
