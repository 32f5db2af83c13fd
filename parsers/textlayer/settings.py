"""Settings of the text layer: characters to words, lines, blocks and regions. Every tolerance this
stage decides with is a field here, named, with its unit and the reason for its default.
Validated when built, unknown keys rejected; a user overrides any of them in the config file
(`[parse.text_layer]`), and they hash into the pipeline version, so a changed value reprocesses
the documents it affects.

Units: "em" is a share of the font size in points (the smaller of two glyphs' sizes where two
are compared), "pt" PDF points, "share" a fraction 0-1 of the quantity named."""

from __future__ import annotations

from pydantic import Field

from ingest.contracts.settings import StageSettings


class TextLayerSettings(StageSettings):
    """Tolerances of the text layer: characters to words, lines, blocks and regions. Each field:
    unit, default and why (the kind of document and the typography it is set for)."""

    # --- characters -> segments and words (`chars.chars_to_segments`) -------------------------
    segment_gap_em: float = Field(
        default=0.8,
        gt=0,
        description="em; a gap wider than this between two glyphs of a baseline ends a segment: "
        "word spaces of justified prose stay under it, the gap between table cells or columns exceeds it",
    )
    space_gap_em: float = Field(
        default=0.18,
        gt=0,
        description="em; the widest word-space threshold, and the threshold itself when the font's space "
        "advance is unknown: text fonts set word spaces from 0.2 em up, letter gaps stay under it",
    )
    min_space_gap_em: float = Field(
        default=0.1,
        gt=0,
        description="em; the narrowest word-space threshold: letter gaps reach ~0.085 em in tightly set "
        "prose, so no font's space advance brings the threshold below this",
    )
    space_share_of_advance: float = Field(
        default=0.5,
        gt=0,
        description="share of the font's space advance; a glyph gap over it is a word space: half a "
        "space (0.125 em in Times, whose space is 0.25 em) keeps an overhanging 'f' apart from the next word",
    )
    space_advance_min_em: float = Field(
        default=0.1,
        ge=0,
        description="em; a space advance under this is no real space glyph (a placeholder), so the "
        "fallback `space_gap_em` applies",
    )
    space_advance_max_em: float = Field(
        default=0.6,
        gt=0,
        description="em; a space advance over this is a full-width (CJK) space or a default width "
        "for a font without one, so the fallback `space_gap_em` applies",
    )
    devanagari_space_gap_em: float = Field(
        default=0.45,
        gt=0,
        description="em; word-space threshold between two Devanagari letters: their glyph boxes overlap "
        "and leave odd gaps inside words, so a clearer gap is demanded",
    )
    hidden_space_em: float = Field(
        default=0.1,
        ge=0,
        description="em of the glyph before it; a drawn space that ends this much or more before that "
        "glyph's end lies inside its advance and moves the pen nowhere: no word break. OCR engines' "
        "invisible layers draw a narrow space from a word's last glyph's start, inside a full-width letter",
    )
    advance_edge_pt: float = Field(
        default=0.01,
        ge=0,
        description="pt; rounding slack when asking whether a drawn space starts no earlier than the "
        "glyph before it (pdfium's boxes are floats of the same pen position)",
    )
    fixed_pitch_width_em: float = Field(
        default=0.01,
        ge=0,
        description="em; two glyph boxes whose widths differ by no more than this are cells of a "
        "fixed-pitch font, where a space pdfium guesses from glyphs placed one by one is no word break",
    )
    superscript_size_ratio: float = Field(
        default=0.85,
        gt=0,
        description="share of the base glyph's size; a glyph set smaller than this with a raised "
        "baseline (`superscript_rise_em`) is a superscript, a token of its own (a footnote mark after "
        "a figure: '2,557.2' and '8', never '2,557.28')",
    )
    superscript_rise_em: float = Field(
        default=0.2,
        ge=0,
        description="em of the base size; the baseline rise from which a smaller glyph is a superscript "
        "rather than a small-caps letter on the same baseline",
    )
    loose_box_descent_em: float = Field(
        default=0.2,
        ge=0,
        description="em; where a glyph's baseline sits above the bottom of pdfium's loose box, which spans "
        "the font's descent (about 0.2 em below the baseline) to its ascent",
    )
    same_line_overlap_share: float = Field(
        default=0.5,
        gt=0,
        description="share of the smaller glyph height; two glyphs whose boxes overlap vertically by more "
        "than this are on one baseline (a superscript still overlaps its line by more than half)",
    )
    glyph_overlap_em: float = Field(
        default=0.5,
        ge=0,
        description="em; how far a glyph may start before the previous one ends and still follow it on "
        "the line: italic and kerned glyph boxes overlap by less",
    )
    mark_overlap_em: float = Field(
        default=1.0,
        ge=0,
        description="em; the same for combining signs and Devanagari letters, which sit on the letter "
        "before them (a whole glyph back)",
    )
    shared_glyph_pt: float = Field(
        default=0.5,
        ge=0,
        description="pt; two characters whose boxes match within this on both sides share one glyph "
        "(a ligature 'fi' read as f and i): never a space between them",
    )
    mark_behind_em: float = Field(
        default=0.1,
        ge=0,
        description="em; a combining sign centred this far left of the previous glyph was drawn after "
        "later letters (a chandrabindu placed last) and goes back after the letter it sits on",
    )
    min_font_size_pt: float = Field(
        default=1.0,
        gt=0,
        description="pt; font sizes below this are taken as this when gaps are measured in em: a glyph "
        "of size ~0 (a broken text matrix) would make every gap a word space",
    )
    rotated_run_dx_em: float = Field(
        default=2.0,
        gt=0,
        description="em; a rotated glyph (a margin stamp or an arXiv identifier set sideways) whose left "
        "edge is within this of the previous one's, horizontally, continues its run ...",
    )
    rotated_run_dy_em: float = Field(
        default=3.0,
        gt=0,
        description="em; ... and within this of it vertically: a sideways run advances down the page "
        "by a glyph's advance, so the vertical reach is the longer",
    )

    # --- pdfium characters (`pdfium_chars.page_to_chars`) ---------------------------------------
    sideways_share: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="share of a page's visible characters; over it upright only in another quarter turn, "
        "the page is read in that turn: a landscape table drawn turned on a portrait page",
    )
    sideways_min_chars: int = Field(
        default=20,
        ge=0,
        description="characters; at least this many must be sideways to turn a page, so a few rotated "
        "axis labels never turn it",
    )
    generated_width_pt: float = Field(
        default=1e-3,
        ge=0,
        description="pt; a space or line break narrower than this is one pdfium generated from the glyph "
        "positions (it gives them no width); a glyph the page draws has its advance",
    )
    upright_slope: float = Field(
        default=0.1,
        ge=0,
        description="rise per unit of run; a baseline rising more than this (about 6 degrees) is rotated "
        "text that never joins horizontal lines (a margin stamp, a chart's slanted labels); a page "
        "scanned slightly askew stays upright",
    )
    bold_weight: int = Field(
        default=600,
        ge=0,
        description="font weight (CSS scale); a font at least this heavy is bold: semibold (600) headings "
        "read as bold, medium (500) body text does not",
    )

    # --- page layout (`layout.chars_to_layout`) -------------------------------------------------
    line_number_min_lines: int = Field(
        default=5,
        ge=1,
        description="lines; margin line numbers (transcripts, legal drafts) are stripped only when at "
        "least this many small integers stand left of the text, increasing down the page",
    )
    line_number_max_digits: int = Field(
        default=3,
        ge=1,
        description="digits; a margin line number has at most this many (pages of a transcript number "
        "their lines 1-25 or 1-999, never a year or an amount)",
    )
    line_number_margin_pt: float = Field(
        default=2.0,
        ge=0,
        description="pt; a line number ends at least this far left of the leftmost other text",
    )

    # --- segments -> lines -> blocks (`blocks`) ---------------------------------------------------
    line_overlap_share: float = Field(
        default=0.5,
        gt=0,
        description="share of the smaller height; a segment whose vertical extent overlaps a line's by more "
        "than this joins the line: superscripts and subscripts stay in it, the next line of prose does not",
    )
    min_line_height_pt: float = Field(
        default=0.1,
        gt=0,
        description="pt; a segment's height counts as at least this, so a flat segment (a rule drawn as "
        "text, a zero-height box) still overlaps something",
    )
    overlap_gap_em: float = Field(
        default=0.5,
        ge=0,
        description="em of the body size; lines overlapping by more than this (a superscript line, a "
        "drop cap) are left out of a region's usual leading",
    )
    block_gap_min_em: float = Field(
        default=0.6,
        ge=0,
        description="em of the body size; a vertical gap over this (and over the leading rule below) "
        "starts a new block: paragraphs are set apart by at least about half a line",
    )
    block_gap_leading_ratio: float = Field(
        default=1.6,
        ge=0,
        description="times the region's median gap between lines; a gap over this (plus the slack) starts "
        "a new block, so tightly and loosely leaded prose are both cut at their own paragraph spacing",
    )
    block_gap_slack_em: float = Field(
        default=0.1,
        ge=0,
        description="em of the body size; added to the leading rule, so a region of evenly spaced lines "
        "(median gap ~0) is not cut at every rounding difference",
    )
    size_change_pt: float = Field(
        default=0.8,
        ge=0,
        description="pt; lines whose font sizes differ by more are set in different type (a heading over "
        "its text): a new block, and text beside a column gap in two sizes shows a column (`regions`); "
        "the same face rounds to sizes within a few tenths",
    )
    bold_line_share: float = Field(
        default=0.8,
        ge=0,
        le=1,
        description="share of a line's characters set bold; from it up the line reads as bold: a regular line "
        "with a bold term or two stays regular, a bold heading with a regular footnote mark stays bold",
    )
    full_line_slack_em: float = Field(
        default=0.5,
        ge=0,
        description="em of the body size; a line reaching within this of the region's right edge is full "
        "(set justified): a sentence running across a weight switch fills its lines",
    )
    item_indent_em: float = Field(
        default=0.5,
        ge=0,
        description="em of the body size; a line starting this far left of a list item's text ends the item: "
        "wrapped lines of an item align with its text, the next paragraph starts at the margin",
    )
    short_line_share: float = Field(
        default=0.2,
        ge=0,
        le=1,
        description="share of the region's width; a line ending a sentence this far short of the right edge "
        "ends its paragraph (the last line of a paragraph is short, a justified line is not)",
    )
    label_max_chars: int = Field(
        default=12,
        ge=1,
        description="characters; a hanging label of an index entry is one word this long at most ('10a(iii)', "
        "'4.2*'): exhibit indexes number their entries in a narrow column",
    )
    label_gap_em: float = Field(
        default=0.5,
        ge=0,
        description="em of the body size; a hanging label ends at least this far left of the rest of its line",
    )
    label_align_pt: float = Field(
        default=1.0,
        ge=0,
        description="pt; the lines of one entry beside a hanging label start within this of each other",
    )
    entry_min_words: int = Field(
        default=3,
        ge=1,
        description="words with letters; an entry's first line holds at least this many to be text a label "
        "moves in front of (a label beside figures stays where it is)",
    )

    # --- lines -> reading-order regions (`regions`) ---------------------------------------------
    gutter_em: float = Field(
        default=1.0,
        gt=0,
        description="em of the body size; an empty vertical band at least this wide between text can be "
        "a column gutter: columns are set a few ems apart, word spaces are a fraction of an em",
    )
    min_column_em: float = Field(
        default=6.0,
        ge=0,
        description="em of the body size; text on each side of a gutter spans at least this to be a "
        "column: narrower 'columns' are line numbers or list markers",
    )
    column_gap_min_lines: int = Field(
        default=2,
        ge=1,
        description="lines; a band is a column gap when at least this many lines hold text on both sides "
        "of it (one line's wide justified word gap is none)",
    )
    justified_edge_em: float = Field(
        default=1.0,
        ge=0,
        description="em of the body size; a line whose edges are within this of its group's is a full line "
        "of justified prose, whose one wide word gap is no gutter",
    )
    right_column_share: float = Field(
        default=0.4,
        ge=0,
        le=1,
        description="share of a group's width; a line starting further right than this (and right of the "
        "group's last line by as much) opens a right column beside a heading, not the group's next line",
    )

    # --- figures (`drawings.graphics_to_figure_boxes`, `figures.segments_to_figures`) ------------
    min_figure_side_pt: float = Field(
        default=36.0,
        ge=0,
        description="pt; a figure is at least this wide and high (half an inch): smaller graphics are "
        "icons, bullets and rules",
    )
    max_figure_page_share: float = Field(
        default=0.85,
        ge=0,
        le=1,
        description="share of the page's area; a figure covers at most this: more is a background or a scanned page",
    )
    cluster_gap_pt: float = Field(
        default=3.0,
        ge=0,
        description="pt; images and drawing paths closer than this are one cluster: the tiles of one "
        "picture, the bars and marks of one chart",
    )
    min_drawing_paths: int = Field(
        default=3,
        ge=1,
        description="paths; a cluster of drawing paths without an image is a figure only with at least "
        "this many (one rounded box round a note, an arrow or an underline is not) ...",
    )
    min_drawn_segments: int = Field(
        default=24,
        ge=0,
        description="curved or diagonal segments; ... drawing at least this many of them (a rounded box "
        "has 8-12; a chart's curves and markers far more)",
    )
    max_frame_growth: float = Field(
        default=4.0,
        ge=1,
        description="times the cluster's area; a rectangle enclosing a cluster and at most this large is "
        "its frame or panel (a chart's outer panel with its title and legend), not the page's border",
    )
    ruling_thickness_pt: float = Field(
        default=2.5,
        ge=0,
        description="pt; a straight frame thinner than this is a ruling (an axis, a rule), not a rectangle "
        "that could frame a figure",
    )
    frame_slack_pt: float = Field(
        default=2.0,
        ge=0,
        description="pt; a frame encloses a cluster, and a ruling fits along it, within this (a stroke's "
        "width and rounding)",
    )
    inside_box_slack_pt: float = Field(
        default=1.0,
        ge=0,
        description="pt; a segment whose middle lies within this of a table's or a figure's box is drawn "
        "inside it (its cells or labels), not beside it: box edges and glyph boxes round differently",
    )
    figure_label_max_words: int = Field(
        default=10,
        ge=1,
        description="words; a run of text inside a figure is one of its labels with at most this many "
        "(a chart title or an axis label has 7-9, a line of prose 12 or more) ...",
    )
    figure_max_words: int = Field(
        default=120,
        ge=1,
        description="words; ... and all labels of one figure hold at most this many (a bar chart with ticks, "
        "values, nine category names and a title has ~66); more is body text laid over an image",
    )

    # --- the pdfminer fallback (`pdfminer_fallback`, `parsers.pages`) ----------------------------
    sparse_chars_per_kpt2: float = Field(
        default=1.5,
        ge=0,
        description="characters per 1000 pt^2 (spaces and line breaks included); a page whose pdfium text "
        "is sparser (~730 characters on an A4 page) is worth asking whether pdfium lost text: a page of "
        "prose holds several thousand",
    )
    lost_text_object_ratio: float = Field(
        default=2.0,
        ge=0,
        description="text objects per glyph pdfium read; a page drawing more (plus the slack) lost text "
        "pdfium could not map (a non-embedded CJK font), since each text object draws at least one glyph",
    )
    lost_text_object_slack: int = Field(
        default=5,
        ge=0,
        description="text objects; allowed beyond the ratio, so a page with a few empty text objects and no "
        "glyph (a blank form, a scan's invisible layer) is not re-read",
    )
    pdfminer_richer_ratio: float = Field(
        default=1.5,
        ge=1,
        description="times pdfium's glyph count; pdfminer reading more glyphs than this (plus the slack) "
        "replaces pdfium's reading: clearly richer, not the same text read slightly differently",
    )
    pdfminer_richer_slack: int = Field(
        default=5,
        ge=0,
        description="glyphs; pdfminer must read this many beyond the ratio: on a page where pdfium read "
        "nothing, a handful of stray glyphs is no text layer worth keeping",
    )


DEFAULT_TEXT_LAYER_SETTINGS = TextLayerSettings()
