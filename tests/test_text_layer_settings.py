"""The text layer's tolerances are settings a user can read and override: each field of
`TextLayerSettings` states its unit and its reason, an override in the parse settings reaches
the pass that decides with it, and an unknown key is refused."""

from __future__ import annotations

import pydantic
import pytest
from conftest import CORPUS

from ingest.contracts.elements import DropReason
from parsers.settings import ParseSettings
from parsers.textlayer.chars import Char, chars_to_segments
from parsers.textlayer.settings import TextLayerSettings

#: What a description may open with: the unit the field is counted in.
UNITS = ("em", "pt", "share", "times", "characters", "lines", "digits", "words", "paths", "glyphs", "text objects")
UNITS += ("segments", "font weight", "rise")


@pytest.mark.parametrize("name", sorted(TextLayerSettings.model_fields))
def test_every_text_layer_setting_states_its_unit_and_why(name):
    description = TextLayerSettings.model_fields[name].description or ""
    unit, _, reason = description.partition(";")
    assert any(word in unit for word in UNITS), description
    assert len(reason.split()) >= 8, f"{name}: the reason for the default is missing"


def _chars(text: str, x: float, gap_em: float, size: float = 10.0) -> list[Char]:
    """Glyphs 5 pt wide at `x`, each `gap_em` after the previous one (no drawn spaces)."""
    out, left = [], x
    for c in text:
        out.append(Char(c, left, 100, left + 5, 100 + size, size, False, "F", False, False))
        left += 5 + gap_em * size
    return out


def test_an_overridden_word_gap_reaches_the_segmenter():
    chars = _chars("ab", 10, 0.15)  # 0.15 em apart: a letter gap under the 0.18 em fallback
    assert [s.text for s in chars_to_segments(chars)] == ["ab"]
    tight = TextLayerSettings(space_gap_em=0.12)
    assert [s.text for s in chars_to_segments(chars, settings=tight)] == ["a b"]


def test_an_unknown_text_layer_key_is_refused():
    with pytest.raises(pydantic.ValidationError):
        ParseSettings.resolve({"text_layer": {"space_gap": 0.2}})


@pytest.mark.slow
def test_parse_settings_carry_the_text_layer_settings_to_the_page():
    """A transcript's margin line numbers are stripped (and recorded) by default; asking for
    more numbered lines than the page has keeps them in the text."""
    from parsers import parse_pdf

    path = CORPUS / "scotus-transcript-p1.pdf"
    if not path.exists():
        pytest.skip(f"{path} not present")
    default = parse_pdf(path, {"ocr": {"mode": "never"}})
    assert [d.reason for d in default.pages[0].dropped] == [DropReason.line_number]
    kept = parse_pdf(path, {"ocr": {"mode": "never"}, "text_layer": {"line_number_min_lines": 1000}})
    assert kept.pages[0].dropped == [] and kept.pages[0].lost_chars == 0
