"""The code passes the linter and the formatter configured in pyproject.toml ([tool.ruff]), so the
README's test command (and CI) keeps it that way. Fix with `ruff check --fix . && ruff format .`."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def ruff(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *arguments], cwd=ROOT, capture_output=True, text=True)


def test_ruff_finds_nothing_to_fix():
    done = ruff("check", "--output-format", "concise", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_file_is_formatted():
    done = ruff("format", "--check", ".")
    assert done.returncode == 0, done.stdout + done.stderr
