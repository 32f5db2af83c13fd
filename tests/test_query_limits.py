"""`ingest query` under hostile SQL: a time limit, Ctrl-C, streamed rows, blobs, `--timeout inf`.

A recursive CTE counting towards 1e9 stands for any statement that would run for minutes.
"""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import threading

import pytest
from typer.testing import CliRunner

from ingest import api
from ingest.cli import EXIT_QUERY, EXIT_USAGE, app
from storage import open_database

runner = CliRunner()
ENDLESS = "with recursive n(i) as (select 1 union all select i + 1 from n where i < 1000000000) select {} from n"


@pytest.fixture
def db(tmp_path) -> str:
    path = str(tmp_path / "ingest.db")
    with open_database(path):
        pass
    return path


def test_a_long_query_stops_at_its_time_limit_with_a_clear_message(db):
    result = runner.invoke(app, ["query", ENDLESS.format("count(*)"), "--db", db, "--timeout", "1"])
    assert result.exit_code == EXIT_QUERY
    assert "time limit of 1 s" in result.output and "--timeout" in result.output


def test_rows_are_streamed_so_the_first_rows_of_an_endless_query_arrive(db):
    with api.stream_query(db, ENDLESS.format("i"), timeout=60) as stream:
        assert stream.columns == ["i"]
        first = [next(stream.rows) for _ in range(3)]
    assert first == [[1], [2], [3]]


def test_ctrl_c_stops_a_running_query(db):
    # Python's own Ctrl-C handler, as in a terminal: a process started in the background by a
    # non-interactive shell (`cmd &`, as CI scripts do) inherits SIGINT ignored, and Ctrl-C never
    # reaches it at all
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            # no time limit: only the interrupt can end it
            api.query(db, ENDLESS.format("count(*)"), timeout=None)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)


def test_blobs_print_as_base64_with_their_size_in_every_format(db):
    sql = "select x'00ff10' as small, zeroblob(10000) as big"
    as_json = runner.invoke(app, ["query", sql, "--db", db, "--format", "json"])
    assert as_json.exit_code == 0, as_json.output
    [row] = json.loads(as_json.stdout)
    assert row["small"] == "blob(3 bytes) base64:AP8Q"
    assert row["big"].startswith("blob(10000 bytes, first 4096 shown) base64:AAAA")
    as_csv = runner.invoke(app, ["query", sql, "--db", db, "--format", "csv"])
    [header, values] = list(csv.reader(io.StringIO(as_csv.stdout)))
    assert header == ["small", "big"]
    assert values[0] == "blob(3 bytes) base64:AP8Q" and values[1].startswith("blob(10000 bytes, first 4096 shown)")


@pytest.mark.parametrize("value", ["inf", "nan", "0"])
def test_a_time_limit_that_is_not_a_finite_positive_number_is_a_usage_error(db, value):
    result = runner.invoke(app, ["query", "select 1", "--db", db, "--timeout", value])
    assert result.exit_code == EXIT_USAGE, result.output
    # The message names the option and what it accepts, so the user knows what to type instead;
    # a usage error of any other kind (an unknown option, a wrong type) would not say this.
    assert "--timeout must be a finite number of seconds > 0" in result.output
    assert "Traceback" not in result.output


def test_run_timeout_inf_is_a_usage_error_not_a_crash(tmp_path):
    (tmp_path / "in").mkdir()
    result = runner.invoke(app, ["run", str(tmp_path / "in"), "--db", str(tmp_path / "i.db"), "--timeout", "inf"])
    assert result.exit_code == EXIT_USAGE, result.output
    assert "timeout" in result.output and "finite" in result.output


def test_vacuum_is_refused_like_any_write(db):
    result = runner.invoke(app, ["query", "VACUUM", "--db", db])
    assert result.exit_code == EXIT_QUERY
    assert "refused" in result.output
