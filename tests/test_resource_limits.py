"""Bombs cannot take the machine: a memory cap per worker and a pixel cap for OCR.

Both PDFs are written at test time: a one-page PDF whose content stream, deflated twice, is a
few KB on disk and 1.5 GB inflated; and an empty page with a 20,000-inch MediaBox, which OCR
would render at gigapixels. Each is a failed item of a run that finishes and stores the good file.
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
import zlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ingest.cli import app

sys.path.insert(0, str(Path(__file__).parent))
from test_pipeline import make_pdf  # noqa: E402

runner = CliRunner()


def write_pdf(path: Path, media_box: str, stream: bytes = b"", filters: str = "") -> Path:
    """A one-page PDF with the given MediaBox and content stream (already encoded for `filters`)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [" + media_box.encode() + b"] /Contents 4 0 R >>",
        b"<< /Length %d %s>>\nstream\n" % (len(stream), filters.encode()) + stream + b"\nendstream",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(out)
    return path


def deflate_bomb(path: Path, inflated_mb: int) -> Path:
    """`inflated_mb` MiB of spaces, deflated twice (/FlateDecode twice): a few KB on disk."""
    inner = zlib.compressobj(9)
    block = b" " * (1 << 20)
    once = b"".join(inner.compress(block) for _ in range(inflated_mb)) + inner.flush()
    return write_pdf(path, "0 0 612 792", zlib.compress(once, 9), "/Filter [/FlateDecode /FlateDecode] ")


def outcomes(db: Path) -> dict[str, tuple[str, str | None, str | None]]:
    with sqlite3.connect(db) as connection:
        rows = connection.execute("select source_path, outcome, stage, message from run_items").fetchall()
    return {Path(path).name: (outcome, stage, message) for path, outcome, stage, message in rows}


def test_a_decompression_bomb_fails_at_the_memory_cap_and_the_run_goes_on(tmp_path):
    folder = tmp_path / "in"
    make_pdf(folder / "good.pdf", "Good manual", ["Whitefly control with neem oil at 5 ml per litre."])
    bomb = deflate_bomb(folder / "bomb.pdf", 1500)
    assert bomb.stat().st_size < 100_000
    config = tmp_path / "ingest.toml"
    config.write_text("workers = 1\nmemory_limit_mb = 1024\n")
    db = tmp_path / "i.db"
    result = runner.invoke(app, ["run", str(folder), "--db", str(db), "-c", str(config), "--ocr", "never", "-q"])
    assert result.exit_code == 1, result.output
    found = outcomes(db)
    assert found["good.pdf"][0] == "new"
    outcome, stage, message = found["bomb.pdf"]
    assert (outcome, stage) == ("failed", "parse") and message.startswith("memory limit exceeded (1024 MiB"), message


def test_the_memory_cap_defaults_to_a_share_of_ram_per_worker():
    from ingest.pipeline.settings import PipelineSettings

    two, four = PipelineSettings(workers=2), PipelineSettings(workers=4)
    assert two.worker_memory_limit_mb >= 2048
    assert four.worker_memory_limit_mb <= two.worker_memory_limit_mb
    assert PipelineSettings(memory_limit_mb=0).worker_memory_limit_mb == 0


def test_a_page_too_large_to_render_is_refused_before_rendering():
    from ingest.contracts.errors import OcrError
    from parsers.ocr.tesseract import MAX_PIXELS, render_dpi

    assert render_dpi(612, 792, 300) == 300
    poster = render_dpi(72 * 100, 72 * 100, 300)  # 100 x 100 inches: lowered to fit
    assert (100 * poster) ** 2 <= MAX_PIXELS
    with pytest.raises(OcrError, match="too large to render"):
        render_dpi(72 * 20_000, 72 * 20_000, 300)


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="Tesseract is not installed (install.sh installs it)")
def test_an_empty_20000_inch_page_is_a_failed_item_not_a_gigapixel_render(tmp_path):
    from parsers.ocr.tesseract import check_ocr_available
    from parsers.settings import OcrSettings

    check_ocr_available(OcrSettings())  # Tesseract is here: a probe that fails is a failure, not a skip
    folder = tmp_path / "in"
    make_pdf(folder / "good.pdf", "Good manual", ["Whitefly control with neem oil at 5 ml per litre."])
    side = str(72 * 20_000)
    write_pdf(folder / "huge.pdf", f"0 0 {side} {side}")
    config = tmp_path / "ingest.toml"
    config.write_text("workers = 1\nmemory_limit_mb = 1024\n")
    db = tmp_path / "i.db"
    result = runner.invoke(app, ["run", str(folder), "--db", str(db), "-c", str(config), "--ocr", "auto", "-q"])
    assert result.exit_code == 1, result.output
    found = outcomes(db)
    assert found["good.pdf"][0] == "new"
    outcome, stage, message = found["huge.pdf"]
    assert outcome == "failed" and "too large to render" in message, (stage, message)
