"""The ICDAR 2013 scorer (benchmarks/icdar2013_scoring.py) on the README's worked example, hand-built tables,
and the dataset's own counts as the README states them. No PDF library, no camelot: the measures only."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
DATA = Path(__file__).resolve().parents[2] / "shared" / "bench" / "icdar2013-eu"


def load(name: str):
    """A benchmarks/ module by file path (benchmarks/ is not a package)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


S = load("icdar2013_scoring")
Cell, Counts, Region, Table = S.Cell, S.Counts, S.Region, S.Table

# The README's worked example: the empty top-left cell, "Total" spanning columns 1-2, an empty last cell.
WORKED_TRUTH = (
    Cell(0, 0, 0, 0, ""),
    Cell(0, 1, 0, 2, "Total"),
    Cell(1, 0, 1, 0, "Year"),
    Cell(1, 1, 1, 1, "Men"),
    Cell(1, 2, 1, 2, "Women"),
    Cell(2, 0, 2, 0, "2010"),
    Cell(2, 1, 2, 1, "5"),
    Cell(2, 2, 2, 2, ""),
)
WORKED_ROWS = [["", "Total", ""], ["Year", "Men", "Women"], ["2010", "5", ""]]
WORKED_SIX = [
    ("year", "men", "right"),
    ("men", "women", "right"),
    ("2010", "5", "right"),
    ("year", "2010", "below"),
    ("total", "men", "below"),
    ("men", "5", "below"),
]

GRID_ROWS = [["Country", "2019", "2020"], ["Austria", "1.5", "2.5"], ["Belgium", "3.0", "4.0"]]


def table(rows, page=1, box=(0.0, 0.0, 100.0, 100.0)) -> Table:
    return Table((Region(page, box),), S.rows_to_cells(rows))


def test_worked_example_exactly_as_the_readme_states():
    truth = S.cells_to_relations(WORKED_TRUTH)
    assert truth == Counter(WORKED_SIX + [("total", "women", "below")])
    predicted = S.cells_to_relations(S.rows_to_cells(WORKED_ROWS))
    assert predicted == Counter(WORKED_SIX)
    counts = S.relations_to_counts(predicted, truth)
    assert (counts.tp, counts.pred, counts.gt) == (6, 6, 7)
    assert counts.precision == 1.0
    assert counts.recall == pytest.approx(6 / 7)
    assert counts.f1 == pytest.approx(2 * (6 / 7) / (1 + 6 / 7))


def test_norm_is_nfkc_lower_case_without_whitespace():
    assert S.norm("Czech\u00a0 Republic\n(ﬁ)") == "czechrepublic(fi)"  # NBSP, newline, the fi ligature
    assert S.norm(" \t\n") == ""


def test_perfect_prediction_scores_one_on_both_measures():
    truth = {"a": [table(GRID_ROWS, box=(10.0, 20.0, 300.0, 120.0))]}
    score = S.document_to_score([table(GRID_ROWS, box=(10.0, 20.0, 300.0, 120.0))], truth)
    assert (score.detection.tp, score.detection.pred, score.detection.gt) == (1, 1, 1)
    assert score.detection.f1 == 1.0
    assert score.structure.gt == 12  # 3 rows x 2 right + 3 columns x 2 below
    assert score.structure.f1 == 1.0


def test_a_column_shifted_down_one_row_lowers_adjacency():
    shifted = [["Country", "2019", ""], ["Austria", "1.5", "2020"], ["Belgium", "3.0", "2.5"], ["", "", "4.0"]]
    truth = S.cells_to_relations(S.rows_to_cells(GRID_ROWS))
    counts = S.relations_to_counts(S.cells_to_relations(S.rows_to_cells(shifted)), truth)
    # kept: all 6 "below" pairs (each column's order is unchanged) and 3 "right" pairs of the first two columns;
    # lost: the 3 "right" pairs into column 2, which now pair with the wrong row (2 such predicted, both wrong).
    assert (counts.tp, counts.pred, counts.gt) == (9, 11, 12)
    assert counts.f1 == pytest.approx(18 / 23)


def test_merged_columns_lose_every_relation_that_crosses_them():
    merged = [[" ".join(row)] for row in GRID_ROWS]  # a whole row in one cell, as when body rules are missing
    counts = S.relations_to_counts(
        S.cells_to_relations(S.rows_to_cells(merged)), S.cells_to_relations(S.rows_to_cells(GRID_ROWS))
    )
    assert counts.tp == 0 and counts.pred == 2 and counts.gt == 12


def test_iou_049_is_not_a_match_and_050_is():
    truth = [(0.0, 0.0, 10.0, 10.0)]
    assert S.iou((0.0, 0.0, 10.0, 4.9), truth[0]) == pytest.approx(0.49)
    assert S.boxes_to_matches([(0.0, 0.0, 10.0, 4.9)], truth) == 0
    assert S.boxes_to_matches([(0.0, 0.0, 10.0, 5.0)], truth) == 1


def test_matching_is_one_to_one_greedy_by_decreasing_iou():
    truth = [(0.0, 0.0, 10.0, 10.0), (4.0, 0.0, 14.0, 10.0)]
    first, second = (1.0, 0.0, 11.0, 10.0), (-3.0, 0.0, 7.0, 10.0)
    assert S.iou(first, truth[0]) > S.iou(first, truth[1]) >= 0.5 and S.iou(second, truth[0]) >= 0.5
    # greedy takes first-truth[0] (0.82) and leaves `second` nothing, although pairing first-truth[1] and
    # second-truth[0] (0.54 each) would match both: the README's rule is greedy, not an optimal assignment.
    assert S.boxes_to_matches([first, second], truth) == 1
    # one box over both truths matches one of them only
    assert S.boxes_to_matches([(0.0, 0.0, 14.0, 10.0)], [(0.0, 0.0, 10.0, 10.0), (0.0, 0.0, 12.0, 10.0)]) == 1


def test_detection_matches_only_on_the_same_page_and_counts_every_box():
    truth = S.tables_to_page_boxes([table(GRID_ROWS, page=1), table(GRID_ROWS, page=2)])
    predicted = S.tables_to_page_boxes([table(GRID_ROWS, page=2), table(GRID_ROWS, page=3)])
    counts = S.page_boxes_to_counts(predicted, truth)
    assert (counts.tp, counts.pred, counts.gt) == (1, 2, 2)


def test_cells_sharing_several_rows_make_one_relation():
    cells = (Cell(0, 0, 1, 0, "A"), Cell(0, 1, 1, 1, "B"))  # both span rows 0-1
    assert S.cells_to_relations(cells) == Counter({("a", "b", "right"): 1})


def test_a_spanning_cell_relates_to_each_neighbour_below_and_empty_cells_are_skipped():
    cells = (Cell(0, 0, 0, 1, "Head"), Cell(1, 0, 1, 0, ""), Cell(2, 0, 2, 0, "x"), Cell(1, 1, 1, 1, "y"))
    assert S.cells_to_relations(cells) == Counter({("head", "x", "below"): 1, ("head", "y", "below"): 1})


def test_relations_are_a_multiset_and_tp_takes_the_smaller_count():
    truth = S.cells_to_relations(S.rows_to_cells([["0", "0"], ["0", "0"]]))
    assert truth == Counter({("0", "0", "right"): 2, ("0", "0", "below"): 2})
    predicted = S.cells_to_relations(S.rows_to_cells([["0", "0", "0"]]))
    counts = S.relations_to_counts(predicted, truth)
    assert (counts.tp, counts.pred, counts.gt) == (2, 2, 4)


def test_structure_pools_tables_per_document_without_matching_them():
    halves = [table([GRID_ROWS[0], GRID_ROWS[1]]), table([GRID_ROWS[2]], page=2)]  # split table + an extra page
    score = S.document_to_score(halves, {"a": [table(GRID_ROWS)]})
    # all relations of the two halves count; only the "below" pairs between row 1 and row 2 are lost
    assert (score.structure.tp, score.structure.pred, score.structure.gt) == (9, 9, 12)


def test_each_measure_picks_its_own_best_variant():
    title = [["Categories", "", ""]] + GRID_ROWS
    a = [table(title, box=(0.0, 0.0, 100.0, 100.0))]
    b = [table(GRID_ROWS, box=(0.0, 50.0, 100.0, 100.0))]
    predicted = [table(GRID_ROWS, box=(0.0, 0.0, 100.0, 95.0))]  # a's box, b's cells
    score = S.document_to_score(predicted, {"eu-009a": a, "eu-009b": b})
    assert score.detection_variant == "eu-009a" and score.detection.f1 == 1.0
    assert score.structure_variant == "eu-009b" and score.structure.f1 == 1.0


def test_variant_ties_go_to_more_true_positives_then_the_first():
    assert S.counts_to_best_index([Counts(1, 2, 2), Counts(2, 4, 4)]) == 1  # same F1 0.5, more TP
    assert S.counts_to_best_index([Counts(2, 4, 4), Counts(2, 4, 4)]) == 0
    assert S.counts_to_best_index([Counts(1, 4, 4), Counts(3, 4, 4)]) == 1


REG_XML = b"""<?xml version="1.0" encoding="UTF-8"?>
<document filename='x-reg.xml'><table id='1'><region id='1' page='2'>
<instruction instr-id='1'/><bounding-box x1='50' y1='400' x2='300' y2='500'/></region></table></document>"""

STR_XML = """<?xml version="1.0" encoding="UTF-8"?>
<document filename="x-str.xml"><table id="1"><region col-increment="0" id="1" page="2" row-increment="-1">
<cell id="1" start-row="1" start-col="0" end-col="1"><bounding-box x1="1" x2="2" y1="1" y2="2"/>
<content>Spanning “title”</content></cell>
<cell id="2" start-row="2" start-col="1"><bounding-box x1="1" x2="2" y1="1" y2="2"/><content>a
b</content></cell>
<cell id="3" start-row="2" start-col="0"><bounding-box x1="1" x2="2" y1="1" y2="2"/><content/></cell>
</region></table></document>""".encode()


def test_xml_to_tables_applies_increments_spans_and_the_top_left_frame():
    regions, cells = S.reg_xml_to_regions(REG_XML), S.str_xml_to_cells(STR_XML)
    (gt,) = S.ground_truth_to_tables(regions, cells, {1: 842.0, 2: 595.0})
    assert gt.regions == (Region(2, (50.0, 95.0, 300.0, 195.0)),)  # H - y2, H - y1 with page 2's height
    assert gt.cells == (Cell(0, 0, 0, 1, "Spanning “title”"), Cell(1, 1, 1, 1, "a\nb"), Cell(1, 0, 1, 0, ""))
    assert S.cells_to_relations(gt.cells) == Counter({("spanning“title”", "ab", "below"): 1})


@pytest.mark.shared
@pytest.mark.skipif(not DATA.is_dir(), reason="the ICDAR 2013 EU data is not beside the repo")
def test_dataset_counts_match_the_readme():
    tables = regions = cells = relations = 0
    per_variant = {}
    for reg in sorted(DATA.glob("eu-*-reg.xml")):
        name = reg.name[: -len("-reg.xml")]
        found = S.str_xml_to_cells((DATA / f"{name}-str.xml").read_bytes())
        per_variant[name] = sum(sum(S.cells_to_relations(c).values()) for c in found.values())
        if name == "eu-009b":
            continue
        tables += len(found)
        regions += sum(map(len, S.reg_xml_to_regions(reg.read_bytes()).values()))
        cells += sum(map(len, found.values()))
        relations += per_variant[name]
    assert (tables, regions, cells, relations) == (76, 76, 3743, 6310)
    assert (per_variant["eu-009a"], per_variant["eu-009b"]) == (40, 38)


def test_runner_reports_a_missing_library_as_unavailable():
    runner = load("icdar2013")
    missing = runner.System("ghost", "no_such_table_library_xyz", lambda pdf: [])
    assert "ModuleNotFoundError" in runner.system_to_unavailable_reason(missing)
    assert runner.system_to_unavailable_reason(runner.SYSTEMS["plumber-lines"]) is None
    summary = runner.results_to_summary({"ghost": "ModuleNotFoundError: no module"})
    assert "ghost | unavailable: ModuleNotFoundError" in summary
