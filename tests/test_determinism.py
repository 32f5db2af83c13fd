"""Determinism: a document gives the same chunks alone or after other documents in the same worker.

A worker process parses many documents in turn, so any state one document leaves behind (a module
cache, pdfium's process-wide font cache) can change the next one's text. chelsea_pdta.pdf showed
it: its non-embedded ArialNarrow title read "Liaisonsaux" alone and "Liaisons aux" after another
document had been rendered for OCR. Each document here runs through the batch's task
(`run_task`, in this process) once in one order and again in the reverse order; the chunks must be
identical.
"""

from __future__ import annotations

import pytest
from conftest import CORPUS

from ingest.pipeline.settings import PipelineSettings
from ingest.pipeline.workers import Failure, run_task

#: chelsea_pdta.pdf has non-embedded fonts and a page that goes to OCR (rendered); the others are small.
NAMES = ["chelsea_pdta.pdf", "2023-06-20-PV.pdf", "150109DSP-Milw-505-90D.pdf"]


def chunk_texts(path: str, settings: PipelineSettings) -> list[str]:
    result = run_task(path, settings)
    assert not isinstance(result.value, Failure), result.value
    return [chunk.text for chunk in result.value.chunks]


@pytest.mark.shared
@pytest.mark.slow
def test_each_document_gives_the_same_chunks_whatever_ran_before_it():
    paths = [CORPUS / name for name in NAMES]
    missing = [path for path in paths if not path.exists()]
    if missing:
        pytest.skip(f"corpus files not found: {missing}")
    settings = PipelineSettings.resolve({"workers": 0})
    first = {path.name: chunk_texts(str(path), settings) for path in paths}
    again = {path.name: chunk_texts(str(path), settings) for path in reversed(paths)}
    for name in NAMES:
        assert again[name] == first[name], f"{name}: chunks differ depending on what ran before it"
