"""The Ray executor: the same results as the process pool, one document's failure (an error, a
hang past the hard limit, a dying worker) failing that document only, and Ray never imported
unless asked for. Against a local Ray (`ray.init(num_cpus=2)`); slow: Ray starts in ~5-10 s.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXTURES

from ingest.pipeline.settings import PipelineSettings
from ingest.pipeline.workers import Failure, run_task

ROOT = Path(__file__).resolve().parent.parent


def test_ray_is_not_imported_by_the_cli_or_a_process_pool_run():
    code = "import sys, ingest.cli, ingest.api, ingest.pipeline.batch; print('ray' in sys.modules)"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "False"


def misbehaving_task(job: str, settings: PipelineSettings):
    """A task per behaviour: `hang` ignores the soft limit (SIGALRM blocked, like native code),
    `die` kills its worker, anything else is the real `run_task`."""
    if job == "hang":
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(600)
    if job == "die":
        os._exit(3)
    return run_task(job, settings)


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray", reason="ray not installed: pip install -e '.[ray]'")
    # Ray's workers import the tasks by module name: this test module's tasks too
    previous = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), str(ROOT / "tests"), previous]))
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    finally:
        os.environ.pop("PYTHONPATH") if previous is None else os.environ.update(PYTHONPATH=previous)
    yield ray
    ray.shutdown()


@pytest.mark.slow
def test_ray_gives_the_process_pool_results_and_isolates_failures(local_ray, tmp_path):
    from ingest.pipeline.ray_executor import execute_ray

    settings = PipelineSettings.resolve({"workers": 2, "timeout": 1, "parse": {"ocr": {"mode": "never"}}})
    good = [str(FIXTURES / "two_column.pdf"), str(FIXTURES / "unruled_table.pdf")]
    broken = tmp_path / "broken.pdf"
    broken.write_text("not a pdf")
    jobs = [*good, str(broken), "hang", "die"]
    results = dict(execute_ray(jobs, jobs, settings.model_copy(update={"timeout": 10}), task=misbehaving_task))
    assert set(results) == set(jobs)
    for path in good:
        expected = run_task(path, settings.model_copy(update={"timeout": 10})).value
        assert [chunk.text for chunk in results[path].value.chunks] == [chunk.text for chunk in expected.chunks]
    assert isinstance(results[str(broken)].value, Failure) and results[str(broken)].value.stage == "parse"
    assert "worker process died" in results["die"].value.message
    assert "timed out after 10 s (worker killed)" in results["hang"].value.message


@pytest.mark.slow
def test_ingest_run_with_the_ray_executor_stores_what_the_process_pool_stores(local_ray, tmp_path):
    from typer.testing import CliRunner

    from ingest.cli import app
    from storage import run_query

    folder = tmp_path / "pdfs"
    folder.mkdir()
    for name in ("two_column.pdf", "unruled_table.pdf", "pest_advisory.pdf"):
        (folder / name).write_bytes((FIXTURES / name).read_bytes())
    runner = CliRunner()
    common = ["--ocr", "never", "-q"]
    first = runner.invoke(app, ["run", str(folder), "--db", str(tmp_path / "ray.db"), "--executor", "ray", *common])
    assert first.exit_code == 0, first.output
    ray_run = runner.invoke(app, ["run", str(folder), "--db", str(tmp_path / "ray.db"), "--executor", "ray", *common])
    assert ray_run.exit_code == 0, ray_run.output
    local = runner.invoke(app, ["run", str(folder), "--db", str(tmp_path / "pool.db"), "--workers", "0", *common])
    assert local.exit_code == 0
    sql = "select d.source_path, c.seq, c.text from chunks c join documents d on d.id = c.document_id order by 1, 2"
    stored = run_query(str(tmp_path / "ray.db"), sql).rows
    assert stored and stored == run_query(str(tmp_path / "pool.db"), sql).rows
    assert run_query(str(tmp_path / "ray.db"), "select new, unchanged from runs order by id").rows == [[3, 0], [0, 3]]


@pytest.mark.slow
def test_ray_tasks_send_page_progress_to_the_driver(local_ray):
    from ingest.pipeline.ray_executor import execute_ray

    settings = PipelineSettings.resolve({"workers": 2, "timeout": 60, "parse": {"ocr": {"mode": "never"}}})
    mixed = str(FIXTURES / "mixed.pdf")
    progress = []
    [(_tag, result)] = list(execute_ray([mixed], [mixed], settings, on_pages=progress.append))
    assert not isinstance(result.value, Failure)
    assert progress and {(message.path, message.total) for message in progress} == {(mixed, 3)}
    assert progress[0].done == 1 and progress[-1].done == 3
