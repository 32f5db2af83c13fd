"""The evaluation on hand-built documents (no PDF, no database), the golden file format and the report."""

from __future__ import annotations

import json

import pytest
from score_oracle import score_problems

from ingest.contracts.elements import Document, Element, ElementType, table_rows_to_text
from ingest.contracts.errors import ConfigError
from ingest.contracts.evaluation import EvalReport, GoldenItem, load_golden
from ingest.evaluation.evaluate import STRATEGIES, eval_chunk_settings, evaluate_documents
from ingest.evaluation.report import format_report
from ingest.tokens import WhitespaceCounter

DOSES = [["Pest", "Dose per litre"], ["Whitefly", "2 ml"], ["Aphids", "3 ml"]]


def _document(path: str, elements: list[Element]) -> Document:
    return Document(source_path=path, content_sha256="0" * 64, size_bytes=1, page_count=1, elements=elements)


def _title(text: str, level: int) -> Element:
    return Element(type=ElementType.title, text=text, page=1, heading_level=level)


def _paragraph(text: str) -> Element:
    return Element(type=ElementType.paragraph, text=text, page=1)


@pytest.fixture()
def documents() -> dict[str, Document]:
    manual = _document(
        "/data/crop_manual.pdf",
        [
            _title("Cotton manual", 1),
            _title("Pest control", 2),
            Element(type=ElementType.table, text=table_rows_to_text(DOSES), page=1, rows=DOSES, header_rows=1),
            _title("Sowing", 2),
            _paragraph("Sow the seed after the first good rain, twenty centimetres apart, in rows."),
        ],
    )
    notice = _document(
        "/data/scheme_notice.pdf",
        [
            _title("Kisan scheme", 1),
            _paragraph("Every eligible farmer family receives 6000 rupees a year in three instalments."),
        ],
    )
    return {"man0000001": manual, "not0000002": notice}


def _items(*records: dict) -> list[GoldenItem]:
    return [GoldenItem.model_validate({**record, "line": number}) for number, record in enumerate(records, start=1)]


def test_every_strategy_is_scored_on_the_same_questions(documents):
    items = _items(
        {"question": "how much spray medicine for whitefly", "must_contain": ["Whitefly", "2 ml"], "kind": "table"},
        {"question": "when should I sow", "must_contain": "first good rain", "kind": "section"},
        {
            "question": "how much money per year does a farmer family get",
            "must_contain": "6000 rupees",
            "kind": "prose",
            "doc": "scheme_notice.pdf",
        },
    )
    report = evaluate_documents(
        documents, items, ks=(1, 4), budget_tokens=500, counter=WhitespaceCounter(), embed_sentences=bag_of_words
    )
    assert [r.strategy for r in report.strategies] == list(STRATEGIES)
    assert {"structure", "recursive", "fixed", "semantic", "late"} <= set(STRATEGIES)
    for result in report.strategies:
        assert result.chunk_count > 0 and result.mean_tokens > 0
        assert result.pages == 2 and result.chunk_cpu_seconds >= 0 and result.embed_cpu_seconds is None
        assert score_problems(result) == []
        assert set(result.by_kind) == {"table", "section", "prose"}
        assert sum(scores.questions for scores in result.by_kind.values()) == 3
    structure = report.strategy("structure")
    assert structure.overall.hit_at_k[4] == 1.0  # tiny documents: every answer is within the top 4
    assert structure.misses(4) == []


def test_doc_restricts_retrieval_to_that_document_and_unknown_docs_are_skipped(documents):
    items = _items(
        # the words point at the manual, but the question is restricted to the notice: a miss by design
        {"question": "whitefly dose", "must_contain": ["Whitefly", "2 ml"], "doc": "scheme_notice"},
        {"question": "whitefly dose", "must_contain": ["Whitefly", "2 ml"], "doc": "man0000001"},
        {"question": "anything", "must_contain": "x", "doc": "missing.pdf"},
    )
    report = evaluate_documents(documents, items, strategies=["structure"], ks=[1], counter=WhitespaceCounter())
    questions = report.strategy("structure").questions
    assert [q.line for q in questions] == [1, 2]
    assert questions[0].child_rank is None and questions[0].top_chunk is None
    assert questions[1].child_rank == 1 and questions[1].top_chunk_doc == "man0000001"
    assert [(s.line, s.question) for s in report.skipped] == [(3, "anything")]
    with pytest.raises(ConfigError, match="no golden question"):
        evaluate_documents(documents, items[2:], strategies=["structure"], counter=WhitespaceCounter())


def test_misses_are_listed_with_the_top_chunk_in_the_table(documents):
    items = _items({"question": "whitefly dose for cotton", "must_contain": "neem oil", "kind": "table"})
    report = evaluate_documents(documents, items, strategies=["structure"], ks=[1, 10], counter=WhitespaceCounter())
    [miss] = report.strategy("structure").misses(10)
    assert "Whitefly" in miss.top_chunk
    table = format_report(report, "table")
    assert "| structure |" in table
    assert "Misses of structure (answer not in the top 10): 1" in table
    assert "'whitefly dose for cotton' needs ['neem oil']" in table
    assert "Whitefly | 2 ml" in table  # the top chunk is shown, so a person can read why


def test_json_output_round_trips(documents):
    items = _items({"question": "sow seed rain", "must_contain": "first good rain"})
    report = evaluate_documents(documents, items, strategies=["fixed", "structure"], counter=WhitespaceCounter())
    again = EvalReport.model_validate(json.loads(format_report(report, "json")))
    assert [r.strategy for r in again.strategies] == ["fixed", "structure"]
    assert again.strategy("fixed").overall == report.strategy("fixed").overall


def test_bad_options_are_config_errors(documents):
    items = _items({"question": "q", "must_contain": "x"})
    for kwargs in (
        {"strategies": ["nonsense"]},
        {"strategies": ["semantic"]},  # no sentence embedder
        {"strategies": ["late"], "retriever": "vector", "embed_texts": bag_of_words},  # no token embedder
        {"ks": [0]},
        {"budget_tokens": 0},
    ):
        with pytest.raises(ConfigError):
            evaluate_documents(documents, items, counter=WhitespaceCounter(), **kwargs)
    settings = eval_chunk_settings(None, {"child_max_tokens": "200", "overlap_tokens": "0"})
    assert (settings.child_max_tokens, settings.overlap_tokens) == (200, 0)
    for bad in ({"child_max": "200"}, {"overlap_tokens": "400"}):
        with pytest.raises(ConfigError):
            eval_chunk_settings(None, bad)


def bag_of_words(texts):
    """A deterministic stand-in for the embedding model: hashed word counts."""
    vectors = []
    for text in texts:
        vector = [0.0] * 64
        for word in text.lower().split():
            vector[sum(map(ord, word)) % 64] += 1.0
        vectors.append(vector)
    return vectors


class WordTokenModel:
    """Words as tokens, each token's vector its hashed word: late pooling without a model."""

    max_tokens = 64

    def token_offsets(self, text):
        import re

        return [match.span() for match in re.finditer(r"\S+", text)]

    def token_vectors(self, texts):
        import numpy as np

        from ingest.integrations.late import TokenVectors

        results = []
        for text in texts:
            offsets = [(0, 0), *self.token_offsets(text)[: self.max_tokens - 2], (0, 0)]
            vectors = np.array([bag_of_words([text[a:b] or "[special]"])[0] for a, b in offsets], dtype=np.float32)
            special = [True] + [False] * (len(offsets) - 2) + [True]
            results.append(TokenVectors(vectors=vectors, offsets=offsets, special=special, truncated=False))
        return results


def test_semantic_and_late_are_scored_with_vectors_and_their_cost(documents):
    items = _items(
        {"question": "how much spray medicine for whitefly", "must_contain": ["Whitefly", "2 ml"], "kind": "table"},
        {"question": "when should I sow the seed", "must_contain": "first good rain", "kind": "section"},
    )
    report = evaluate_documents(
        documents,
        items,
        strategies=["structure", "semantic", "late"],
        ks=(1, 4),
        counter=WhitespaceCounter(),
        retriever="vector",
        embed_texts=bag_of_words,
        embed_sentences=bag_of_words,
        embed_tokens=WordTokenModel(),
    )
    for result in report.strategies:
        assert result.overall.hit_at_k[4] == 1.0
        assert result.embed_cpu_seconds is not None and result.pages == 2
    assert report.strategy("late").notes == [
        "2 of 2 sections embedded whole in one pass; 0 longer than the model's 64 tokens fell back to "
        "windows of at most 64 tokens (2 passes in all); 0 chunks longer than a window embedded from their first "
        "tokens"
    ]
    table = format_report(report)
    assert "chunk s/page" in table and "embed s/page" in table and "late: 2 of 2 sections" in table


def test_golden_file_lines_are_validated_with_their_line_number(tmp_path):
    path = tmp_path / "golden.jsonl"
    path.write_text(
        '{"question": "dose for aphids", "must_contain": "3 ml", "kind": "table"}\n\n'
        '{"question": "q", "must_contain": ["a", "b"], "doc": "x.pdf"}\n',
        encoding="utf-8",
    )
    items = load_golden(path)
    assert [(i.line, i.must_contain, i.kind) for i in items] == [(1, ["3 ml"], "table"), (3, ["a", "b"], "unlabelled")]
    for bad in (
        '{"question": "q"}',
        '{"question": "q", "must_contain": "x", "answer": "typo"}',
        '{"question": "q", "must_contain": [" "]}',
        "not json",
        "[1, 2]",
    ):
        path.write_text('{"question": "ok", "must_contain": "x"}\n' + bad + "\n", encoding="utf-8")
        with pytest.raises(ConfigError, match="line 2"):
            load_golden(path)
    with pytest.raises(ConfigError, match="cannot read"):
        load_golden(tmp_path / "absent.jsonl")


BORN_DIGITAL_FIXTURES = ["crop_manual", "two_column", "unruled_table", "mixed", "pest_advisory"]


def test_structure_is_ahead_of_both_blind_strategies_on_table_and_section_questions_of_the_fixtures():
    """The claim the README makes for `ingest eval`, checked on the real parser and chunker
    (text layer only, so no OCR: the scanned questions are not table or section ones)."""
    from pathlib import Path

    from parsers.pdf import parse_pdf

    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    documents = {
        name: parse_pdf(fixtures / f"{name}.pdf", {"ocr": {"mode": "never"}}) for name in BORN_DIGITAL_FIXTURES
    }
    items = [
        item
        for item in load_golden(fixtures / "golden.jsonl")
        if item.kind in ("table", "section") and item.doc and Path(item.doc).stem in documents
    ]
    report = evaluate_documents(documents, items, strategies=["structure", "recursive", "fixed"])
    scores = {result.strategy: result.by_kind for result in report.strategies}
    for kind in ("table", "section"):
        for k in (1, 4):
            structure = scores["structure"][kind].hit_at_k[k]
            assert structure > scores["recursive"][kind].hit_at_k[k], (kind, k)
            assert structure > scores["fixed"][kind].hit_at_k[k], (kind, k)
