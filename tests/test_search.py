"""Search: safe FTS5 queries from free text, bm25 ranking, per-document scope (the retriever of `ingest search` and `ingest eval`)."""

from __future__ import annotations

import pytest

from ingest.contracts.errors import ConfigError
from storage.search import ChunkIndex, question_to_terms, terms_to_match


def test_terms_drop_stopwords_and_punctuation_and_keep_devanagari_words_whole():
    assert question_to_terms("How much medicine should I spray for Whitefly?") == ["medicine", "spray", "whitefly"]
    assert question_to_terms("किसानों को कितना पैसा मिलता है?") == ["किसानों", "पैसा", "मिलता"]
    assert question_to_terms("what is it") == ["what", "is", "it"]  # all stopwords: search them anyway


def test_match_expression_quotes_every_term():
    assert terms_to_match(['say "hi"', "near"]) == '"say ""hi""" OR "near"'


def test_fts5_syntax_in_a_question_is_searched_as_words_not_run_as_syntax():
    with ChunkIndex() as index:
        index.add([("1", "d", "", "Whitefly AND aphids NEAR the field: spray 2 ml")])
        for question in ['whitefly AND "aphids', "NEAR(whitefly aphids)", "spray*", "-whitefly", "field: col:x", "^2"]:
            assert [key for key, _ in index.search(question, limit=5)] == ["1"], question


def test_bm25_ranks_the_chunk_sharing_the_rarer_words_first_and_scope_restricts():
    with ChunkIndex() as index:
        index.add(
            [
                ("a", "manual", "", "General advice on water and soil for every crop."),
                ("b", "manual", "", "Whitefly: spray 2 ml per litre of water."),
                ("c", "notice", "", "Whitefly outbreak reported in the district."),
            ]
        )
        assert [key for key, _ in index.search("whitefly spray water", limit=3)][0] == "b"
        assert [key for key, _ in index.search("whitefly", limit=3, scope="notice")] == ["c"]
        assert index.search("banana", limit=3) == []


def test_devanagari_questions_find_devanagari_chunks_with_either_tokenizer():
    texts = [("hi", "d", "", "पात्र किसानों को प्रति वर्ष ₹6000 की सहायता"), ("mr", "d", "", "शेतकऱ्यांना अनुदान मिळेल")]
    for tokenize in ("porter unicode61 remove_diacritics 2", "unicode61 remove_diacritics 2", "unicode61 categories 'L* N* Co M*' remove_diacritics 2"):
        with ChunkIndex(tokenize) as index:
            index.add(texts)
            assert [key for key, _ in index.search("किसानों को सहायता", limit=5)] == ["hi"], tokenize
            assert [key for key, _ in index.search("अनुदान", limit=5)] == ["mr"], tokenize


def test_an_unknown_tokenizer_is_a_config_error():
    with pytest.raises(ConfigError, match="tokenizer"):
        ChunkIndex("no_such_tokenizer")


def test_the_stored_tokenizer_is_read_from_the_fts5_ddl():
    from storage.evals import ddl_to_fts_tokenize

    assert (
        ddl_to_fts_tokenize(
            "CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content='chunks', "
            "tokenize='unicode61 remove_diacritics 2')"
        )
        == "unicode61 remove_diacritics 2"
    )
    assert (
        ddl_to_fts_tokenize("CREATE VIRTUAL TABLE t USING fts5(text, tokenize = 'unicode61 categories ''L* N*''')")
        == "unicode61 categories 'L* N*'"
    )
    assert (
        ddl_to_fts_tokenize('CREATE VIRTUAL TABLE t USING fts5(text, tokenize="porter unicode61")')
        == "porter unicode61"
    )
    assert ddl_to_fts_tokenize("CREATE VIRTUAL TABLE t USING fts5(text)") == "unicode61"
