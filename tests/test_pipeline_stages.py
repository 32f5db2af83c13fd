"""The pipeline's small pure stages: settings loading, discovery, metadata rules, language."""

from __future__ import annotations

import json

import pytest

from ingest.contracts.elements import Document
from ingest.contracts.errors import ConfigError
from ingest.pipeline.discover import find_pdfs
from ingest.pipeline.enrich import EnrichError, detect_language, document_metadata, rule_matches, rules_hash
from ingest.pipeline.settings import EnrichSettings, PathRule, PipelineSettings, load_settings


def test_settings_from_toml_with_overrides(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text('workers = 3\n[parse.ocr]\nmode = "never"\nlanguages = "eng"\n[chunk]\nchild_max_tokens = 200\n')
    settings = load_settings(config, {"parse": {"ocr": {"languages": "eng+hin"}}, "timeout": 5})
    assert settings.workers == 3 and settings.timeout == 5
    assert settings.parse.ocr.mode == "never" and settings.parse.ocr.languages == "eng+hin"
    assert settings.chunk.child_max_tokens == 200 and settings.chunk.overlap_tokens == 50


def test_settings_from_json(tmp_path):
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"enrich": {"rules": [{"pattern": "a/*", "metadata": {"k": 1}}]}}))
    assert load_settings(config).enrich.rules == [PathRule(pattern="a/*", metadata={"k": 1})]


@pytest.mark.parametrize(
    "text, where",
    [
        ("[chunk]\nchild_max_tokenz = 1\n", "chunk.child_max_tokenz"),
        ('[parse.ocr]\nmode = "sometimes"\n', "parse.ocr.mode"),
        ("workers = -1\n", "workers"),
        ('[[enrich.rules]]\npattern = "x"\n', "enrich.rules.0.metadata"),
        ("[chunk]\nchild_max_tokens = 20\noverlap_tokens = 30\n", "overlap_tokens"),
    ],
)
def test_invalid_settings_name_the_key(tmp_path, text, where):
    config = tmp_path / "c.toml"
    config.write_text(text)
    with pytest.raises(ConfigError, match=where.replace(".", r"\.")):
        load_settings(config)


def test_broken_config_file_is_a_config_error(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text("workers = = 2")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(config)
    with pytest.raises(ConfigError, match="cannot read"):
        load_settings(tmp_path / "missing.toml")


def test_settings_hash_ignores_workers_and_timeout_but_not_chunking():
    base = PipelineSettings()
    assert base.settings_hash() == PipelineSettings(workers=7, timeout=3).settings_hash()
    assert base.settings_hash() != PipelineSettings(chunk={"child_max_tokens": 200}).settings_hash()


def test_find_pdfs(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.pdf").write_bytes(b"%PDF")
    (tmp_path / "a" / "Y.PDF").write_bytes(b"%PDF")
    (tmp_path / "a" / "notes.txt").write_text("x")
    (tmp_path / "named.bin").write_bytes(b"%PDF")
    found = find_pdfs([tmp_path / "a", tmp_path / "named.bin", tmp_path / "a" / "x.pdf"])
    # any-case .pdf under folders, a named file whatever its suffix, no duplicates, no .txt
    assert sorted(path.rsplit("/", 1)[1] for path in found) == ["Y.PDF", "named.bin", "x.pdf"]
    assert found == sorted(found) and all(path.startswith("/") for path in found)
    with pytest.raises(ConfigError, match="does not exist"):
        find_pdfs([tmp_path / "nope"])


@pytest.mark.parametrize(
    "pattern, path, matches",
    [
        ("schemes/*", "/data/pdfs/schemes/a.pdf", True),
        ("schemes/*", "/data/pdfs/schemes/2024/a.pdf", True),
        ("schemes/*", "/data/pdfs/old-schemes/a.pdf", False),
        ("/data/pdfs/*", "/data/pdfs/x.pdf", True),
        ("/data/pdfs/*", "/other/data/pdfs/x.pdf", False),
        ("*.pdf", "/x/y.pdf", True),
        ("*notice*", "/x/scheme_notice_hi.pdf", True),
    ],
)
def test_rule_patterns(pattern, path, matches):
    assert rule_matches(PathRule(pattern=pattern, metadata={}), path) is matches


def test_metadata_precedence(tmp_path):
    pdf = tmp_path / "schemes" / "a.pdf"
    pdf.parent.mkdir()
    pdf.write_bytes(b"%PDF")
    (tmp_path / "schemes" / "a.pdf.meta.json").write_text(json.dumps({"doc_type": "notice", "title": "From sidecar"}))
    settings = EnrichSettings(rules=[PathRule(pattern="schemes/*", metadata={"doc_type": "scheme", "dept": "agri"})])
    document = Document(
        source_path=str(pdf),
        content_sha256="",
        size_bytes=4,
        page_count=0,
        metadata={
            "pdf": {
                "Title": "From info",
                "Author": "A. Person",  # dates as the parser gives them
                "CreationDate": "2023-07-21T16:22:25-07:00",
            },
            "outline_entries": 3,
        },
    )
    assert document_metadata(document, settings) == {
        "title": "From sidecar",
        "pdf_title": "From info",  # kept, but never the display title by itself
        "author": "A. Person",
        "created": "2023-07-21T16:22:25-07:00",
        "outline_entries": 3,
        "file_name": "a.pdf",
        "doc_type": "notice",
        "dept": "agri",
    }


def test_rules_hash_follows_sidecar_and_matching_rules(tmp_path):
    pdf = str(tmp_path / "a.pdf")
    plain = EnrichSettings()
    ruled = EnrichSettings(rules=[PathRule(pattern="*.pdf", metadata={"k": 1})])
    other = EnrichSettings(rules=[PathRule(pattern="*.docx", metadata={"k": 1})])
    assert rules_hash(pdf, plain) != rules_hash(pdf, ruled)
    assert rules_hash(pdf, plain) == rules_hash(pdf, other)  # a rule that does not match changes nothing
    before = rules_hash(pdf, plain)
    (tmp_path / "a.pdf.meta.json").write_text("{}")
    assert rules_hash(pdf, plain) != before


def test_bad_sidecar_raises_enrich_error(tmp_path):
    pdf = tmp_path / "a.pdf"
    (tmp_path / "a.pdf.meta.json").write_text("[1, 2]")
    document = Document(source_path=str(pdf), content_sha256="", size_bytes=0, page_count=0)
    with pytest.raises(EnrichError, match="JSON object"):
        document_metadata(document, EnrichSettings())


@pytest.mark.parametrize(
    "text, language",
    [
        ("Whitefly is controlled by spraying neem oil at dusk in the evening.", "en"),
        ("सफेद मक्खी के नियंत्रण के लिए शाम को नीम के तेल का छिड़काव करें और खेत की निगरानी करें।", "hi"),
        ("पांढऱ्या माशीच्या नियंत्रणासाठी संध्याकाळी निंबोळी तेलाची फवारणी करावी आणि शेताची पाहणी करावी.", "mr"),
        ("Tableau 1", None),
    ],
)
def test_language_detection(text, language):
    assert detect_language(text) == language


def test_unknown_language_code_is_a_config_error():
    from ingest.pipeline.enrich import check_languages

    with pytest.raises(ConfigError, match="xx"):
        check_languages(EnrichSettings(languages=["en", "xx"]))


def test_language_codes_are_checked_against_the_installed_model_without_loading_it():
    """`check_languages` reads the constant `MODEL_LANGUAGES`; it must be the model's own list."""
    from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

    from ingest.pipeline.enrich import MODEL_LANGUAGES

    model = LanguageIdentifier.from_model_file(MODEL_DIR / MODEL_FILE)
    assert MODEL_LANGUAGES == tuple(model.nb_classes)


def test_language_is_detected_once_per_section_and_children_inherit_it():
    from ingest.contracts.chunks import Chunk
    from ingest.pipeline.enrich import chunks_with_language

    english = "The whitefly is controlled with neem oil sprayed at dusk every week."
    hindi = "सफेद मक्खी को नीम के तेल से नियंत्रित किया जाता है जिसे हर सप्ताह शाम को छिड़का जाता है।"

    def chunk(index, body, kind="child", parent=0):
        return Chunk(
            kind=kind,
            index=index,
            parent=parent,
            text=body,
            body=body,
            heading_path=[],
            page_start=1,
            page_end=1,
            char_start=0,
            char_end=len(body),
            token_count=1,
        )

    chunks = [
        chunk(0, english + " " + english, kind="parent", parent=None),
        chunk(1, "Neem oil, whitefly, dusk, weekly spraying schedule"),  # too ambiguous alone: inherits
        chunk(2, hindi),  # another script: detected on its own
        chunk(3, "Short."),  # too few letters: None, as before
        chunk(4, hindi, kind="parent", parent=None),
    ]
    languages = [c.language for c in chunks_with_language(chunks, EnrichSettings())]
    assert languages == ["en", "en", "hi", None, "hi"]
