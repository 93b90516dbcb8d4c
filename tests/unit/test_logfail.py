"""The log check (tests/helpers/logfail.py): an error the app logs fails the test, unless the test expects it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

TESTS = '''
import logging
import threading

import pytest

log = logging.getLogger("desktop_agent.core.example")


def test_logs_an_exception():
    try:
        raise ValueError("boom")
    except ValueError:
        log.exception("could not do it")


def test_logs_an_error_in_a_thread():
    t = threading.Thread(target=lambda: log.error("from a worker"))
    t.start()
    t.join()


def test_warns_only():
    log.warning("a warning is no failure")


@pytest.mark.expect_log("desktop_agent.core", match="could not")
def test_expects_its_error():
    log.error("could not read the file")


@pytest.mark.expect_log("desktop_agent.core", match="something else")
def test_expects_another_error():
    log.error("could not read the file")


@pytest.fixture
def noisy():
    yield
    log.error("in tear-down")


def test_error_in_teardown(noisy):
    pass
'''


def test_unexpected_errors_fail_the_test_and_expected_ones_do_not(tmp_path: Path):
    (tmp_path / "test_sample.py").write_text(textwrap.dedent(TESTS), encoding="utf-8")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.helpers.logfail", "-p", "no:cacheprovider", "-q", "-rfE",
         "--rootdir", str(tmp_path), "-c", os.devnull, "test_sample.py"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env,
    )
    out = proc.stdout
    assert "FAILED test_sample.py::test_logs_an_exception" in out
    assert "ValueError: boom" in out
    assert "FAILED test_sample.py::test_logs_an_error_in_a_thread" in out
    assert "FAILED test_sample.py::test_expects_another_error" in out
    assert "ERROR test_sample.py::test_error_in_teardown" in out
    assert "3 failed, 3 passed, 1 error" in out, out
