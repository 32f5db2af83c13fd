"""Display titles: never junk PDF info titles; the info Title kept as `pdf_title`."""

from __future__ import annotations

import pytest
from conftest import BENCH, CORPUS

from parsers.pdf_info import sensible_info_title


@pytest.mark.parametrize(
    "junk",
    ["Microsoft Word - SPECIAL BOARD AGENDA 040616.doc", "10811.exe", "905_Precinct_NoOU", "PowerPoint Presentation"],
)
def test_junk_info_titles_are_not_sensible(junk):
    assert sensible_info_title({"Title": junk}) is None


def test_a_cjk_title_without_spaces_is_sensible():
    assert sensible_info_title({"Title": "菲达环保：关于公司2015年年度报告"}) == "菲达环保：关于公司2015年年度报告"


@pytest.mark.shared
@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "junk"),
    [
        (CORPUS / "cupertino_usd_4-6-16.pdf", "Microsoft Word - SPECIAL BOARD AGENDA 040616.doc"),
        (CORPUS / "scotus-transcript-p1.pdf", "10811.exe"),
        (CORPUS / "la-precinct-bulletin-2014-p1.pdf", "905_Precinct_NoOU"),
        (BENCH / "docling-gt" / "right_to_left_02.pdf", "PowerPoint Presentation"),
    ],
    ids=lambda v: getattr(v, "name", "junk"),
)
def test_the_display_title_never_comes_from_junk_metadata(path, junk):
    from ingest.pipeline.enrich import document_metadata, document_title
    from ingest.pipeline.settings import EnrichSettings
    from parsers import parse_pdf

    document = parse_pdf(path, {"ocr": {"mode": "never"}})
    metadata = document_metadata(document, EnrichSettings())
    assert document_title(document, metadata) != junk
    assert metadata["pdf_title"] == junk and "title" not in metadata


@pytest.mark.shared
@pytest.mark.slow
def test_cupertino_title_is_the_agenda_heading():
    from ingest.pipeline.enrich import document_metadata, document_title
    from ingest.pipeline.settings import EnrichSettings
    from parsers import parse_pdf

    document = parse_pdf(CORPUS / "cupertino_usd_4-6-16.pdf", {"ocr": {"mode": "never"}})
    assert document_title(document, document_metadata(document, EnrichSettings())) == (
        "Board of Education Special Meeting AGENDA"
    )
