"""The log file (core/logs.py) never holds a credential a URL carried: a remote MCP server whose URL has its key
(``?api_key=…``) is started against a real 127.0.0.1 HTTP server that answers 401, and the HTTP client's request
lines in the log show the URL without the key."""

from __future__ import annotations

import http.server
import logging
import threading
from pathlib import Path

from desktop_agent.core import paths
from desktop_agent.core.logs import redact, setup_logging
from desktop_agent.core.mcp.config import import_entries
from desktop_agent.core.mcp.manager import McpManager
from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.settings import Settings
from tests.helpers.keyrings import DictKeyring

SECRET = "sk-" + "Z" * 30


class _Refuses(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.send_response(401)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST

    def log_message(self, *args) -> None:
        pass


def test_a_remote_servers_key_in_its_url_is_not_in_the_log(tmp_path):
    root = logging.getLogger()
    level, before = root.level, list(root.handlers)
    paths.set_home(tmp_path / "home")
    log_path = setup_logging()
    try:
        _run_refused_server(log_path)
    finally:
        for handler in [h for h in root.handlers if h not in before]:
            root.removeHandler(handler)
            handler.close()
        root.setLevel(level)


def _run_refused_server(log_path: str) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Refuses)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    store = SecretStore(keyring_backend=DictKeyring())
    url = f"http://127.0.0.1:{server.server_port}/mcp?api_key={SECRET}&user=me"
    settings, _notes = import_entries({"remote": {"url": url}}, Settings(), store)
    manager = McpManager(settings.mcp.servers, store, start_timeout_s=30)
    manager.start()
    try:
        [state] = manager.wait_ready(60)
    finally:
        manager.close()
        server.shutdown()
        server.server_close()
    for handler in logging.getLogger().handlers:
        handler.flush()
    text = Path(log_path).read_text(encoding="utf-8")
    assert state.state == "failed" and SECRET not in (state.error or "")
    assert "HTTP Request" in text and "api_key=***" in text  # the request was logged, without its key
    assert SECRET not in text


def test_redact_keeps_what_is_not_a_credential():
    assert redact("GET https://example.com/search?q=keys&page=2") == "GET https://example.com/search?q=keys&page=2"
    assert redact("https://me:pw@host/x?access_token=abc") == "https://***@host/x?access_token=***"
