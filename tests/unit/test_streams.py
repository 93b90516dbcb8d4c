"""core/streams.py: waiting on a blocking call or stream while staying able to stop at once."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from desktop_agent.core.streams import StreamReader, WaitCancelled, run_watched, until_cancelled


def test_run_watched_returns_the_value_or_the_exception():
    assert run_watched(lambda: 42, None) == ("ok", 42)

    def boom() -> None:
        raise SystemExit(3)  # even a BaseException is handed back, not raised in the worker

    status, exc = run_watched(boom, threading.Event())
    assert status == "error" and isinstance(exc, SystemExit)


def test_run_watched_gives_up_on_cancel_and_discards_the_late_result():
    cancel, release, discarded = threading.Event(), threading.Event(), []

    def slow() -> str:
        release.wait(5)
        return "late"

    threading.Timer(0.05, cancel.set).start()
    start = time.monotonic()
    assert run_watched(slow, cancel, discard=discarded.append) == ("cancelled", None)
    assert time.monotonic() - start < 1.0
    release.set()
    deadline = time.monotonic() + 5
    while not discarded and time.monotonic() < deadline:
        time.sleep(0.01)
    assert discarded == ["late"]


def test_run_watched_times_out():
    release = threading.Event()
    start = time.monotonic()
    assert run_watched(lambda: release.wait(5), None, timeout_s=0.1) == ("timeout", None)
    assert time.monotonic() - start < 1.0
    release.set()


def test_until_cancelled_raises_wait_cancelled_and_runs_inline_without_cancel():
    cancel = threading.Event()
    cancel.set()
    closed: list[str] = []
    with pytest.raises(WaitCancelled):
        until_cancelled(lambda: "v", cancel, closed.append)
    assert until_cancelled(threading.current_thread, None, closed.append) is threading.current_thread()


def test_stream_reader_stops_on_cancel_while_the_source_is_silent():
    cancel, release = threading.Event(), threading.Event()

    def source():
        yield 1
        release.wait(5)
        yield 2

    reader = StreamReader(source(), cancel, name="test-reader").start()
    got = []
    threading.Timer(0.1, cancel.set).start()
    try:
        for item in reader:
            got.append(item)
    finally:
        reader.close()
        release.set()
    assert got == [1]
    assert reader.join(2)


def test_the_tool_layer_imports_no_backend():
    """Tools, argument parsing and the text-call gate must be usable without any backend module."""
    code = (
        "import sys\n"
        "import desktop_agent.core.tools.registry, desktop_agent.core.tools.loader, desktop_agent.core.textcalls\n"
        "import desktop_agent.core.arguments, desktop_agent.core.streams\n"
        "print(','.join(m for m in sys.modules if m.startswith('desktop_agent.core.backends')))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""
