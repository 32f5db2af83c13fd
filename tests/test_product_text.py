"""Product text speaks of the product: no issue numbers, work-period numbers or branch names.

History lives in CHANGELOG.md and the commit log. The pattern catches "issue 22", "Issue #4",
"session 28", a branch name such as "s27-joins" or "issue-tables"; the folders below are checked
(the chunker, the parser, evaluation and benchmarks keep their own check).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HISTORY = re.compile(r"\b(?:[Ii]ssue #?\d+|[Ss]ession \d+|s\d\d-[a-z]+|issue-[a-z]+)\b")
CHECKED = [
    ROOT / "README.md",
    ROOT / "install.sh",
    ROOT / "pyproject.toml",
    ROOT / ".ci" / "run",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "tests").glob("*.py")),
    *sorted((ROOT / "storage").glob("*.py")),
    *sorted((ROOT / "ingest" / "cli").glob("*.py")),
    *sorted((ROOT / "ingest" / "pipeline").glob("*.py")),
    *sorted((ROOT / "ingest" / "contracts").glob("*.py")),
]
#: Pages still being rewritten by their owners; each leaves this list when it is clean.
NOT_YET = {"docs/search.md", "docs/chunking.md", "docs/evaluation.md", "docs/integrations.md"}


@pytest.mark.parametrize(
    "path",
    [p for p in CHECKED if p.relative_to(ROOT).as_posix() not in NOT_YET],
    ids=lambda p: p.relative_to(ROOT).as_posix(),
)
def test_no_issue_session_or_branch_names(path):
    text = path.read_text(encoding="utf-8")
    if path.name == Path(__file__).name:
        text = text.split('"""', 2)[2]  # this test's own docstring shows the pattern
    found = [(text.count("\n", 0, m.start()) + 1, m.group()) for m in HISTORY.finditer(text)]
    assert found == [], f"{path.relative_to(ROOT)}: (line, text) {found}"
