"""core/streams.py: waiting on a blocking call or stream while staying able to stop at once."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from desktop_agent.core.streams import Watch, run_watched


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


def test_run_watched_reuses_its_workers():
    """A tool call does not start a thread: the workers are long-lived."""
    assert run_watched(lambda: 1, None) == ("ok", 1)
    before = threading.active_count()
    names = {run_watched(lambda: threading.current_thread().ident, threading.Event())[1] for _ in range(20)}
    assert threading.active_count() == before
    assert len(names) == 1


class _Silent:
    """A real 127.0.0.1 HTTP server that accepts, then never answers (a model loading), or sends the
    headers and ``body`` then goes silent (a stalled stream)."""

    def __init__(self, head: bytes = b"", body: bytes = b"") -> None:
        import socket

        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.head, self.body = head, body
        self.closed = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        conn, _ = self.sock.accept()
        conn.recv(65536)
        if self.head:
            conn.sendall(self.head + self.body)
        while conn.recv(1):  # until the client shuts its side down
            pass
        self.closed.set()
        conn.close()


def _get(url: str, watch: Watch) -> None:
    from desktop_agent.core.backends import http

    with http.client(timeout=30) as client, watch, client.stream("GET", url) as r:
        watch.attach(r)
        for _ in r.iter_bytes():
            watch.progress()


def test_a_watch_ends_a_read_blocked_before_the_headers_on_cancel():
    """Stop while the server has not even sent its headers: the socket is shut down, the read ends."""
    import httpx

    server, cancel = _Silent(), threading.Event()
    watch = Watch(cancel, first_s=30)
    threading.Timer(0.2, cancel.set).start()
    with pytest.raises(httpx.TransportError):
        _get(server.url, watch)
    assert watch.reason == "cancelled"
    assert server.closed.wait(5)


def test_a_watch_fires_when_the_next_data_does_not_come():
    """Data, then silence: the next-data wait (not the client's 30 s read timeout) ends the read."""
    import httpx

    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
    server = _Silent(head, b"5\r\nhello\r\n")
    watch = Watch(threading.Event(), first_s=30, next_s=0.3)
    with pytest.raises(httpx.TransportError):
        _get(server.url, watch)
    assert watch.reason == "stalled" and watch.started and watch.waited_s == 0.3


def test_a_retry_after_a_long_pause_gets_a_fresh_first_data_wait():
    """A wait that ran out while no request was open (a Retry-After pause between attempts) does not
    cut the next attempt; a Stop stays a Stop."""
    cancel = threading.Event()
    with Watch(cancel, first_s=0.05) as watch:
        deadline = time.monotonic() + 10
        while watch.reason is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert watch.reason == "stalled"
        watch.restart()
        assert watch.reason is None and not watch.started
        cancel.set()
        deadline = time.monotonic() + 10
        while watch.reason is None and time.monotonic() < deadline:
            time.sleep(0.01)
        watch.restart()
        assert watch.reason == "cancelled"


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
