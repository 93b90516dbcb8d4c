"""A test fails when the app logs an error the test did not expect (qutebrowser's ``logfail`` is the model).

An exception the app catches and logs — in a worker thread, a Qt slot, a clean-up — is otherwise invisible: the
test passes and the bug ships. So every record at ERROR or above, from any thread, during a test's set-up, call
or tear-down fails that phase, naming the logger, the message and the exception.

Where the log is the behaviour under test, say so on the test::

    @pytest.mark.expect_log("desktop_agent.core.store", match="cannot be read")

(``logger``: that logger or one under it; ``match``: a regex searched in the message; both optional, ``None``
for any). Unlike qutebrowser's handler, which calls ``pytest.fail`` inside ``emit``, the records are only
collected there and judged after the phase: a failure raised in the app's own thread would not reach the
test, and one raised inside the app's ``except`` could be swallowed by it.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Generator

import pytest

#: records at this level and above fail a test
FAIL_LEVEL = logging.ERROR


class _Collector(logging.Handler):
    """Keeps the records at :data:`FAIL_LEVEL` and above; thread-safe, never raises."""

    def __init__(self) -> None:
        super().__init__(FAIL_LEVEL)
        self.records: list[logging.LogRecord] = []
        self._records_lock = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        with self._records_lock:
            self.records.append(record)


def _expected(item: pytest.Item, record: logging.LogRecord) -> bool:
    for mark in item.iter_markers("expect_log"):
        logger = mark.kwargs.get("logger", mark.args[0] if mark.args else None)
        match = mark.kwargs.get("match")
        if logger is not None and record.name != logger and not record.name.startswith(logger + "."):
            continue
        if match is not None and not re.search(match, record.getMessage()):
            continue
        return True
    return False


def _describe(record: logging.LogRecord) -> str:
    line = f"{record.levelname} {record.name} [{record.threadName}]: {record.getMessage()}"
    if record.exc_info and record.exc_info[1] is not None:
        exc = record.exc_info[1]
        line += f"\n    {type(exc).__name__}: {exc}"
    return line


def _watched(item: pytest.Item, when: str) -> Generator[None, object, object]:
    collector = _Collector()
    root = logging.getLogger()
    root.addHandler(collector)
    try:
        result = yield
    finally:
        root.removeHandler(collector)
    unexpected = [r for r in collector.records if not _expected(item, r)]
    if unexpected:
        pytest.fail(f"unexpected error logged during {when} (mark the test with expect_log if the log is what "
                    "it tests):\n" + "\n".join(_describe(r) for r in unexpected), pytrace=False)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, object, object]:
    return (yield from _watched(item, "set-up"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    return (yield from _watched(item, "the test"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, object, object]:
    return (yield from _watched(item, "tear-down"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "expect_log(logger=None, match=None): the test expects an error logged by "
                                       "that logger (or one under it) whose message matches (tests/helpers/logfail)")
