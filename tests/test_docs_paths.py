"""The docs speak of the product as it is: every repository path, module and relative link that
README.md and docs/*.md name exists.

A path is a word starting with one of the repository's top folders (`parsers/textlayer/chars.py`,
`benchmarks/`); a `:name` after it (`parsers/pdf.py:parse_pdf`) is left out, and a path without
an extension may name a fixture by its stem (`fixtures/crop_manual`: its .pdf and truth). A module
is a dotted name under `parsers`, `ingest` or `storage` (`storage.schema.searched_heading`): its
longest prefix that is a module must exist, and the first name after it must be one that
module's source holds (at most two names after it).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TOP = ("parsers", "ingest", "storage", "tests", "fixtures", "benchmarks", "docs", ".ci")
PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./-]*[\w/])" % "|".join(re.escape(top) for top in TOP))
MODULE = re.compile(r"(?<![\w./-])((?:parsers|ingest|storage)(?:\.[A-Za-z_]\w*)+)")
LINK = re.compile(r"\]\(([^)#\s]+)")
FILE_SUFFIXES = (".py", ".md", ".db", ".toml", ".json", ".jsonl", ".pdf", ".png", ".txt")


def _path_exists(reference: str) -> bool:
    path = ROOT / reference.split(":")[0].rstrip(".")
    if path.exists():
        return True
    return not path.suffix and any(path.parent.glob(path.name + ".*"))


def _module_exists(dotted: str) -> bool:
    parts = dotted.split(".")
    for size in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:size])
        source = base.with_suffix(".py") if base.with_suffix(".py").exists() else base / "__init__.py"
        if source.exists():
            names = parts[size:]
            # a name after the module is one it defines or imports (its source holds the word)
            return len(names) <= 2 and (not names or re.search(rf"\b{names[0]}\b", source.read_text()) is not None)
    return False


def _missing(doc: Path) -> list[str]:
    text = doc.read_text(encoding="utf-8")
    missing = [m for m in PATH.findall(text) if not any(c in m for c in "*<>{}") and not _path_exists(m)]
    missing += [m for m in MODULE.findall(text) if not m.endswith(FILE_SUFFIXES) and not _module_exists(m.rstrip("."))]
    missing += [link for link in LINK.findall(text) if "://" not in link and not (doc.parent / link).exists()]
    return missing


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.name)
def test_every_path_module_and_link_a_doc_names_exists(doc):
    assert _missing(doc) == []


def test_the_check_finds_a_path_that_does_not_exist(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text("See `parsers/chars.py`, `ingest.enrich` and [the schema](nowhere.md).", encoding="utf-8")
    assert _missing(doc) == ["parsers/chars.py", "ingest.enrich", "nowhere.md"]
