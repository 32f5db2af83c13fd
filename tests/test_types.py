"""The type checker over the packages whose types are clean: the shared contracts and storage.

`[tool.mypy]` in pyproject.toml names them; a type error there fails this test the way a lint
error fails tests/test_style.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_mypy_finds_no_type_error_in_contracts_and_storage(monkeypatch):
    api = pytest.importorskip("mypy.api", reason="mypy is a dev dependency: ./install.sh --dev")
    monkeypatch.chdir(ROOT)
    report, errors, status = api.run(["--config-file", str(ROOT / "pyproject.toml")])
    assert status == 0, report + errors
