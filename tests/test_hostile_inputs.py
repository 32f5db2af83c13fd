"""Hostile input folders: one bad entry never stops, hangs or empties the nightly run.

Each entry is built in a temp dir at test time: symlink loops, a dangling link, a FIFO, a link
to a device, a file and a folder the run may not read. The unreadable cases run the CLI in a
subprocess whose capability bounding set drops the two capabilities that let root ignore file
modes (`setpriv --bounding-set -dac_override,-dac_read_search`), so `chmod 000` means what it
means for any other user. Assertions are what an operator checks: the run finishes with exit
code 1 ("some failed"), good files are stored, each bad entry is a failed run item at stage
`discover` with its reason, and nothing is marked removed because its folder was unreadable.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_pipeline import make_pdf

ROOT = Path(__file__).resolve().parent.parent
SETPRIV = shutil.which("setpriv")


def ingest_process(*args: str, drop_caps: bool = False) -> subprocess.CompletedProcess:
    """`python -m ingest.cli ARGS` in a subprocess (timeout only guards against a hang)."""
    command = [sys.executable, "-m", "ingest.cli", *args]
    if drop_caps:
        command = [SETPRIV, "--bounding-set", "-dac_override,-dac_read_search", *command]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)


def run_items(db: Path) -> dict[str, tuple]:
    """source path -> (outcome, stage, message) of the latest run."""
    with sqlite3.connect(db) as connection:
        rows = connection.execute(
            "select source_path, outcome, stage, message from run_items where run_id = (select max(id) from runs)"
        ).fetchall()
    return {path: (outcome, stage, message) for path, outcome, stage, message in rows}


def statuses(db: Path) -> dict[str, str]:
    with sqlite3.connect(db) as connection:
        return dict(connection.execute("select source_path, status from documents"))


def build_hostile(folder: Path) -> dict[str, str]:
    """The entries needing no privilege drop: name -> the words its failure reason must contain."""
    os.symlink("b.pdf", folder / "a.pdf")
    os.symlink("a.pdf", folder / "b.pdf")
    os.symlink("self.pdf", folder / "self.pdf")
    os.symlink("missing-target.pdf", folder / "dangling.pdf")
    os.mkfifo(folder / "pipe.pdf")
    os.symlink("/dev/zero", folder / "zero.pdf")
    return {
        "a.pdf": "symlink loop",
        "b.pdf": "symlink loop",
        "self.pdf": "symlink loop",
        "dangling.pdf": "dangling symlink",
        "pipe.pdf": "FIFO",
        "zero.pdf": "character device",
    }


def test_links_fifo_and_device_are_failed_items_and_the_run_finishes(tmp_path):
    folder = tmp_path / "in"
    make_pdf(folder / "good.pdf", "Good manual", ["Whitefly control with neem oil at 5 ml per litre."])
    make_pdf(folder / "sub" / "good2.pdf", "Second manual", ["Aphids are controlled with soap spray."])
    expected = build_hostile(folder)
    db = tmp_path / "ingest.db"

    result = ingest_process("run", str(folder), "--db", str(db), "--workers", "0", "--ocr", "never", "-q")

    assert result.returncode == 1, result.stderr  # 1: the run finished, some entries failed
    assert "Traceback" not in result.stderr + result.stdout
    stored = statuses(db)
    assert stored.get((folder / "good.pdf").as_posix()) == "ok"
    assert stored.get((folder / "sub" / "good2.pdf").as_posix()) == "ok"
    items = run_items(db)
    failed = {Path(path).name: item[1:] for path, item in items.items() if item[0] == "failed"}
    for name, words in expected.items():
        entry = failed.get(name)
        assert entry is not None, f"{name} not recorded as failed: {sorted(failed)}"
        assert entry[0] == "discover"
        assert words in entry[1], entry[1]
    # a discover failure stores nothing in `documents` (no half-made rows for links or pipes)
    assert set(stored) == {(folder / "good.pdf").as_posix(), (folder / "sub" / "good2.pdf").as_posix()}


@pytest.mark.skipif(os.geteuid() != 0 or SETPRIV is None, reason="needs root and setpriv to drop capabilities")
def test_unreadable_file_and_folder_fail_at_discover_and_remove_nothing(tmp_path):
    folder = tmp_path / "in"
    make_pdf(folder / "good.pdf", "Good manual", ["Whitefly control with neem oil at 5 ml per litre."])
    make_pdf(folder / "locked" / "kept.pdf", "Kept manual", ["Stored before its folder became unreadable."])
    make_pdf(folder / "secret.pdf", "Secret manual", ["Stored before the file became unreadable."])
    db = tmp_path / "ingest.db"
    first = ingest_process("run", str(folder), "--db", str(db), "--workers", "0", "--ocr", "never", "-q")
    assert first.returncode == 0, first.stderr
    make_pdf(folder / "new-secret.pdf", "New secret", ["Never readable."])
    os.chmod(folder / "locked", 0)
    os.chmod(folder / "secret.pdf", 0)
    os.chmod(folder / "new-secret.pdf", 0)
    # the database must stay writable for the capability-less root: it is owned by root
    try:
        result = ingest_process(
            "run", str(folder), "--db", str(db), "--workers", "0", "--ocr", "never", "-q", drop_caps=True
        )
    finally:
        os.chmod(folder / "locked", 0o755)
        os.chmod(folder / "secret.pdf", 0o644)
        os.chmod(folder / "new-secret.pdf", 0o644)

    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    items = run_items(db)
    locked = items[(folder / "locked").as_posix()]
    assert locked[:2] == ("failed", "discover") and "cannot be listed" in locked[2]
    for name in ("secret.pdf", "new-secret.pdf"):
        outcome, stage, message = items[(folder / name).as_posix()]
        assert (outcome, stage) == ("failed", "discover") and "permission denied" in message
    stored = statuses(db)
    # nothing removed: the unreadable folder's document and the unreadable file keep their version
    assert stored[(folder / "locked" / "kept.pdf").as_posix()] == "ok"
    assert stored[(folder / "secret.pdf").as_posix()] == "ok"
    assert (folder / "new-secret.pdf").as_posix() not in stored
    assert not any(outcome == "removed" for outcome, _s, _m in items.values())
