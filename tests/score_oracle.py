"""The evaluation's scores recomputed from its per-question results, for the eval tests.

A check that each score lies in [0, 1] passes for any wrong share; these recompute each share
from the ranks the report gives per question (a question's `top_chunk` is a preview, cut at a
fixed length, so it cannot show the answer).
"""

from __future__ import annotations

from ingest.contracts.evaluation import StrategyResult


def score_problems(result: StrategyResult) -> list[str]:
    """Where the strategy's overall scores differ from the shares its questions give."""
    asked = result.questions
    if not asked:
        return ["no question was scored"]

    def share(hits) -> float:
        return sum(bool(hit) for hit in hits) / len(asked)

    expected = {
        **{
            f"hit@{k}": share(q.child_rank is not None and q.child_rank <= k for q in asked)
            for k in result.overall.hit_at_k
        },
        **{
            f"parent_hit@{k}": share(q.parent_rank is not None and q.parent_rank <= k for q in asked)
            for k in result.overall.parent_hit_at_k
        },
        "budget_hit": share(q.budget_hit for q in asked),
        "parent_budget_hit": share(q.parent_budget_hit for q in asked),
    }
    actual = {
        **{f"hit@{k}": value for k, value in result.overall.hit_at_k.items()},
        **{f"parent_hit@{k}": value for k, value in result.overall.parent_hit_at_k.items()},
        "budget_hit": result.overall.budget_hit,
        "parent_budget_hit": result.overall.parent_budget_hit,
    }
    problems = [
        f"{result.strategy} {name}: {actual[name]} != {value}"
        for name, value in expected.items()
        if abs(actual[name] - value) > 1e-9
    ]
    if result.overall.questions != len(asked):
        problems.append(f"{result.strategy}: {result.overall.questions} questions scored, {len(asked)} asked")
    for q in asked:
        if q.child_rank is not None and q.parent_rank is None:
            problems.append(f"{result.strategy} line {q.line}: a child answers but no parent does")
    return problems
