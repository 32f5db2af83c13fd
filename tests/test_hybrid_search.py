"""`ingest search --vector/--hybrid` and `ingest eval --retriever`: reciprocal rank
fusion by hand, the golden set's table questions through the CLI, and the error without vectors.

Needs the extra `embed` (packaged ONNX model, sqlite-vec); nothing is downloaded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ingest.cli import app
from ingest.evaluation.scoring import normalize_phrases, normalize_text
from storage.search import RRF_K, fuse_rankings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PDFS = ("crop_manual.pdf", "unruled_table.pdf")
runner = CliRunner()

pytest.importorskip("onnxruntime")
pytest.importorskip("sqlite_vec")


def test_fusion_sums_reciprocal_ranks_over_both_lists():
    fused = dict(fuse_rankings([["a", "b", "c"], ["c", "d"]]))
    assert fused["c"] == pytest.approx(1 / (RRF_K + 3) + 1 / (RRF_K + 1))
    assert fused["a"] == pytest.approx(1 / (RRF_K + 1)) and fused["d"] == pytest.approx(1 / (RRF_K + 2))
    assert [key for key, _ in fuse_rankings([["a", "b", "c"], ["c", "d"]])] == [
        "c",
        "a",
        "b",
        "d",
    ]  # b, d tie: first list first
    assert [key for key, _ in fuse_rankings([["a", "b"], ["b", "a"]], depth=1)] == ["a", "b"]  # cut per list


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    """The crop manual and the unruled MSP table, ingested without OCR and embedded."""
    from ingest.api import embed, run

    root = tmp_path_factory.mktemp("hybrid")
    for name in PDFS:
        shutil.copy2(FIXTURES / name, root / name)
    path = str(root / "h.db")
    assert not run([root], db=path, workers=0, ocr="never").failed
    shutil.copy2(path, root / "plain.db")  # before `ingest embed`: no vectors
    embed(path)
    return path


def golden_table_questions() -> list[dict]:
    lines = (FIXTURES / "golden.jsonl").read_text(encoding="utf-8").splitlines()
    golden = [json.loads(line) for line in lines if line.strip()]
    tables = [q for q in golden if q.get("kind") == "table"]
    return [q for q in tables if q.get("doc") in ("crop_manual.pdf", None)]  # no doc: the MSP table


def test_hybrid_puts_every_table_answer_in_the_top_four(db):
    questions = golden_table_questions()
    assert len(questions) == 9  # 7 crop manual rows, 2 rows of the unruled MSP table
    for question in questions:
        args = ["search", question["question"], "--db", db, "--k", "4", "--hybrid", "--format", "json"]
        if question.get("doc"):
            args += ["--doc", str(Path(db).parent / question["doc"])]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        hits = json.loads(result.stdout)
        assert [hit["rank"] for hit in hits] == [1, 2, 3, 4]
        assert [hit["score"] for hit in hits] == sorted((hit["score"] for hit in hits), reverse=True)
        phrases = normalize_phrases(question["must_contain"])  # as `ingest eval` matches answers
        assert any(all(phrase in normalize_text(hit["text"]) for phrase in phrases) for hit in hits), question


def test_vector_search_ranks_by_distance_and_respects_doc(db):
    from ingest.api import search

    manual = str(Path(db).parent / "crop_manual.pdf")
    hits = search(db, "urea per acre at square formation", k=5, retriever="vector", doc=manual)
    assert len(hits) == 5 and {hit.source_path.endswith("crop_manual.pdf") for hit in hits} == {True}
    assert [hit.score for hit in hits] == sorted(hit.score for hit in hits)


def test_no_vectors_is_a_usage_error_naming_ingest_embed(db):
    plain = str(Path(db).parent / "plain.db")
    for flag in ("--vector", "--hybrid"):
        result = runner.invoke(app, ["search", "urea", "--db", plain, flag])
        assert result.exit_code == 2 and "ingest embed" in result.output
    assert runner.invoke(app, ["search", "urea", "--db", plain]).exit_code == 0  # bm25 needs none
    assert runner.invoke(app, ["search", "urea", "--db", db, "--vector", "--hybrid"]).exit_code == 2


def test_search_is_hybrid_by_default_when_the_database_holds_vectors(db):
    plain = str(Path(db).parent / "plain.db")

    def scores(*args: str) -> list[float]:
        result = runner.invoke(app, ["search", "urea per acre", "--k", "3", "--format", "json", *args])
        assert result.exit_code == 0, result.output
        return [hit["score"] for hit in json.loads(result.stdout)]

    assert scores("--db", db) == scores("--db", db, "--hybrid")  # fused: positive RRF scores
    assert all(score > 0 for score in scores("--db", db))
    assert scores("--db", db, "--bm25") == scores("--db", plain)  # bm25 asked for, or no vectors
    assert all(score < 0 for score in scores("--db", plain))
    assert runner.invoke(app, ["search", "urea", "--db", db, "--bm25", "--hybrid"]).exit_code == 2


def test_eval_retrievers_score_the_same_questions(db, tmp_path):
    from ingest.api import evaluate

    golden = tmp_path / "tables.jsonl"
    golden.write_text("".join(json.dumps(q) + "\n" for q in golden_table_questions()), encoding="utf-8")
    reports = {r: evaluate(golden, db=db, strategies=["structure"], retriever=r) for r in ("bm25", "hybrid")}
    assert reports["hybrid"].retriever == "hybrid"
    assert reports["hybrid"].strategy("structure").overall.hit_at_k[4] == 1.0
    assert reports["bm25"].strategy("structure").chunk_count == reports["hybrid"].strategy("structure").chunk_count
