"""`ingest eval` end to end: ingest fixtures with `ingest run`, evaluate the fixtures' golden set, read eval_runs."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import FIXTURES
from score_oracle import score_problems
from typer.testing import CliRunner

from ingest.cli import app
from ingest.contracts.evaluation import EvalReport, load_golden
from ingest.evaluation.evaluate import STRATEGIES

GOLDEN = FIXTURES / "golden.jsonl"
#: Born-digital fixtures only: no OCR, so the test takes seconds; golden questions about the
#: other fixtures are skipped (and reported as skipped), which the test checks too.
BORN_DIGITAL = ("crop_manual.pdf", "unruled_table.pdf", "scheme_notice_mr.pdf")

runner = CliRunner()


@pytest.fixture(scope="module")
def ingested(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("pdfs")
    for name in BORN_DIGITAL:
        shutil.copy(FIXTURES / name, folder / name)
    db = tmp_path_factory.mktemp("db") / "eval.db"
    result = runner.invoke(app, ["run", str(folder), "--db", str(db), "--workers", "0", "--quiet"])
    assert result.exit_code == 0, result.output
    return db


@pytest.mark.slow
def test_eval_command_scores_all_strategies_and_stores_each_run(ingested):
    stored_before = _stored_chunks(ingested)
    result = runner.invoke(app, ["eval", str(GOLDEN), "--db", str(ingested), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = EvalReport.model_validate(json.loads(result.output))

    assert [r.strategy for r in report.strategies] == list(STRATEGIES)
    assert report.ks == [1, 4, 10] and report.budget_tokens == 1200
    golden = load_golden(GOLDEN)
    asked = [item for item in golden if item.doc is None or item.doc in BORN_DIGITAL]
    assert report.question_count == len(golden)
    assert len(report.skipped) == len(golden) - len(asked)
    for strategy in report.strategies:
        assert len(strategy.questions) == len(asked)
        assert strategy.chunk_count > 0 and strategy.mean_tokens > 0
        scores = strategy.overall
        assert score_problems(strategy) == []
        assert scores.hit_at_k[1] <= scores.hit_at_k[4] <= scores.hit_at_k[10]
        assert "table" in strategy.by_kind

    with sqlite3.connect(ingested) as connection:
        rows = connection.execute(
            "SELECT id, strategy, golden_path, params, results FROM eval_runs ORDER BY id"
        ).fetchall()
    assert [row[1] for row in rows] == list(STRATEGIES)
    assert [row[0] for row in rows] == [r.run_id for r in report.strategies]
    params, results = json.loads(rows[0][3]), json.loads(rows[0][4])
    assert params["chunk_settings"]["strategy"] == "structure" and params["budget_tokens"] == 1200
    assert results["overall"]["hit_at_k"]["4"] == report.strategies[0].overall.hit_at_k[4]
    assert _stored_chunks(ingested) == stored_before  # re-chunking happens in memory only


def _stored_chunks(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT id, document_id, kind, text FROM chunks ORDER BY id").fetchall()


@pytest.mark.slow
def test_eval_table_output_and_options(ingested):
    result = runner.invoke(
        app,
        [
            "eval",
            str(GOLDEN),
            "--db",
            str(ingested),
            "--strategies",
            "fixed",
            "--k",
            "2",
            "--budget",
            "300",
            "--set",
            "child_max_tokens=100",
            "--set",
            "overlap_tokens=10",
        ],
    )
    assert result.exit_code == 0, result.output
    summary = result.output.split("Per kind")[0]
    assert "| fixed " in summary and "hit@2" in summary and "structure" not in summary
    assert "Misses of fixed (answer not in the top 2)" in result.output
    with sqlite3.connect(ingested) as connection:
        params = json.loads(connection.execute("SELECT params FROM eval_runs ORDER BY id DESC LIMIT 1").fetchone()[0])
    assert params["chunk_settings"]["child_max_tokens"] == 100 and params["ks"] == [2]


def test_eval_errors_exit_with_a_one_line_reason(tmp_path):
    missing_db = tmp_path / "none.db"
    result = runner.invoke(app, ["eval", str(GOLDEN), "--db", str(missing_db)])
    assert result.exit_code == 4 and "no database" in result.output
    assert not missing_db.exists()  # evaluating never creates a database
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q"}\n', encoding="utf-8")
    result = runner.invoke(app, ["eval", str(bad), "--db", str(missing_db)])
    assert result.exit_code == 2 and "line 1" in result.output
    result = runner.invoke(app, ["eval", str(GOLDEN), "--db", str(missing_db), "--strategies", "nonsense"])
    assert result.exit_code == 2 and "unknown strategy" in result.output


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [("--set", "no_equals", "KEY=VALUE"), ("--k", "1,x", "integers"), ("--strategies", " , ", "at least one")],
)
def test_malformed_eval_options_are_usage_errors_before_any_work(tmp_path, option, value, said):
    result = runner.invoke(app, ["eval", str(GOLDEN), "--db", str(tmp_path / "none.db"), option, value])
    assert result.exit_code == 2
    assert said in result.output
    assert not (tmp_path / "none.db").exists()


def test_the_library_call_returns_a_report_not_text(ingested):
    from ingest.api import evaluate

    report = evaluate(GOLDEN, db=str(ingested), strategies=["fixed"], ks=[1], chunk_settings={"child_max_tokens": 100})
    assert isinstance(report, EvalReport)
    assert [result.strategy for result in report.strategies] == ["fixed"]
