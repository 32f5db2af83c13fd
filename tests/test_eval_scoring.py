"""Scoring on hand-built rankings: a hit, a miss, a parent-expanded hit, a budget miss."""

from __future__ import annotations

import pytest

from ingest.evaluation.scoring import (
    Context,
    Retrieved,
    children_to_parent_contexts,
    contains_all,
    contexts_within_budget,
    normalize_phrases,
    normalize_text,
    rate,
    score_ranking,
)

DOSE_TABLE = "Crop manual / Pest control\n\nPest | Dose per litre\nWhitefly | 2 ml\nAphids | 3 ml"
DOSE_ROW_ALONE = "2 ml\nAphids | 3 ml"
PEST_SECTION = "Crop manual / Pests\n\nWhitefly sucks sap from the leaves.\n\nSpray 2 ml per litre of water."


def test_phrases_match_case_and_whitespace_insensitively_but_all_in_one_text():
    phrases = normalize_phrases(["WHITEFLY", "2  ml"])
    assert contains_all(DOSE_TABLE, phrases)
    assert not contains_all(DOSE_ROW_ALONE, phrases)  # the dose without its pest label is not the answer
    assert normalize_phrases("one phrase") == ("one phrase",)
    assert normalize_text("Whitefly |\n 2 ml") == "whitefly 2 ml"


def test_hit_ranked_first():
    ranked = [Retrieved("a", DOSE_TABLE, 20), Retrieved("b", "unrelated text", 3)]
    score = score_ranking(ranked, ["Whitefly", "2 ml"], budget_tokens=100)
    assert score.child_rank == 1
    assert score.hit(1) and score.budget_hit


def test_hit_only_at_lower_rank_counts_for_larger_k():
    ranked = [Retrieved("a", "unrelated text", 3), Retrieved("b", "also unrelated", 3), Retrieved("c", DOSE_TABLE, 20)]
    score = score_ranking(ranked, ["Whitefly", "2 ml"], budget_tokens=100)
    assert score.child_rank == 3
    assert not score.hit(1) and score.hit(4)


def test_miss_when_label_and_value_are_in_different_chunks():
    ranked = [Retrieved("a", "Pest | Dose per litre\nWhitefly |", 6), Retrieved("b", DOSE_ROW_ALONE, 6)]
    score = score_ranking(ranked, ["Whitefly", "2 ml"], budget_tokens=1000)
    assert score.child_rank is None and score.parent_rank is None
    assert not score.hit(10) and not score.budget_hit


def test_parent_expanded_hit_when_the_child_alone_misses():
    child = Retrieved(
        "c1",
        "Crop manual / Pests\n\nSpray 2 ml per litre of water.",
        10,
        parent_key="p1",
        parent_text=PEST_SECTION,
        parent_tokens=25,
    )
    score = score_ranking([child], ["Whitefly", "2 ml"], budget_tokens=1000)
    assert score.child_rank is None
    assert score.parent_rank == 1 and score.parent_hit(1)
    assert score.parent_budget_hit and not score.budget_hit


def test_parents_are_deduplicated_in_rank_order():
    ranked = [
        Retrieved("c1", "child one", 2, parent_key="p1", parent_text="section one", parent_tokens=5),
        Retrieved("c2", "child two", 2, parent_key="p1", parent_text="section one", parent_tokens=5),
        Retrieved("c3", "child three", 2, parent_key="p2", parent_text="section two holds the answer", parent_tokens=5),
        Retrieved("c4", "child four", 2),
    ]
    contexts = children_to_parent_contexts(ranked)
    assert [c.key for c in contexts] == ["p1", "p2", "c4"]
    score = score_ranking(ranked, "the answer", budget_tokens=1000)
    assert score.parent_rank == 2  # p1 counted once, so the second distinct parent is rank 2
    assert not score.parent_hit(1) and score.parent_hit(2)


def test_budget_miss_when_the_answer_is_in_a_chunk_too_big_for_the_prompt():
    huge = Retrieved("all", "the whole document ... Whitefly | 2 ml ...", 5000)
    score = score_ranking([huge], ["Whitefly", "2 ml"], budget_tokens=1200)
    assert score.child_rank == 1 and score.hit(1)  # found, but ...
    assert not score.budget_hit  # ... cannot be handed to the reader in 1200 tokens


def test_budget_miss_when_better_ranked_chunks_fill_the_prompt():
    ranked = [Retrieved("a", "noise", 700), Retrieved("b", "more noise", 400), Retrieved("c", DOSE_TABLE, 200)]
    assert not score_ranking(ranked, ["Whitefly", "2 ml"], budget_tokens=1200).budget_hit
    assert score_ranking(ranked, ["Whitefly", "2 ml"], budget_tokens=1300).budget_hit


def test_budget_prefix_stops_at_the_first_context_that_does_not_fit():
    contexts = [Context("a", "x", 500), Context("b", "y", 900), Context("c", "z", 100)]
    assert [c.key for c in contexts_within_budget(contexts, 1000)] == ["a"]
    assert [c.key for c in contexts_within_budget(contexts, 1500)] == ["a", "b", "c"]


def test_empty_answer_is_refused_and_rates_are_fractions():
    with pytest.raises(ValueError):
        score_ranking([], ["  "], budget_tokens=10)
    assert rate([True, False, False, True]) == 0.5
    assert rate([]) == 0.0


def test_word_recall_counts_repeated_words_and_ignores_punctuation_and_dandas():
    from ingest.evaluation.scoring import word_recall

    assert word_recall("Spray 2 ml, spray again.", "spray 2 ml") == 3 / 5  # the second "spray" is missing
    assert word_recall("किसान पात्र हैं।", "किसान पात्र हैं") == 1.0
    assert word_recall("whitefly", "aphids") == 0.0
