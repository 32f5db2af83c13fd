"""Marathi OCR: a scanned-looking Marathi page is built here (no Marathi scan among the
fixtures yet), read with `mar`, and checked against the text it was made from."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from ingest.contracts.elements import ElementType
from ingest.evaluation.scoring import word_recall
from parsers.ocr.tesseract import ocr_pages
from parsers.settings import OcrSettings

pytestmark = pytest.mark.slow

NOTO = Path("/usr/share/fonts/truetype/noto")
TITLE = "प्रधानमंत्री किसान सन्मान निधी योजना"
HEADING = "अर्ज कसा करावा"
PARAGRAPHS = [
    "या योजनेअंतर्गत पात्र शेतकरी कुटुंबांना दरवर्षी सहा हजार रुपये तीन समान हप्त्यांमध्ये थेट बँक "
    "खात्यात जमा केले जातात. लाभ मिळवण्यासाठी आधार क्रमांक बँक खात्याशी जोडलेला असणे आवश्यक आहे.",
    "शेतकऱ्यांनी जवळच्या सामाईक सेवा केंद्रात किंवा कृषी सहाय्यकाकडे अर्ज करावा. अर्जासोबत सातबारा "
    "उतारा, आधार कार्ड आणि बँक पासबुकची प्रत जोडावी. अधिक माहितीसाठी टोल फ्री क्रमांक १५५२६१ वर संपर्क साधा।",
]


@pytest.fixture(scope="module")
def marathi_scan(tmp_path_factory) -> Path:
    fpdf = pytest.importorskip("fpdf")
    pytest.importorskip("uharfbuzz")
    if not (NOTO / "NotoSansDevanagari-Regular.ttf").exists():
        pytest.skip("fonts-noto-core (Noto Sans Devanagari) is not installed")
    import pypdfium2

    source = fpdf.FPDF(format="A4")
    source.add_page()
    source.add_font("deva", "", str(NOTO / "NotoSansDevanagari-Regular.ttf"))
    source.add_font("deva", "B", str(NOTO / "NotoSansDevanagari-Bold.ttf"))
    source.set_text_shaping(True)
    for text, style, size, height in (
        (TITLE, "B", 20, 10),
        (PARAGRAPHS[0], "", 10.5, 5.5),
        (HEADING, "B", 16, 8),
        (PARAGRAPHS[1], "", 10.5, 5.5),
    ):
        source.set_font("deva", style, size)
        source.multi_cell(0, height, text, new_x="LMARGIN", new_y="NEXT")
        source.ln(3)
    # rasterise like a scanner: 200 dpi grey JPEG, then an image-only PDF
    page = pypdfium2.PdfDocument(bytes(source.output()))[0]
    image = page.render(scale=200 / 72, grayscale=True).to_pil().convert("L")
    jpeg = io.BytesIO()
    image.save(jpeg, format="JPEG", quality=60)
    scan = fpdf.FPDF(format="A4")
    scan.add_page()
    scan.image(jpeg, x=0, y=0, w=210, h=297)
    path = tmp_path_factory.mktemp("mr") / "scanned_mr.pdf"
    scan.output(str(path))
    return path


def test_marathi_scan_word_recall_and_structure(marathi_scan):
    result = ocr_pages(marathi_scan, [1], OcrSettings(languages="mar", dpi=200))[1]
    assert result.error is None
    text = "\n".join(e.text for e in result.elements)
    recall = word_recall("\n".join([TITLE, HEADING, *PARAGRAPHS]), text)
    assert recall >= 0.85, f"word recall {recall:.3f}"
    titles = [e.text for e in result.elements if e.type is ElementType.title]
    assert TITLE in titles and HEADING in titles
    assert text.count("।") >= 1  # the danda survives
