"""SIGTERM and SIGHUP end a run the way Ctrl-C does: one line on stderr, exit code 128+N, the
writer lock released and the run closed as `interrupted` (a service manager sends SIGTERM on
every stop; a closed terminal sends SIGHUP)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest
from test_pipeline import make_pdf

ROOT = Path(__file__).resolve().parent.parent


def items_written(db: Path) -> int:
    try:
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as connection:
            return connection.execute("select count(*) from run_items").fetchone()[0]
    except sqlite3.Error:
        return 0


@pytest.mark.slow
@pytest.mark.parametrize("number, to_group", [(signal.SIGTERM, True), (signal.SIGHUP, False)])
def test_sigterm_and_sighup_release_the_lock_and_mark_the_run_interrupted(tmp_path, number, to_group):
    folder = tmp_path / "in"
    for index in range(40):
        make_pdf(folder / f"doc{index}.pdf", f"Manual {index}", [f"Pest {index} and its control. " * 40] * 6)
    db = tmp_path / "ingest.db"
    process = subprocess.Popen(
        [sys.executable, "-m", "ingest.cli", "run", str(folder), "--db", str(db), "--workers", "1", "--ocr", "never"],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120  # a guard against a hang, not a timing assertion
        while items_written(db) < 2 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert process.poll() is None, "the run ended before it could be signalled; give it more files"
        if to_group:  # like systemd: every process of the service, workers included
            os.killpg(process.pid, number)
        else:
            process.send_signal(number)
        _out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 128 + number, err
    assert "Traceback" not in err
    assert f"interrupted ({signal.Signals(number).name})" in err
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("select count(*) from run_lock").fetchone()[0] == 0
        assert connection.execute("select status from runs").fetchall() == [("interrupted",)]
