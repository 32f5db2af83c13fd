"""Every Python example in README.md and docs/*.md runs as written.

A block fenced as `python` is one example; output samples and shell commands are fenced as
`text`, `console`, `sql`, ... and are not run. Each example runs in a fresh namespace (so it
must hold its own imports) named `__main__`, as a script would, so the bodies the examples
guard with `if __name__ == "__main__":` (calls that start worker processes) run too. The
working directory is one folder prepared once per session with the names the examples use:

    fixtures/     a copy of the repository's fixture PDFs
    ingest.toml   [parse.ocr] languages = "eng+hin+mar"
    ingest.db     those fixtures, ingested with that config through `ingest.api.run`

Examples run in file order, so one that writes (e.g. `reprocess`) must leave the database as
any later example expects: every document stored and unchanged.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
CONFIG = '[parse.ocr]\nlanguages = "eng+hin+mar"\n'


def python_examples() -> list[tuple[str, int, str]]:
    """(file relative to the repository, 1-based block number in that file, code) for every example."""
    examples = []
    for path in DOC_FILES:
        blocks = FENCE.findall(path.read_text(encoding="utf-8"))
        examples += [(path.relative_to(ROOT).as_posix(), number, code) for number, code in enumerate(blocks, 1)]
    return examples


EXAMPLES = python_examples()


def test_the_docs_have_python_examples():
    files = {file for file, _, _ in EXAMPLES}
    assert EXAMPLES, "no ```python block found in README.md or docs/*.md"
    assert "README.md" in files


@pytest.fixture(scope="session")
def docs_workdir(tmp_path_factory) -> Path:
    """A folder with fixtures/, ingest.toml and ingest.db (the fixtures ingested with that config)."""
    from ingest.api import run

    workdir = tmp_path_factory.mktemp("docs-examples")
    (workdir / "fixtures").mkdir()
    for pdf in sorted((ROOT / "fixtures").glob("*.pdf")):
        shutil.copy2(pdf, workdir / "fixtures" / pdf.name)
    (workdir / "ingest.toml").write_text(CONFIG, encoding="utf-8")
    summary = run([workdir / "fixtures"], db=str(workdir / "ingest.db"), config=workdir / "ingest.toml")
    assert not summary.failed, [(item.path, item.message) for item in summary.failed]
    assert summary.counts.get("new") == len(list((workdir / "fixtures").glob("*.pdf")))
    return workdir


@pytest.mark.slow
@pytest.mark.parametrize("file, number, code", EXAMPLES, ids=[f"{file}#{number}" for file, number, _ in EXAMPLES])
def test_python_example_runs_as_written(file, number, code, docs_workdir, monkeypatch):
    monkeypatch.chdir(docs_workdir)
    namespace = {"__name__": "__main__"}
    exec(compile(code, f"{file} (python block {number})", "exec"), namespace)
