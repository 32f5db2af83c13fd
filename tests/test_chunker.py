"""Hand-built element lists: each test is a case a reader can check by eye."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ingest.chunker import chunk_document
from ingest.chunking.checks import chunk_violations
from ingest.chunking.prose import sentence_boundaries
from ingest.chunking.settings import ChunkSettings
from ingest.contracts.elements import Document, Element, table_rows_to_text
from ingest.tokens import WhitespaceCounter, tiktoken_counter

CL100K = tiktoken_counter("cl100k_base")


def doc(*elements: Element, title: str | None = "Cotton manual") -> Document:
    return Document(
        source_path="hand.pdf",
        content_sha256="0" * 64,
        size_bytes=1,
        page_count=max(e.last_page for e in elements),
        title=title,
        elements=list(elements),
    )


def title(text: str, level: int = 1, page: int = 1) -> Element:
    return Element(type="title", text=text, heading_level=level, page=page)


def para(text: str, page: int = 1) -> Element:
    return Element(type="paragraph", text=text, page=page)


def item(text: str, page: int = 1, level: int = 0) -> Element:
    return Element(type="list_item", text=text, page=page, list_level=level)


def table(rows: list[list[str]], header_rows: int = 1, caption: str | None = None, page: int = 1) -> Element:
    return Element(
        type="table", text=table_rows_to_text(rows), rows=rows, header_rows=header_rows, caption=caption, page=page
    )


DOSES = [
    ["Pest", "Insecticide", "Dose"],
    ["Whitefly", "Pyriproxyfen 10 EC", "2 ml per litre"],
    ["Aphids", "Dimethoate 30 EC", "3 ml per litre"],
    ["Jassids", "Acetamiprid 20 SP", "0.2 g per litre"],
    ["Thrips", "Fipronil 5 SC", "2 ml per litre"],
]


def children(chunks):
    return [c for c in chunks if c.kind == "child"]


def check(document, chunks, config, counter=CL100K):
    assert chunk_violations(document, chunks, ChunkSettings.resolve(config), counter) == []


def test_text_is_heading_path_then_body_with_document_title_first():
    document = doc(title("Pests"), title("Whitefly", 2), para("Spray when 8 adults per leaf are seen."))
    chunks = chunk_document(document, None, CL100K)
    assert [c.kind for c in chunks] == ["child"]  # a one-child section has no twin parent
    child = chunks[0]
    assert child.heading_path == ["Cotton manual", "Pests", "Whitefly"]
    assert child.text == "Cotton manual / Pests / Whitefly\n\nSpray when 8 adults per leaf are seen."
    assert child.body == "Spray when 8 adults per leaf are seen."
    assert document.canonical_text()[child.char_start : child.char_end] == child.body
    assert child.parent is None and child.token_count == CL100K.count(child.text)
    check(document, chunks, None)


UNMERGED = {"merge_sections": False}


def test_first_heading_equal_to_document_title_is_not_repeated():
    document = doc(title("Cotton Manual"), para("Intro."), title("Pests", 2), para("Whitefly."))
    paths = [c.heading_path for c in children(chunk_document(document, UNMERGED, CL100K))]
    assert paths == [["Cotton Manual"], ["Cotton Manual", "Pests"]]


def test_deeper_headings_are_dropped_when_a_higher_one_appears():
    document = doc(title("A"), title("B", 2), title("C", 3), para("one."), title("D", 2), para("two."), title=None)
    paths = [c.heading_path for c in children(chunk_document(document, UNMERGED, CL100K))]
    assert paths == [["A", "B", "C"], ["A", "D"]]


def test_a_short_section_and_its_sub_sections_become_one_chunk_under_the_outer_path():
    document = doc(
        title("Pests"),
        para("Scout the field every week."),
        title("Whitefly", 2),
        para("Spray 2 ml per litre."),
        title("Aphids", 2),
        para("Spray 3 ml per litre."),
    )
    chunks = children(chunk_document(document, None, CL100K))
    assert len(chunks) == 1
    assert chunks[0].text == (
        "Cotton manual / Pests\n\nScout the field every week.\n\nWhitefly\n\n"
        "Spray 2 ml per litre.\n\nAphids\n\nSpray 3 ml per litre."
    )
    assert document.canonical_text()[chunks[0].char_start : chunks[0].char_end] == chunks[0].body
    check(document, chunk_document(document, None, CL100K), None)


def test_sub_sections_keep_their_own_chunks_and_paths_when_the_whole_does_not_fit():
    long_text = " ".join(f"Sentence {i} about whitefly scouting and thresholds." for i in range(12))
    document = doc(
        title("Pests"),
        para("Scout the field every week."),
        title("Whitefly", 2),
        para(long_text),
        title("Aphids", 2),
        para("Spray 3 ml per litre."),
        title("Leaf curl", 3),
        para("Remove plants."),
    )
    config = {"child_max_tokens": 120, "overlap_tokens": 10}
    chunks = children(chunk_document(document, config, CL100K))
    paths = [c.heading_path for c in chunks]
    assert [p for i, p in enumerate(paths) if p not in paths[:i]] == [
        ["Cotton manual", "Pests"],
        ["Cotton manual", "Pests", "Whitefly"],
        ["Cotton manual", "Pests", "Aphids"],
    ]
    assert len(chunks) > 3, "the whitefly text alone needs two chunks at 120 tokens"
    assert chunks[-1].body == "Spray 3 ml per litre.\n\nLeaf curl\n\nRemove plants."
    check(document, chunk_document(document, config, CL100K), config)


def test_a_chunk_never_spans_two_sections_even_when_both_are_tiny():
    document = doc(title("Whitefly"), para("Use 2 ml per litre."), title("Aphids"), para("Use 3 ml per litre."))
    bodies = [c.body for c in children(chunk_document(document, None, CL100K))]
    assert bodies == ["Use 2 ml per litre.", "Use 3 ml per litre."]


def test_furniture_never_enters_chunk_text():
    document = doc(
        title("Pests"),
        para("First part of the text."),
        Element(type="footer", text="Page 1 of 2", page=1),
        Element(type="header", text="Cotton Manual 2024", page=2),
        Element(type="page_number", text="2", page=2),
        para("Second part.", page=2),
    )
    chunks = chunk_document(document, None, CL100K)
    assert all("Page 1 of 2" not in c.text and "Manual 2024" not in c.text for c in chunks)
    assert children(chunks)[0].body == "First part of the text.\n\nSecond part."
    assert (children(chunks)[0].page_start, children(chunks)[0].page_end) == (1, 2)
    assert children(chunks)[0].element_indexes == [1, 5]


def test_sentence_ends_include_danda_and_skip_abbreviations():
    text = "Mix approx. 2 ml per litre, e.g. with Dr. Rao's sprayer. Spray now! दवा मिलाएं। पानी दें॥ Done?"
    cuts = sentence_boundaries(text, 0, len(text))
    pieces = [text[a:b].strip() for a, b in zip([0] + cuts, cuts + [len(text)])]
    assert pieces == [
        "Mix approx. 2 ml per litre, e.g. with Dr. Rao's sprayer.",
        "Spray now!",
        "दवा मिलाएं।",
        "पानी दें॥",
        "Done?",
    ]


def test_long_prose_is_cut_at_sentence_ends_never_inside_a_word():
    sentences = [f"Sentence number {i} tells the farmer about cotton pests and doses." for i in range(40)]
    document = doc(title("Pests"), para(" ".join(sentences)))
    config = {"child_max_tokens": 60, "overlap_tokens": 0, "parent_max_tokens": 2000}
    chunks = chunk_document(document, config, CL100K)
    bodies = [c.body for c in children(chunks)]
    assert len(bodies) > 5
    assert all(body.endswith("doses.") and body.startswith("Sentence") for body in bodies)
    check(document, chunks, config)


def test_single_word_longer_than_the_limit_is_the_only_cut_inside_a_word():
    word = "x" * 600
    document = doc(title("Odd"), para(f"Before the code. {word} After the code."))
    config = {"child_max_tokens": 40, "overlap_tokens": 0}
    chunks = chunk_document(document, config, CL100K)
    bodies = [c.body for c in children(chunks)]
    assert bodies[0] == "Before the code."
    assert "".join(ch for body in bodies for ch in body if ch == "x") == word
    assert bodies[-1].endswith("x After the code.")
    check(document, chunks, config)


def test_overlap_is_real_shared_text_of_whole_words():
    sentences = [f"Row {i} of the field was sprayed with neem oil at dawn." for i in range(30)]
    document = doc(title("Log"), para(" ".join(sentences)))
    config = {"child_max_tokens": 80, "overlap_tokens": 20, "parent_max_tokens": 2000}
    chunks = children(chunk_document(document, config, CL100K))
    text = document.canonical_text()
    for previous, chunk in zip(chunks, chunks[1:]):
        shared = text[chunk.char_start : previous.char_end]
        assert shared and previous.body.endswith(shared) and chunk.body.startswith(shared)
        assert 10 <= chunk.metadata["overlap_tokens"] == CL100K.count(shared) <= 20
        assert text[chunk.char_start - 1] == " "


def test_small_paragraphs_are_merged_up_to_the_limit_within_a_section():
    document = doc(title("Notes"), *[para(f"Short note {i}.") for i in range(6)], title("Other"), para("Alone."))
    bodies = [c.body for c in children(chunk_document(document, None, CL100K))]
    assert bodies == ["\n\n".join(f"Short note {i}." for i in range(6)), "Alone."]


def test_min_tokens_rebalances_a_tiny_tail_chunk():
    """The tail takes sentences from the chunk before it, up to min_tokens or until both are even."""
    sentences = [f"Sentence {i} says spray neem oil at dusk." for i in range(9)]
    document = doc(title("Log"), para(" ".join(sentences)))
    greedy = children(chunk_document(document, {"child_max_tokens": 60, "overlap_tokens": 0, "min_tokens": 0}, CL100K))
    config = {"child_max_tokens": 60, "overlap_tokens": 0, "min_tokens": 25}
    chunks = chunk_document(document, config, CL100K)
    balanced = children(chunks)
    assert greedy[-1].body == "Sentence 8 says spray neem oil at dusk."  # the tiny tail min_tokens prevents
    tail, before = CL100K.count(balanced[-1].body), CL100K.count(balanced[-2].body)
    assert len(balanced) == len(greedy) and CL100K.count(greedy[-1].body) < tail <= before
    assert balanced[-1].body.startswith("Sentence 7") and balanced[-2].body.endswith(
        "Sentence 6 says spray neem oil at dusk."
    )
    assert all(c.token_count <= 60 for c in balanced)
    check(document, chunks, config)


def test_table_that_fits_is_one_markdown_piece_with_caption():
    document = doc(title("Pests"), table(DOSES, caption="Table 2: Doses"))
    child = children(chunk_document(document, None, CL100K))[0]
    assert child.body == (
        "Table 2: Doses\n| Pest | Insecticide | Dose |\n| --- | --- | --- |\n"
        "| Whitefly | Pyriproxyfen 10 EC | 2 ml per litre |\n| Aphids | Dimethoate 30 EC | 3 ml per litre |\n"
        "| Jassids | Acetamiprid 20 SP | 0.2 g per litre |\n| Thrips | Fipronil 5 SC | 2 ml per litre |"
    )
    assert child.element_types == ["table"] and child.metadata["table_rows"] == [0, 1, 2, 3]


@pytest.mark.parametrize("limit", [60, 70, 80])
def test_split_table_repeats_header_and_caption_and_keeps_each_row_whole(limit):
    document = doc(title("Pests"), table(DOSES, caption="Table 2: Doses"))
    config = {"child_max_tokens": limit, "overlap_tokens": 8}
    pieces = children(chunk_document(document, config, CL100K))
    assert len(pieces) > 1
    for piece in pieces:
        lines = piece.body.split("\n")
        assert lines[:3] == ["Table 2: Doses", "| Pest | Insecticide | Dose |", "| --- | --- | --- |"]
        assert piece.text.startswith("Cotton manual / Pests\n\n")
        assert piece.token_count <= limit
    rows = [line for piece in pieces for line in piece.body.split("\n")[3:]]
    assert "| Whitefly | Pyriproxyfen 10 EC | 2 ml per litre |" in rows
    assert {line for line in rows} == {f"| {' | '.join(r)} |" for r in DOSES[1:]}
    check(document, chunks := chunk_document(document, config, CL100K), config)
    assert chunks


def test_table_max_tokens_cuts_a_table_that_fits_the_child_limit_into_row_groups_apart_from_prose():
    intro = para("Mix the dose below in one litre of water and spray in the evening.")
    document = doc(title("Pests"), intro, table(DOSES, caption="Table 2: Doses"))
    whole = children(chunk_document(document, None, CL100K))
    assert len(whole) == 1 and "Mix the dose" in whole[0].body and "Thrips" in whole[0].body
    config = {"table_max_tokens": 60, "overlap_tokens": 0}
    pieces = [c for c in children(chunk_document(document, config, CL100K)) if "table" in c.element_types]
    assert len(pieces) > 1
    for piece in pieces:
        assert piece.body.split("\n")[:3] == ["Table 2: Doses", "| Pest | Insecticide | Dose |", "| --- | --- | --- |"]
        assert piece.text.startswith("Cotton manual / Pests\n\n") and piece.token_count <= 60
    assert sorted(r for p in pieces for r in p.metadata["table_rows"]) == [0, 1, 2, 3]
    check(document, chunk_document(document, config, CL100K), ChunkSettings(**config))


def test_a_caption_piece_that_fits_its_parent_is_cut_again_to_the_table_limit_of_a_child():
    # Found by the soak test: the parent's first piece (caption + a wide header, no row) fitted the
    # parent limit and went unchanged into a child, over table_max_tokens and not flagged.
    rows = [["cotton", "cotton", "cotton", "cotton cotton", "cotton cotton cotton"], ["cotton"] * 4 + ["spray"]]
    document = doc(title("cotton"), table(rows, caption="Table 9: Doses per pest"), title=None)
    config = ChunkSettings(
        child_max_tokens=40, overlap_tokens=0, parent_max_tokens=40, table_max_tokens=30, embedding_limit=16
    )
    chunks = chunk_document(document, config, WhitespaceCounter())
    assert chunk_violations(document, chunks, config, WhitespaceCounter()) == []
    caption_piece = next(c for c in children(chunks) if c.metadata.get("table_rows") == [])
    assert caption_piece.body == "Table 9: Doses per pest" and caption_piece.token_count <= 30


def test_table_max_tokens_never_raises_the_child_limit():
    assert ChunkSettings(child_max_tokens=200, table_max_tokens=500).table_limit == 200
    assert ChunkSettings(child_max_tokens=200).table_limit == 200


def test_row_too_long_alone_is_split_by_cells_keeping_the_row_label():
    long_note = " ".join(["Spray in the evening and never during flowering to protect the bees."] * 6)
    rows = [["Pest", "Dose", "Notes"], ["Whitefly", "2 ml per litre", long_note]]
    document = doc(title("Pests"), table(rows))
    config = {"child_max_tokens": 48, "overlap_tokens": 0}
    pieces = children(chunk_document(document, config, CL100K))
    assert len(pieces) > 2
    for piece in pieces:
        header, _, row = piece.body.split("\n")
        assert header.startswith("| Pest |") and row.startswith("| Whitefly |")
        assert piece.token_count <= 48 and not piece.metadata.get("oversize")
    assert any(p.body.split("\n")[2] == "| Whitefly | 2 ml per litre |" for p in pieces)
    check(document, chunk_document(document, config, CL100K), config)


def test_header_and_row_that_cannot_be_split_is_flagged_oversize():
    rows = [["Pest name in the local language and in English", "Dose"], ["Whitefly", "2 ml"]]
    document = doc(title("Pests"), table(rows, caption="Table 7: a long caption that takes most of the room here"))
    config = {"child_max_tokens": 20, "overlap_tokens": 0, "parent_max_tokens": 20}
    pieces = children(chunk_document(document, config, WhitespaceCounter()))
    caption, row = pieces  # no room for the caption beside the row: it gets a piece of its own
    assert caption.body == "Table 7: a long caption that takes most of the room here"
    assert row.metadata["oversize"] and row.token_count > 20
    assert row.body == "| Pest name in the local language and in English | Dose |\n| --- | --- |\n| Whitefly | 2 ml |"
    check(document, chunk_document(document, config, WhitespaceCounter()), config, WhitespaceCounter())


def test_list_that_fits_stays_together_with_its_lead_in():
    document = doc(
        title("How to apply"),
        para("Documents needed:"),
        item("Aadhaar card."),
        item("Land record."),
        item("One photograph."),
    )
    child = children(chunk_document(document, None, CL100K))[0]
    assert child.body == "Documents needed:\n\nAadhaar card.\n\nLand record.\n\nOne photograph."
    assert child.element_types == ["paragraph", "list_item"]


def test_long_list_splits_between_items_and_repeats_the_lead_in():
    items = [item(f"Item {i}: bring the original document and two signed photocopies of it.") for i in range(12)]
    document = doc(title("How to apply"), para("Documents needed:"), *items)
    config = {"child_max_tokens": 60, "overlap_tokens": 0}
    chunks = chunk_document(document, config, CL100K)
    pieces = children(chunks)
    assert len(pieces) > 2
    assert pieces[0].body.startswith("Documents needed:\n\nItem 0:")
    for piece in pieces[1:]:
        assert piece.heading_path == ["Cotton manual", "How to apply", "Documents needed:"]
        assert piece.text.startswith("Cotton manual / How to apply / Documents needed:\n\nItem ")
        assert piece.metadata["lead_in"] == "Documents needed:"
    for piece in pieces:
        assert piece.body.endswith("photocopies of it.")
    check(document, chunks, config)


def test_parent_is_the_section_and_children_point_into_it():
    document = doc(title("Pests"), para("Whitefly sucks sap. " * 40), table(DOSES), para("Never mix two insecticides."))
    config = {"child_max_tokens": 50, "overlap_tokens": 10, "parent_max_tokens": 2000}
    chunks = chunk_document(document, config, CL100K)
    parents = [c for c in chunks if c.kind == "parent"]
    assert len(parents) == 1 and chunks[0].kind == "parent"
    assert all(c.parent == 0 for c in chunks[1:])
    assert "| Whitefly | Pyriproxyfen 10 EC | 2 ml per litre |" in parents[0].body
    check(document, chunks, config)


def test_section_over_the_parent_limit_gives_several_parents_each_followed_by_its_children():
    document = doc(
        title("Pests"), *[para(f"Paragraph {i} is about whitefly doses in cotton fields.") for i in range(40)]
    )
    config = {"child_max_tokens": 40, "overlap_tokens": 8, "parent_max_tokens": 120}
    chunks = chunk_document(document, config, CL100K)
    parents = [c for c in chunks if c.kind == "parent"]
    assert len(parents) > 3 and all(p.token_count <= 120 for p in parents)
    current = None
    for chunk in chunks:
        if chunk.kind == "parent":
            current = chunk.index
        else:
            assert chunk.parent == current
    check(document, chunks, config)


def test_over_embedding_limit_is_flagged():
    document = doc(title("Pests"), para("word " * 100))
    chunks = chunk_document(document, {"child_max_tokens": 300, "embedding_limit": 50}, CL100K)
    assert all(c.metadata.get("over_embedding_limit") for c in chunks if c.token_count > 50)
    assert any(c.metadata.get("over_embedding_limit") for c in chunks)


def test_blind_strategies_ignore_structure():
    document = doc(title("Pests"), para("Whitefly sucks sap. " * 60), table(DOSES))
    for strategy in ("fixed", "recursive"):
        chunks = chunk_document(document, {"strategy": strategy, "child_max_tokens": 50, "overlap_tokens": 10}, CL100K)
        assert len(chunks) > 3
        assert all(c.kind == "child" and c.parent is None and c.heading_path == [] and c.text == c.body for c in chunks)
        assert all(c.token_count <= 50 for c in chunks)


def test_unknown_setting_is_rejected():
    with pytest.raises(ValidationError):
        chunk_document(doc(para("x")), {"child_max": 100})


def test_heading_path_over_half_the_limit_is_shortened_and_flagged():
    document = doc(title("Pests"), title(" ".join(["long"] * 40), 2), para("Use 2 ml per litre."))
    config = {"child_max_tokens": 30, "overlap_tokens": 0}
    chunks = chunk_document(document, config, CL100K)
    child = children(chunks)[0]
    assert child.metadata["heading_path_truncated"] is True
    assert child.heading_path[0].startswith("long long") and child.heading_path[0].endswith(" …")
    assert len(child.heading_path) == 1 and child.body == "Use 2 ml per litre." and child.token_count <= 30
    check(document, chunks, config)


def test_checker_reports_a_body_that_is_not_the_canonical_slice():
    """The invariant checker the property tests rely on must be able to fail."""
    document = doc(title("Pests"), para("Use 2 ml per litre for whitefly."))
    chunks = chunk_document(document, None, CL100K)
    broken = chunks[0].model_copy(update={"char_start": chunks[0].char_start + 1})
    problems = chunk_violations(document, [broken], ChunkSettings(), CL100K)
    assert any("not canonical" in p for p in problems)
    lost = chunk_violations(document, [], ChunkSettings(), CL100K)
    assert any("in no child" in p for p in lost)


def test_empty_document_gives_no_chunks():
    assert chunk_document(doc(Element(type="footer", text="Page 1", page=1)), None, CL100K) == []


@pytest.mark.parametrize("config", [None, UNMERGED])
def test_a_heading_with_no_body_and_no_sub_section_is_not_lost(config):
    document = doc(
        title("Pests"),
        para("Scout weekly."),
        title("Speed limits", 2),
        title("Whitefly", 2),
        para("Spray 2 ml per litre. " * 80),
    )
    chunks = children(chunk_document(document, config, CL100K))
    holding = [c for c in chunks if "Speed limits" in c.text]
    assert holding and all(c.heading_path == ["Cotton manual", "Pests", "Speed limits", "Whitefly"] for c in holding)
    assert not any(c.body == "Speed limits" for c in chunks)
    check(document, chunk_document(document, config, CL100K), config)


def test_a_filings_part_heading_stays_in_the_path_of_its_first_item_instead_of_a_chunk_of_its_own():
    document = doc(
        title("PART I"),
        title("Item 1. Business"),
        para("We make adhesives and abrasives for industry. " * 3),
        title("Item 1A. Risk Factors"),
        para("Raw material prices may rise. " * 3),
        title="Acme Corp 10-K 2023",
    )
    chunks = children(chunk_document(document, None, CL100K))
    assert [c.heading_path for c in chunks] == [
        ["Acme Corp 10-K 2023", "PART I", "Item 1. Business"],
        ["Acme Corp 10-K 2023", "Item 1A. Risk Factors"],
    ]
    check(document, chunk_document(document, None, CL100K), None)


def test_a_carried_heading_does_not_head_a_later_sibling_that_repeats_its_text():
    """Headings repeated word for word (a manual's "Notes" at the end of every part) are siblings:
    the carried first one heads the section after it, not the next one of the same name."""
    document = doc(
        title("Notes"),
        title("Notes"),
        para("Keep records of every spray. " * 3),
        title("Notes"),
        para("Clean the sprayer after use. " * 3),
    )
    chunks = children(chunk_document(document, None, CL100K))
    assert [c.heading_path for c in chunks] == [["Cotton manual", "Notes", "Notes"], ["Cotton manual", "Notes"]]
    check(document, chunk_document(document, None, CL100K), None)


def test_a_run_of_bodiless_headings_longer_than_the_carry_is_one_contents_body():
    entries = [title(f"Item {n}.") for n in range(1, 7)]
    document = doc(*entries, title("Item 7. Management's Discussion"), para("Sales grew. " * 10))
    chunks = children(chunk_document(document, None, CL100K))
    contents = [c for c in chunks if "Item 1." in c.body]
    assert len(contents) == 1 and all(f"Item {n}." in contents[0].body for n in range(1, 5))
    assert chunks[-1].heading_path == ["Cotton manual", "Item 5.", "Item 6.", "Item 7. Management's Discussion"]


def test_a_lead_in_paragraph_ending_with_colon_travels_with_every_piece_of_its_table():
    rows = DOSES + [[f"Pest {i}", f"Insecticide {i}", f"{i} ml per litre"] for i in range(30)]
    document = doc(title("Pests"), para("Spray only after scouting."), para("Doses for sucking pests:"), table(rows))
    config = {"child_max_tokens": 120, "overlap_tokens": 0}
    pieces = [c for c in children(chunk_document(document, config, CL100K)) if "table_element" in c.metadata]
    assert len(pieces) > 2
    assert all(c.body.startswith("Doses for sucking pests:\n| Pest | Insecticide | Dose |") for c in pieces)
    prose = [c for c in children(chunk_document(document, config, CL100K)) if "table_element" not in c.metadata]
    assert [c.body for c in prose] == ["Spray only after scouting."]
    check(document, chunk_document(document, config, CL100K), config)


def test_a_long_paragraph_ending_with_colon_is_not_copied_into_every_table_piece():
    intro = " ".join(["Farmers should read the whole schedule before they buy any input for the season."] * 4)
    rows = DOSES + [[f"Pest {i}", f"Insecticide {i}", f"{i} ml per litre"] for i in range(30)]
    document = doc(title("Pests"), para(intro + " The doses are:"), table(rows))
    config = {"child_max_tokens": 120, "overlap_tokens": 0}
    chunks = children(chunk_document(document, config, CL100K))
    assert sum("Farmers should read" in c.text for c in chunks) == 1
    assert not any(c.metadata.get("oversize") for c in chunks)
    check(document, chunk_document(document, config, CL100K), config)


def test_body_text_before_the_first_heading_does_not_pull_the_sections_after_it_into_its_chunk():
    document = doc(
        para("Issued by the KVK, June 2024."),
        title("Whitefly"),
        para("Spray 2 ml per litre."),
        title("Aphids"),
        para("Spray 3 ml per litre."),
    )
    paths = [c.heading_path for c in children(chunk_document(document, None, CL100K))]
    assert paths == [["Cotton manual"], ["Cotton manual", "Whitefly"], ["Cotton manual", "Aphids"]]


def test_a_sentence_pointing_at_a_table_is_repeated_in_every_piece_and_stays_prose():
    rows = [["Segment", "2023", "2022"]] + [[f"Segment {i}", f"{i}00", f"{i}10"] for i in range(40)]
    intro = "The following table sets forth net sales by segment."
    document = doc(title("Net Sales"), para("Sales grew in every region. " + intro), table(rows))
    config = {"child_max_tokens": 120, "overlap_tokens": 0}
    chunks = children(chunk_document(document, config, CL100K))
    pieces = [c for c in chunks if "table_element" in c.metadata]
    assert len(pieces) > 2 and all(c.body.startswith(intro + "\n| Segment | 2023 | 2022 |") for c in pieces)
    assert any(c.body == "Sales grew in every region. " + intro for c in chunks if c not in pieces)
    check(document, chunk_document(document, config, CL100K), config)


def test_the_chunk_settings_dump_the_same_in_every_process():
    """Word sets dump sorted: the settings hash into the pipeline version, and a set's order changes
    with the process's hash seed, which would reprocess every document on every run."""
    import os
    import subprocess
    import sys

    code = "from ingest.chunking.settings import ChunkSettings; print(ChunkSettings().model_dump_json())"
    dumps = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(dumps) == 1


def test_a_filings_regulator_header_title_gives_way_to_the_issuer_named_in_the_pdf_info():
    body = (title("Item 7. Management's Discussion"), para("Revenue grew 12 percent on subscriptions."))
    header = "UNITED STATES SECURITIES AND EXCHANGE COMMISSION"
    filing = doc(*body, title=header).model_copy(update={"metadata": {"pdf": {"Title": "ADBE 10-K FY22"}}})
    chunks = children(chunk_document(filing, None, CL100K))
    assert [c.heading_path for c in chunks] == [["ADBE 10-K FY22", "Item 7. Management's Discussion"]]
    assert chunks[0].metadata["document_line"] == "ADBE 10-K FY22"
    accession = filing.model_copy(update={"metadata": {"pdf": {"Title": "0001512673-21-000008"}}})
    assert children(chunk_document(accession, None, CL100K))[0].heading_path[0] == header  # nothing better
