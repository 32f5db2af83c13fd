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


DEFAULT_TABLE_SETTINGS = TableSettings()
