"""The shipped shell tool (tools/shell.py: real processes, their process group ended on cancel and timeout)
and fetch_url (tools/web.py: a real HTTP server on 127.0.0.1 serving HTML, text, a redirect, a big page)."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from desktop_agent.core.tools.loader import load_tools
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.toolkit import ALLOWED_FOLDERS_ENV
from tests.unit.scripted import AllowAll


@pytest.fixture(scope="module")
def registry() -> ToolRegistry:
    reg = ToolRegistry(timeout_s=10, permissions=AllowAll())  # the user allows every call here
    assert load_tools(reg, user_dir=False, entry_points=False) == []
    return reg


@pytest.fixture
def allowed(tmp_path, monkeypatch):
    inside = tmp_path / "work"
    inside.mkdir()
    monkeypatch.setenv(ALLOWED_FOLDERS_ENV, str(inside))
    return inside


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (ended, not yet reaped by its parent) counts as gone
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return True


# ---- run_shell_command -------------------------------------------------------------------------------


def test_the_shell_tool_is_destructive_and_cancellable(registry):
    t = registry.get("run_shell_command")
    assert t.destructive and t.requires_approval and t.accepts_cancel
    assert set(t.parameters["properties"]) == {"command", "folder", "timeout_s"}


def test_a_command_runs_in_the_allowed_folder_and_reports_its_exit_status(registry, allowed):
    (allowed / "hello.txt").write_text("hi", encoding="utf-8")
    result = registry.dispatch("run_shell_command", {"command": "pwd; ls; echo oops >&2; exit 3"})
    data = json.loads(result.content)
    assert result.ok
    assert data["exit_status"] == 3
    assert data["output"].splitlines() == [str(allowed), "hello.txt", "oops"]
    assert data["folder"] == str(allowed)


def test_a_command_outside_the_allowed_folders_or_without_one_is_not_run(registry, tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    result = registry.dispatch("run_shell_command", {"command": f"touch {marker}"})
    assert result.status == "error" and "Settings → Tools" in result.content
    monkeypatch.setenv(ALLOWED_FOLDERS_ENV, str(tmp_path / "work"))
    (tmp_path / "work").mkdir()
    result = registry.dispatch("run_shell_command", {"command": f"touch {marker}", "folder": str(tmp_path)})
    assert result.status == "error" and "outside" in result.content
    assert not marker.exists()


def test_output_is_capped(registry, allowed):
    shell = sys.modules[registry.get("run_shell_command").fn.__module__]
    result = registry.dispatch("run_shell_command", {"command": "yes 0123456789 | head -c 2000000"})
    data = json.loads(result.full)  # (what the model gets is capped again by the registry)
    assert data["exit_status"] == 0
    assert len(data["output"]) == shell.MAX_OUTPUT_CHARS
    assert "output_truncated" in data


def test_a_timeout_ends_the_command_and_what_it_started(registry, allowed):
    pidfile = allowed / "child.pid"
    result = registry.dispatch("run_shell_command", {
        "command": f"sleep 300 & echo $! > {pidfile}; echo started; wait", "timeout_s": 1})
    data = json.loads(result.content)
    assert "stopped after 1 s" in data["timed_out"]
    assert data["output"] == "started\n"
    assert not alive(int(pidfile.read_text()))


def test_cancel_kills_the_process_group_and_the_call_ends(registry, allowed):
    pidfile = allowed / "child.pid"
    cancel = threading.Event()
    outcome: list = []
    worker = threading.Thread(target=lambda: outcome.append(registry.dispatch(
        "run_shell_command", {"command": f"sleep 300 & echo $! > {pidfile}; wait"}, cancel)))
    worker.start()
    while not (pidfile.exists() and pidfile.read_text().strip()):
        time.sleep(0.02)
    child = int(pidfile.read_text())
    assert alive(child)
    cancel.set()
    worker.join(30)
    assert outcome[0].status == "cancelled"
    deadline = time.monotonic() + 10  # the tool's own thread ends the group right after the call returns
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(child)


def test_background_processes_left_by_a_finished_command_are_ended(registry, allowed):
    pidfile = allowed / "bg.pid"
    result = registry.dispatch("run_shell_command", {"command": f"sleep 300 > /dev/null & echo $! > {pidfile}"})
    assert json.loads(result.content)["exit_status"] == 0
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 10  # SIGKILL was sent; the kernel ends the process a moment later
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(child)


# ---- fetch_url ---------------------------------------------------------------------------------------

ARTICLE = """<!doctype html><html><head><meta charset="utf-8"><title>Café notes – Site</title></head>
<body><nav><a href="/">Home</a> | <a href="/about">About us</a> | <a href="/shop">Shop</a></nav>
<div class="sidebar"><p>Advertisement: buy things now!</p></div>
<article><h1>Café notes</h1>
<p>The first paragraph of the article explains how to brew coffee at home, with enough words to count as
the main content of this page for any reader-mode algorithm worth its name.</p>
<p>A second paragraph adds <b>bold advice</b>: use fresh beans, grind them just before brewing, and weigh
both the coffee and the water for a repeatable cup every single morning.</p>
<h2>What you need</h2>
<p>Only two things, both worth choosing with care, as the rest of this article explains in some detail:</p>
<ul><li>Freshly roasted coffee beans, ground just before brewing</li><li>Clean, filtered water</li></ul>
</article>
<footer>Copyright 2024 Example Corp. All rights reserved.</footer></body></html>"""


class _Site(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/article":
            self._send(200, ARTICLE.encode("utf-8"), "text/html")  # no charset: the page's <meta> says it
        elif self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", "/article")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/plain":
            self._send(200, "just text, ünïcode".encode(), "text/plain; charset=utf-8")
        elif self.path == "/image":
            self._send(200, b"\x89PNG\r\n\x1a\n", "image/png")
        elif self.path == "/huge":
            self._send(200, b"x" * 5_000_000, "text/plain")
        else:
            self._send(404, b"not here", "text/plain")


@pytest.fixture(scope="module")
def site():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_fetch_url_is_read_only(registry):
    assert registry.get("fetch_url").read_only


def test_fetch_url_returns_the_main_text_as_markdown(registry, site):
    result = registry.dispatch("fetch_url", {"url": f"{site}/moved"})
    data = json.loads(result.content)
    assert data["url"] == f"{site}/article"  # the redirect was followed
    assert data["title"].startswith("Café notes")
    content = data["content"]
    assert "how to brew coffee at home" in content and "**bold advice**" in content
    assert "## What you need" in content
    assert "* Clean, filtered water" in content or "- Clean, filtered water" in content
    for noise in ("About us", "Advertisement", "Copyright"):
        assert noise not in content


def test_fetch_url_plain_text_failures_and_caps(registry, site):
    data = json.loads(registry.dispatch("fetch_url", {"url": f"{site}/plain"}).content)
    assert data["content"] == "just text, ünïcode" and data["title"] == ""
    missing = registry.dispatch("fetch_url", {"url": f"{site}/nothing"})
    assert missing.status == "error" and "HTTP 404" in missing.content
    image = registry.dispatch("fetch_url", {"url": f"{site}/image"})
    assert image.status == "error" and "not a text page (image/png)" in image.content
    huge = json.loads(registry.dispatch("fetch_url", {"url": f"{site}/huge", "max_chars": 1000}).content)
    assert len(huge["content"]) == 1000 and "truncated" in huge
    bad = registry.dispatch("fetch_url", {"url": "file:///etc/passwd"})
    assert bad.status == "error" and "not an http:// or https:// address" in bad.content


def test_fetch_url_reports_a_server_that_is_not_there(registry):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = registry.dispatch("fetch_url", {"url": f"http://127.0.0.1:{port}/"})
    assert result.status == "error" and "could not be fetched" in result.content


# ---- the same tools in the tool host (how the app runs them) -----------------------------------------


@pytest.fixture
def hosted():
    from desktop_agent.core.tools.host import ToolHost

    reg = ToolRegistry(timeout_s=10, permissions=AllowAll(), host=ToolHost())
    assert load_tools(reg, user_dir=False, entry_points=False) == []
    yield reg
    reg.close()


def test_in_the_tool_host_the_allowed_folders_and_the_saved_settings_are_seen(hosted, tmp_path):
    from desktop_agent.core.settings import Settings

    docs = tmp_path / "docs"
    docs.mkdir()
    refused = hosted.dispatch("write_text_file", {"path": str(docs / "a.txt"), "content": "x"})
    assert refused.status == "error" and "Settings → Tools" in refused.content
    Settings().updated({"tools.allowed_folders": [str(docs)]}).save()  # the child reads the same file
    written = hosted.dispatch("write_text_file", {"path": "a.txt", "content": "from the host"})
    assert written.ok, written.content
    assert (docs / "a.txt").read_text(encoding="utf-8") == "from the host"
    outside = hosted.dispatch("write_text_file", {"path": str(tmp_path / "b.txt"), "content": "x"})
    assert outside.status == "error" and not (tmp_path / "b.txt").exists()


def test_in_the_tool_host_stop_kills_a_command_that_ignores_sigterm(hosted, allowed):
    pidfile = allowed / "stubborn.pid"
    command = f"trap '' TERM; echo $$ > {pidfile}; while :; do sleep 0.1; done"  # the shell itself ignores TERM
    cancel = threading.Event()
    outcome: list = []
    worker = threading.Thread(target=lambda: outcome.append(
        hosted.dispatch("run_shell_command", {"command": command}, cancel)))
    worker.start()
    while not (pidfile.exists() and pidfile.read_text().strip()):
        time.sleep(0.02)
    stubborn = int(pidfile.read_text())
    cancel.set()
    worker.join(30)
    assert outcome[0].status == "cancelled"
    deadline = time.monotonic() + 10
    while alive(stubborn) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(stubborn)
