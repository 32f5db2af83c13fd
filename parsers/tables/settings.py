"""Settings of table detection: ruled grids, unruled runs of aligned cells, statements, header
rows. Every tolerance this stage decides with is a field here, named, with its unit and the
reason for its default. Validated when built, unknown keys rejected; a user overrides any of
them in the config file (`[parse.tables]`), and they hash into the pipeline version, so a
changed value reprocesses the documents it affects."""

from __future__ import annotations

from pydantic import Field

from ingest.contracts.settings import StageSettings


class TableSettings(StageSettings):
    """Tolerances of table detection: ruled grids, unruled runs of aligned cells, statements,
    header rows. Each field: unit, default and why (the kind of document and the typography
    it is set for)."""

    # Unruled tables: runs of lines whose words fall into aligned columns (`unruled`).
    unruled_min_rows: int = Field(
        default=3,
        ge=2,
        description="lines; a table drawn without rulings has at least this many rows: two lines that happen "
        "to align (a heading and a date, a signature block) are no table, while the smallest tables set "
        "without rules (a fee list, a two-year comparison) have a header and two rows",
    )
    run_line_gap_em: float = Field(
        default=1.5,
        gt=0,
        description="em (body font size); lines set closer than this (bottom to top) can be one table's rows: "
        "tables are set at body leading, and a blank line of 1.5 em or more parts one table, or a table and "
        "the text after it",
    )
    spanning_header_slack_pt: float = Field(
        default=2.0,
        ge=0,
        description="points; a one-cell line above a run may start this far left of where the run's value columns "
        "start and still be a group header spanning them ('Fiscal Year Ended'): centred headers jitter by a "
        "point or two, while a row label starts a column's width further left",
    )
    multi_cell_share: float = Field(
        default=0.6,
        gt=0,
        le=1,
        description="share (0-1) of a run's lines that hold two or more cells; under it the run is text with a "
        "few aligned words (a chart's axis labels line up too, but few of their lines hold two cells)",
    )
    span_tolerance: float = Field(
        default=0.15,
        ge=0,
        lt=1,
        description="share (0-1) of the multi-cell rows allowed to cross a column gap: a spanning header "
        "('52 Weeks Ended') or one long label crosses it, but more rows doing so means there is no gap",
    )
    span_tolerance_min_rows: int = Field(
        default=4,
        ge=2,
        description="multi-cell rows; from this many on, `span_tolerance` of them may cross a gap (at least "
        "one); with fewer rows every row must leave the gap empty, since one crossing is already a quarter",
    )
    min_gap_em: float = Field(
        default=0.5,
        gt=0,
        description="em; a column gap is at least this wide: words of one cell are a space apart (about "
        "0.25-0.3 em), and columns of a table are set wider apart than that",
    )
    max_median_cell_chars: int = Field(
        default=30,
        gt=0,
        description="characters; a table's median cell holds at most this many: labels and figures are short, "
        "while lines of prose, even two narrow columns of them side by side, hold more",
    )
    title_size_ratio: float = Field(
        default=1.1,
        gt=1,
        description="ratio of font sizes; a line set this much larger than the line below it is a title, not a "
        "table's first row (a statement's title with the company's name at the right holds two cells)",
    )
    header_bold_share: float = Field(
        default=0.8,
        gt=0,
        le=1,
        description="share (0-1) of a line's characters in a bold font for it to be a bold line: a header row "
        "set in bold over a body that is not is a header row, whatever its cells hold",
    )
    wrapped_label_pitch: float = Field(
        default=0.85,
        gt=0,
        le=1,
        description="ratio to the run's median line pitch; a label-only line set closer than this to the next "
        "line is the first line of a row label wrapped over two lines, not a row of its own (rows are "
        "spaced evenly, a wrapped label at the font's own leading)",
    )
    indent_level_em: float = Field(
        default=0.4,
        gt=0,
        description="em; row labels whose left edges lie within this of each other are one indent level: "
        "statements indent a total or a sub-item by about 1 em, and the same level jitters by a fraction "
        "of a point",
    )
    contents_entry_share: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="share (0-1) of a run's lines that are contents entries (a dot leader, then a page number) "
        "for the run to be a table of contents, which the structure stage reads, rather than a table",
    )
    # Statements: the tests a candidate grid of figures passes beyond its alignment (`statements`).
    max_column_median_chars: int = Field(
        default=45,
        gt=0,
        description="characters; every column's median cell holds at most this many: a column of sentences "
        "beside a column of numbers is prose with figures, not a table",
    )
    max_label_median_chars: int = Field(
        default=60,
        gt=0,
        description="characters; the row labels of a financial statement may reach this median when the rows "
        "beside them are figures ('Unrealized gains / losses on available-for-sale securities')",
    )
    min_complete_rows: int = Field(
        default=3,
        ge=1,
        description="rows; a statement proves its columns with at least this many rows holding a label and a "
        "figure (or a nil dash) in every value column",
    )
    complete_row_share: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="share (0-1) of the multi-cell rows that must be complete for a statement: a statement "
        "prints a figure for every period on every line, while a bar chart's values scatter over its columns",
    )
    min_fill_share: float = Field(
        default=0.6,
        gt=0,
        le=1,
        description="share (0-1) of the columns the multi-cell rows of a table fill on average: a chance "
        "alignment of words, or a chart's scattered labels, fill few of the columns they make",
    )
    sparse_fill_share: float = Field(
        default=0.4,
        gt=0,
        le=1,
        description="share (0-1) asked instead of `min_fill_share` when rows of amounts across every column prove "
        "the columns: a statement of changes in equity prints each movement only in the columns it moves, "
        "so its rows fill about half of its 7-10 columns",
    )
    min_full_amount_rows: int = Field(
        default=2,
        ge=1,
        description="rows holding an amount in every column that prove a sparse table's columns (the balance "
        "rows of a statement of changes in equity)",
    )
    # Header rows (`grid.rows_to_header_count`, `headers.stub_header_count`).
    max_header_cell_chars: int = Field(
        default=60,
        gt=0,
        description="characters; a header row's cells hold at most this many: column names are short, while a "
        "first row of sentences is body text",
    )
    max_stub_header_rows: int = Field(
        default=8,
        ge=1,
        description="rows; at most this many leading rows with an empty stub are a stacked header (equity plan "
        "tables stack a column name over up to 8 lines: 'Number of' / 'securities to be' / 'issued upon' ...)",
    )
    stub_label_share: float = Field(
        default=0.8,
        gt=0,
        le=1,
        description="share (0-1) of the body rows below a stub-empty header that hold a label: the stub column "
        "is blank exactly where the columns are named, and filled below",
    )
    # Ruled tables: pdfium drawing facts and the grids pdfplumber's lines strategy makes (`ruled`, `cells`).
    ruling_thickness_pt: float = Field(
        default=2.5,
        gt=0,
        description="points; a path thinner than this in one direction is a ruling: table rules are hairlines "
        "of 0.25-1 pt, and filled bars used as rules stay under 2.5 pt",
    )
    min_ruling_length_pt: float = Field(
        default=5.0,
        gt=0,
        description="points; a ruling or rectangle is longer than this: shorter strokes are marks (a bullet, "
        "an underline under one character), no table's rule",
    )
    min_mark_size_pt: float = Field(
        default=0.5,
        gt=0,
        description="points; a small path drawn larger than this both ways is a mark (a dot, an arrow head, a "
        "glyph drawn as a path), a figure candidate",
    )
    axis_slope: float = Field(
        default=0.01,
        gt=0,
        description="ratio of the short to the long side; a straight piece of path under it is axis-aligned, a "
        "rule (a rule drawn 0.5 pt off over 50 pt is still horizontal; a chart's line is not)",
    )
    curved_path_share: float = Field(
        default=0.2,
        gt=0,
        le=1,
        description="share (0-1) of a multi-segment path's pieces that are curved or diagonal for it to count no "
        "rulings: a map or a chart line, not a grid drawn as one path",
    )
    min_horizontal_rulings: int = Field(
        default=3,
        ge=1,
        description="rulings; a page that may hold a ruled table draws at least this many horizontal ones (a "
        "top rule, a header rule and a bottom rule)",
    )
    min_vertical_rulings: int = Field(
        default=2,
        ge=1,
        description="rulings; a page that may hold a ruled table draws at least this many vertical ones (the "
        "two sides, or one column rule and a side)",
    )
    min_rectangles: int = Field(
        default=3,
        ge=1,
        description="rectangles; from this many on, rectangles count as rulings (two sides each way): one box "
        "round a note is no table, a grid of filled cells is",
    )
    min_filled_cells: int = Field(
        default=3,
        ge=1,
        description="cells; a ruled grid holding text in fewer is a frame or a form field, not a table",
    )
    cell_overhang_pt: float = Field(
        default=2.0,
        ge=0,
        description="points; a text run may overhang its grid column by this much and still belong to it (glyph "
        "boxes reach past the rule a producer drew at the text's edge)",
    )
    line_overlap_share: float = Field(
        default=0.3,
        gt=0,
        le=1,
        description="share (0-1) of the shorter line's height two text lines of one grid row must overlap to be "
        "one line of the table (baselines of one row differ by a point or so; two rows by a whole line)",
    )
    cut_gap_em: float = Field(
        default=0.15,
        gt=0,
        description="em; two glyphs closer than this, neither a space, are one word: a cell border between them "
        "cuts a word, which a table's rules never do",
    )
    drawing_cut_words: int = Field(
        default=2,
        ge=1,
        description="words; a grid whose borders cut this many is a chart's gridlines or a legend's boxes, not a "
        "table (table text stays inside its cells)",
    )
    drawing_fill_share: float = Field(
        default=0.2,
        gt=0,
        le=1,
        description="share (0-1) of a grid's cells holding text; under it the grid is a plot's gridlines, where a "
        "table fills most of its cells",
    )
    drawing_cut_fill_share: float = Field(
        default=0.3,
        gt=0,
        le=1,
        description="share (0-1) of a grid's cells holding text under which one cut word already makes it a "
        "drawing (a chart's bars cut a label, and most of its cells are empty)",
    )
    hidden_column_lines: int = Field(
        default=2,
        ge=1,
        description="lines; a grid cell with two or more numbers standing apart on this many of its lines holds "
        "a table of figures the grid does not draw (boxes filled behind a few cells)",
    )
    # Gutters: unruled tables never cross the gutter of a two-column page (`gutters`).
    gutter_em: float = Field(
        default=2.0,
        gt=0,
        description="em; a gutter between the text columns of a page is at least this wide: column gutters are "
        "set at 1.5-3 em, wider than the gaps inside a line",
    )
    gutter_side_lines: int = Field(
        default=3,
        ge=1,
        description="lines; a gutter has prose beside it, outside the table, on at least this many lines on each "
        "side: a page of two text columns, not a table's own column gap (which the text above and below "
        "the table crosses)",
    )
    # Prose columns side by side are no table (`prose`).
    prose_columns_min: int = Field(
        default=2,
        ge=2,
        description="columns; a grid with this many columns that read as wrapped prose is text set in columns, "
        "not a table: a table wraps at most one column (an exhibit index's descriptions beside their "
        "numbers), the other columns holding what the wrapped text belongs to",
    )
    prose_min_lines: int = Field(
        default=3,
        ge=2,
        description="filled cells; a column reads as prose only over at least this many lines (two lines give "
        "no evidence of how text runs down a column)",
    )
    prose_line_words: int = Field(
        default=3,
        ge=1,
        description="words; a prose column's median line holds at least this many: a narrow text column still "
        "sets 4-8 words a line, while a column of labels or figures holds one or two",
    )
    prose_line_share: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="share (0-1) of a column's filled cells that end a sentence or run on into the cell below "
        "(a lower-case word, the year of a date cut by the line break) for the column to be prose: each line "
        "of wrapped text does one or the other, while a table's labels end with their row",
    )
    prose_lowercase_share: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="share (0-1) of a column's cased words that begin in lower case for it to be running text: "
        "prose is set in sentence case (English runs about 70-80 % lower-case words), while column heads "
        "stacked over lines, names and labels are in title case or capitals",
    )
    prose_beside_share: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="share (0-1) of a prose column's wrapped lines that sit beside a new line of another column "
        "(a bullet, the next one-line item) for the grid to be text side by side: a table that wraps a cell "
        "leaves the row's other cells blank on the wrapped line, or wraps them too",
    )


DEFAULT_TABLE_SETTINGS = TableSettings()
