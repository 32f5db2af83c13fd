"""The `contextual` strategy: a context line after each child's heading path, built with no model or
written by a model behind an OpenAI-compatible endpoint (a stub HTTP server here: nothing leaves
127.0.0.1). The invariants over generated documents are in tests/test_chunk_properties.py."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ingest.chunker import chunk_document
from ingest.chunking.checks import contextual_violations
from ingest.chunking.settings import ChunkSettings
from ingest.contracts.elements import Document, Element, ElementType, table_rows_to_text
from ingest.contracts.errors import ContextWriterError
from ingest.contracts.evaluation import GoldenItem
from ingest.evaluation.evaluate import evaluate_documents
from ingest.evaluation.report import format_report
from ingest.integrations.context_writer import ContextWriterSettings, context_prompt, write_contexts
from ingest.tokens import WhitespaceCounter

WORDS = WhitespaceCounter()
FILLER = "The crop needs a careful watch in the cool weeks after the rains and the farmer walks the field each day."
DOSES = [["Pest", "Insecticide", "Dose"]] + [
    [f"Pest {n}", f"Product {n} EC", f"{n} ml per litre"] for n in range(1, 13)
]
SETTINGS = ChunkSettings(strategy="contextual", child_max_tokens=60, overlap_tokens=0, min_tokens=0)


def _document() -> Document:
    def paragraph(text: str) -> Element:
        return Element(type=ElementType.paragraph, text=text, page=1)

    return Document(
        source_path="/data/chickpea_advisory.pdf",
        content_sha256="0" * 64,
        size_bytes=1,
        page_count=2,
        title="Chickpea Advisory",
        elements=[
            Element(type=ElementType.title, text="Chickpea Advisory", page=1, heading_level=1),
            Element(type=ElementType.title, text="Gram Pod Borer", page=1, heading_level=2),
            paragraph("Helicoverpa armigera bores into the pods and is the worst pest of the crop."),
            paragraph(FILLER + " " + FILLER),
            paragraph("Spray emamectin benzoate at 0.4 g per litre when one larva is seen per plant."),
            Element(type=ElementType.title, text="Doses", page=2, heading_level=2),
            Element(
                type=ElementType.table,
                text=table_rows_to_text(DOSES),
                page=2,
                rows=DOSES,
                header_rows=1,
                caption="Table 3: Insecticide doses for chickpea pests",
            ),
        ],
    )


def test_a_later_child_names_its_section_opening_and_keeps_its_body_a_canonical_slice():
    document = _document()
    chunks = chunk_document(document, SETTINGS, WORDS)
    assert contextual_violations(document, chunks, SETTINGS, WORDS) == []
    [spray] = [c for c in chunks if c.kind == "child" and "emamectin" in c.body]
    assert "Helicoverpa" not in spray.body
    assert spray.text.startswith(
        "Chickpea Advisory / Gram Pod Borer — Helicoverpa armigera bores into the pods and is the worst pest"
    )
    assert spray.text.endswith("\n\n" + spray.body)
    assert document.canonical_text()[spray.char_start : spray.char_end] == spray.body
    [first] = [c for c in chunks if c.kind == "child" and c.body.startswith("Helicoverpa")]
    assert "context" not in first.metadata  # its body already opens the section: nothing to add
    assert first.text == "Chickpea Advisory / Gram Pod Borer\n\n" + first.body


def test_table_pieces_left_without_their_caption_for_room_name_it_in_the_context_line():
    document = _document()
    chunks = chunk_document(document, SETTINGS.model_copy(update={"table_max_tokens": 36}), WORDS)
    pieces = [c for c in chunks if c.kind == "child" and "table_element" in c.metadata]
    assert len(pieces) > 2 and sum("Table 3" in piece.body for piece in pieces) == 1
    for piece in pieces:
        assert "Table 3: Insecticide doses for chickpea pests" in piece.text
        assert all(line.count("|") == 4 for line in piece.body.splitlines() if line.startswith("|"))


def test_the_context_never_adds_more_than_its_cap():
    document = _document()
    capped = SETTINGS.model_copy(update={"context_max_tokens": 4})  # "—", two words and "…"
    chunks = chunk_document(document, capped, WORDS)
    assert contextual_violations(document, chunks, capped, WORDS) == []
    [spray] = [c for c in chunks if c.kind == "child" and "emamectin" in c.body]
    assert spray.metadata["context"] == "Helicoverpa armigera …" and spray.metadata["context_truncated"]


def test_eval_finds_a_later_paragraph_by_its_section_subject_only_with_the_context_line():
    items = [
        GoldenItem(line=1, question="helicoverpa spray", must_contain="emamectin benzoate", kind="prose"),
    ]
    report = evaluate_documents(
        {"adv0000001": _document()},
        items,
        strategies=("structure", "contextual"),
        ks=(1,),
        chunk_settings=SETTINGS.model_copy(update={"strategy": "structure"}),
        counter=WORDS,
    )
    assert report.strategy("contextual").overall.hit_at_k[1] == 1.0
    assert report.strategy("structure").overall.hit_at_k[1] == 0.0
    contextual = report.strategy("contextual")
    assert contextual.chunk_cpu_seconds >= 0 and contextual.embed_cpu_seconds is None
    table = format_report(report)
    assert "chunk s/page" in table and "contextual" in table


# ---------------------------------------------------------------------------------------------
# The model-written context, against a stub OpenAI-compatible server on 127.0.0.1
# ---------------------------------------------------------------------------------------------


class StubModel(BaseHTTPRequestHandler):
    """Answers POST /v1/chat/completions like an OpenAI-compatible server; records each request."""

    requests: list[dict] = []
    status = 200
    blurb = "This chunk is about controlling Helicoverpa pod borer in a chickpea advisory."

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        if type(self).status != 200:
            self.send_response(type(self).status)
            self.end_headers()
            self.wfile.write(b"model overloaded")
            return
        answer = {"choices": [{"message": {"role": "assistant", "content": type(self).blurb}}]}
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture()
def stub_url():
    StubModel.requests, StubModel.status = [], 200
    server = ThreadingHTTPServer(("127.0.0.1", 0), StubModel)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()
    thread.join()


def test_the_model_writes_each_childs_context_with_the_key_from_the_environment(stub_url, monkeypatch):
    monkeypatch.setenv("STUB_MODEL_KEY", "secret-123")
    writer = ContextWriterSettings(url=stub_url, model="tiny-model", api_key_env="STUB_MODEL_KEY")
    document = _document()
    structure = chunk_document(document, SETTINGS.model_copy(update={"strategy": "structure"}), WORDS)
    chunks = write_contexts(document, structure, writer, SETTINGS, WORDS)
    children = [c for c in chunks if c.kind == "child"]
    assert len(StubModel.requests) == len(children)
    assert {r["path"] for r in StubModel.requests} == {"/v1/chat/completions"}
    assert {r["auth"] for r in StubModel.requests} == {"Bearer secret-123"}
    assert {r["body"]["model"] for r in StubModel.requests} == {"tiny-model"}
    for chunk in children:
        assert chunk.metadata["context"] == StubModel.blurb
        assert chunk.text == f"{' / '.join(chunk.heading_path)} — {StubModel.blurb}\n\n{chunk.body}"
    assert contextual_violations(document, chunks, SETTINGS, WORDS) == []
    [spray] = [c for c in children if "emamectin" in c.body]
    prompt = context_prompt(document, spray, structure[spray.parent], writer)[1]["content"]
    assert "Section: Chickpea Advisory / Gram Pod Borer" in prompt and "Helicoverpa armigera bores" in prompt


def test_eval_indexes_the_written_context(stub_url):
    StubModel.blurb = "Dosage advice against the pod borer caterpillar."
    items = [GoldenItem(line=1, question="caterpillar dosage", must_contain="emamectin", kind="prose")]
    report = evaluate_documents(
        {"adv0000001": _document()},
        items,
        strategies=("contextual",),
        ks=(4,),
        chunk_settings=SETTINGS,
        counter=WORDS,
        context_writer=ContextWriterSettings(url=stub_url, model="tiny-model"),
    )
    assert report.strategy("contextual").overall.hit_at_k[4] == 1.0
    assert StubModel.requests


def test_a_failing_endpoint_is_an_error_naming_its_url(stub_url):
    StubModel.status = 503
    document = _document()
    structure = chunk_document(document, SETTINGS.model_copy(update={"strategy": "structure"}), WORDS)
    with pytest.raises(ContextWriterError, match=r"127\.0\.0\.1:\d+/v1/chat/completions answered HTTP 503"):
        write_contexts(document, structure, ContextWriterSettings(url=stub_url, model="m"), SETTINGS, WORDS)


def test_an_unreachable_endpoint_or_a_missing_key_is_an_error_naming_the_url(stub_url, monkeypatch):
    document = _document()
    structure = chunk_document(document, SETTINGS.model_copy(update={"strategy": "structure"}), WORDS)
    closed = ContextWriterSettings(url="http://127.0.0.1:9/v1", model="m", timeout_s=2)
    with pytest.raises(ContextWriterError, match=r"cannot reach http://127\.0\.0\.1:9/v1/chat/completions"):
        write_contexts(document, structure, closed, SETTINGS, WORDS)
    monkeypatch.delenv("NO_SUCH_KEY_VARIABLE", raising=False)
    keyless = ContextWriterSettings(url=stub_url, model="m", api_key_env="NO_SUCH_KEY_VARIABLE")
    with pytest.raises(ContextWriterError, match="NO_SUCH_KEY_VARIABLE"):
        write_contexts(document, structure, keyless, SETTINGS, WORDS)
    assert StubModel.requests == []


def test_writer_settings_reject_unknown_keys():
    with pytest.raises(ValueError):
        ContextWriterSettings(url="http://127.0.0.1:1/v1", model="m", temprature=0.2)


def test_ingest_eval_context_url_needs_a_model_name(tmp_path):
    from typer.testing import CliRunner

    from ingest.cli import app

    golden = tmp_path / "golden.jsonl"
    golden.write_text('{"question": "dose", "must_contain": "2 ml"}\n', encoding="utf-8")
    result = CliRunner().invoke(
        app,
        ["eval", str(golden), "--db", str(tmp_path / "none.db"), "--strategies", "contextual"]
        + ["--context-url", "http://127.0.0.1:9/v1"],
    )
    assert result.exit_code == 2 and "--context-model" in result.output
