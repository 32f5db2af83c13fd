"""`process_document` pauses Python's cyclic collector for one document and leaves it as it
found it, also when the document fails (library users keep their own gc settings)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from ingest.contracts.errors import IngestError
from ingest.pipeline import document as document_module
from ingest.pipeline.document import collector_paused, process_document
from ingest.pipeline.settings import PipelineSettings

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "two_column.pdf"


@pytest.fixture(autouse=True)
def restore_gc():
    was = gc.isenabled()
    yield
    gc.enable() if was else gc.disable()


def test_collector_off_while_a_document_is_processed_and_on_after(monkeypatch):
    seen = []
    parse = document_module.parse_pdf

    def recording_parse(*arguments, **keywords):
        seen.append(gc.isenabled())
        return parse(*arguments, **keywords)

    monkeypatch.setattr(document_module, "parse_pdf", recording_parse)
    gc.enable()
    processed = process_document(str(FIXTURE), PipelineSettings())
    assert processed.chunks  # the document was processed as usual
    assert seen == [False]
    assert gc.isenabled()


def test_collector_back_on_after_a_failed_document(tmp_path):
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"not a pdf at all")
    gc.enable()
    with pytest.raises(IngestError):
        process_document(str(broken), PipelineSettings())
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled():
    gc.disable()
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert not gc.isenabled()
