"""The structure benchmark's matcher and scorer on hand-built inputs (no PDF, no parser).

benchmarks/ is not a package, so the module is loaded from its file path.
"""

from __future__ import annotations

import difflib
import importlib.util
import sys
from pathlib import Path

import pytest

MODULE_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "structure_score.py"


def load_module():
    spec = importlib.util.spec_from_file_location("structure_score", MODULE_PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["structure_score"] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


ss = load_module()
H, Region, Structure = ss.Heading, ss.Region, ss.Structure


def test_normalise_folds_width_case_punctuation_and_spaces():
    assert ss.normalise("ＡＢＣ  Sowing—Window:\n(2024)") == "abc sowing window 2024"
    assert ss.normalise("5.1 Hyper-Parameter") == "5 1 hyper parameter"


def test_reordered_section_number_matches_just_below_an_exact_match():
    assert ss.heading_similarity("Hyper Parameter Optimization 5.1", "5.1 Hyper Parameter Optimization") == 0.99
    assert ss.heading_similarity("Row and Column Access Control", "ROW AND COLUMN ACCESS CONTROL.") == 1.0


def test_spelling_variant_above_the_threshold_matches():
    assert ss.heading_similarity("Fertiliser Schedule", "Fertilizer Schedule") > 0.85


def test_near_miss_below_threshold_does_not_match():
    gt, pred = "Sucking Pests", "Sucking Pest Control"
    ratio = difflib.SequenceMatcher(None, ss.normalise(gt), ss.normalise(pred)).ratio()
    assert 0.7 < ratio <= 0.85  # a genuine near miss, not an unrelated string
    assert ss.heading_similarity(gt, pred) == 0.0


def test_split_multi_line_heading_does_not_match_either_half():
    gt = "Row and Column Access Control Support in IBM DB2 for i"
    assert ss.heading_similarity(gt, "Row and Column Access Control") == 0.0
    assert ss.heading_similarity(gt, "Support in IBM DB2 for i") == 0.0


def test_empty_or_punctuation_only_heading_matches_nothing():
    assert ss.heading_similarity("---", "---") == 0.0
    assert ss.heading_similarity("", "Sowing") == 0.0


def test_a_gt_heading_is_matched_at_most_once_and_the_nearer_page_wins():
    gt = [H("Helpline", 5)]
    pred = [H("Helpline", 1), H("Helpline", 5)]
    assert ss.headings_to_pairs(gt, pred) == [(0, 1)]
    score = ss.structures_to_score("doc", Structure(headings=tuple(gt)), Structure(headings=tuple(pred)))
    assert (score.matched_headings, score.precision, score.recall) == (1, 0.5, 1.0)
    assert score.false_positives == ["p1 Helpline"]


def test_a_predicted_heading_is_used_at_most_once():
    gt = [H("Helpline", 2), H("Helpline", 5)]
    score = ss.structures_to_score("doc", Structure(headings=tuple(gt)), Structure(headings=(H("Helpline", 5),)))
    assert (score.matched_headings, score.recall, score.precision) == (1, 0.5, 1.0)
    assert score.missed == ["p2 Helpline"]


def test_exact_candidate_beats_a_fuzzy_one_for_the_same_gt_heading():
    gt = [H("Seed Treatment", 1), H("Seed Treatments", 1)]
    pred = [H("Seed Treatments", 1), H("Seed Treatment", 1)]
    assert ss.headings_to_pairs(gt, pred) == [(0, 1), (1, 0)]


def test_table_found_by_content_across_pages_and_not_on_another_page():
    gt = Region(page=2, page_end=3, cells=("Pest", "Dose", "Whitefly", "2 ml", "Aphids", "3 ml"))
    same = Region(page=3, page_end=3, bbox=(0, 0, 10, 10), cells=("Pest | Dose", "Whitefly | 2 ml", "Aphids"))
    elsewhere = Region(page=4, page_end=4, bbox=(0, 0, 10, 10), cells=gt.cells)
    assert ss.cells_share(gt.cells, same.cells) == pytest.approx(5 / 6)  # "3 ml" is missing
    assert ss.regions_to_pairs([gt], [elsewhere, same], use_cells=True) == [(0, 1)]


def test_table_with_too_few_cells_and_no_box_overlap_is_not_found():
    gt = Region(page=1, page_end=1, bbox=(0, 0, 100, 100), cells=("a1", "b2", "c3", "d4"))
    pred = Region(page=1, page_end=1, bbox=(200, 200, 300, 300), cells=("a1 | zz",))
    assert ss.region_similarity(gt, pred, use_cells=True) == 0.0


def test_figure_found_by_box_overlap_only():
    gt = Region(page=1, page_end=1, bbox=(0, 0, 100, 100))
    assert ss.region_similarity(gt, Region(1, 1, (10, 10, 100, 100)), use_cells=False) == pytest.approx(0.81)
    assert ss.region_similarity(gt, Region(1, 1, (50, 50, 150, 150)), use_cells=False) == 0.0  # IoU 1/7
    assert ss.region_similarity(gt, Region(2, 2, (0, 0, 100, 100)), use_cells=False) == 0.0


def test_totals_are_micro_averages():
    one = ss.DocScore("a", gt_headings=1, pred_headings=1, matched_headings=1)
    nine = ss.DocScore("b", gt_headings=9, pred_headings=1, matched_headings=0)
    total = ss.scores_to_total("all", [one, nine])
    assert total.recall == pytest.approx(0.1)  # a macro average would say 0.5
    assert total.precision == pytest.approx(0.5)
    assert ss.DocScore("none").f1 is None


def test_docling_json_headings_tables_pictures_with_bottom_left_boxes():
    box = {"l": 10.0, "t": 700.0, "r": 110.0, "b": 600.0, "coord_origin": "BOTTOMLEFT"}
    data = {
        "pages": {"1": {"size": {"width": 600.0, "height": 800.0}, "page_no": 1}},
        "texts": [
            {"label": "title", "text": "Report", "prov": [{"page_no": 1, "bbox": box}]},
            {"label": "section_header", "text": "Scope", "level": 1, "prov": [{"page_no": 1, "bbox": box}]},
            {"label": "text", "text": "Body", "prov": [{"page_no": 1, "bbox": box}]},
        ],
        "tables": [{"prov": [{"page_no": 1, "bbox": box}], "data": {"table_cells": [{"text": "x"}]}}],
        "pictures": [{"prov": [{"page_no": 1, "bbox": box}]}],
    }
    structure = ss.docling_json_to_structure(data)
    assert structure.headings == (H("Report", 1, 0), H("Scope", 1, 1))
    assert structure.tables[0].bbox == (10.0, 100.0, 110.0, 200.0)
    assert structure.tables[0].cells == ("x",)
    assert len(structure.figures) == 1


def test_fixture_truth_counts_the_title_and_every_table_cell():
    data = {
        "blocks": [{"type": "title", "text": "Manual", "page": 1}, {"type": "heading", "text": "Sowing", "page": 1}],
        "headings": [{"text": "Sowing", "level": 1, "page": 1}],
        "tables": [{"pages": [2, 3], "header": [["Pest", "Dose"]], "rows": [["Whitefly", "2 ml"]]}],
    }
    structure = ss.truth_json_to_structure(data)
    assert structure.headings == (H("Manual", 1, 0), H("Sowing", 1, 1))
    assert structure.tables == (Region(2, 3, None, ("Pest", "Dose", "Whitefly", "2 ml")),)
