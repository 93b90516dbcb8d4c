"""Secrets of MCP servers beyond their names: credentials in arguments, URLs and values go to the keyring and the
server is started with them; without a keyring the caller chooses (refuse / the settings file); a replaced server
is said; a huge or deeply nested file is refused. A remote server with headers gets them through the SDK's own
HTTP client (its timeouts) — against a real Streamable HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time

import pytest

from desktop_agent.core.mcp import config
from desktop_agent.core.mcp.config import (
    NoKeyring,
    UnreadableFile,
    import_entries,
    import_file,
    parse,
    redacted_url,
    secret_args,
)
from desktop_agent.core.mcp.manager import READY, McpManager
from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.settings import McpServerSettings, Settings
from desktop_agent.core.tools.dispatch import dispatch_call
from desktop_agent.core.tools.permissions import Answer, ChatPermissions
from tests.helpers.keyrings import DictKeyring, RaisingKeyring

ALLOW = ChatPermissions(None, lambda _request: Answer("once"))


def test_secrets_in_arguments_are_found_by_flag_name_or_by_their_shape(tmp_path):
    existing = tmp_path / "key.pem"
    existing.write_text("x", encoding="utf-8")
    args = ["--api-key", "abc123", "--token=t0ken", "--key-file", str(existing), "--auth-mode", "none",
            "ghp_abcdefghijklmnopqrstuvwxyz", "HEADER=sk-abcdefghijklmnopqrstuv", "--verbose", "--secret",
            str(existing)]
    assert secret_args(args) == [(1, 0), (2, 8), (7, 0), (8, 7)]
    # --key-file names a file, --auth-mode a mode ("none" is no credential), --secret PATH an existing file


def test_a_url_loses_its_credentials_in_the_settings():
    assert redacted_url("https://me:pw@mcp.example.com/mcp?api_key=123&x=1") == (
        "https://mcp.example.com/mcp?api_key=&x=1")
    assert redacted_url("https://mcp.example.com/mcp?x=1") is None
    assert redacted_url("https://mcp.example.com/mcp?q=sk-abcdefghijklmnopqrstuv") == "https://mcp.example.com/mcp?q="


def test_an_import_keeps_every_kind_of_secret_out_of_the_settings():
    store = SecretStore(keyring_backend=DictKeyring())
    entries = {
        "cli": {"command": "server", "args": ["--api-key", "abc123", "--token=t0ken", "--port", "8"],
                "env": {"UPSTREAM": "sk-abcdefghijklmnopqrstuv", "MODE": "x"}},
        "web": {"url": "https://me:pw@mcp.example.com/mcp?api_key=123", "headers": {"X-Custom": "Bearer abcdefghij"}},
    }
    settings, notes = import_entries(entries, Settings(), store)
    servers = {s.name: s for s in settings.mcp.servers}
    text = json.dumps(settings.model_dump())
    for secret in ("abc123", "t0ken", "sk-abcdefghijklmnopqrstuv", "me:pw", "api_key=123", "Bearer abcdefghij"):
        assert secret not in text
    cli, web = servers["cli"], servers["web"]
    assert cli.args == ["--api-key", "", "--token=", "--port", "8"] and cli.secret_args == [1, 2]
    assert cli.secret_env == ["UPSTREAM"] and cli.env == {"MODE": "x"}
    assert web.secret_url and web.url == "https://mcp.example.com/mcp?api_key=" and web.secret_headers == ["X-Custom"]
    assert store.get_secret("mcp:cli:arg:1") == "abc123" and store.get_secret("mcp:cli:arg:2") == "t0ken"
    assert store.get_secret("mcp:web:url:url") == "https://me:pw@mcp.example.com/mcp?api_key=123"
    assert any("argument 2 (--api-key…) of cli" in n and "keyring" in n for n in notes)
    assert any("URL's credentials of web" in n for n in notes)
    started = config.with_secrets(cli, {k: store.get_secret(k) or "" for k, _ in config.secret_keys(cli)})
    assert started.args == ["--api-key", "abc123", "--token=t0ken", "--port", "8"]
    assert started.env == {"MODE": "x", "UPSTREAM": "sk-abcdefghijklmnopqrstuv"}


def test_without_a_keyring_secrets_are_refused_or_written_to_the_file_when_asked():
    broken = SecretStore(keyring_backend=RaisingKeyring(RuntimeError("the keyring is broken")))
    entries = {"gh": {"command": "server", "env": {"GITHUB_TOKEN": "ghp_secret"}}}
    with pytest.raises(NoKeyring, match="environment variable GITHUB_TOKEN of gh would be lost"):
        import_entries(entries, Settings(), broken, no_keyring="refuse")
    assert broken.get_secret("mcp:gh:env:GITHUB_TOKEN") is None  # not even for this session
    settings, notes = import_entries(entries, Settings(), broken, no_keyring="file")
    [server] = settings.mcp.servers
    assert server.env == {"GITHUB_TOKEN": "ghp_secret"} and server.secret_env == []
    assert any("plain text" in n and "GITHUB_TOKEN" in n for n in notes)
    # the window keeps them for its session, as before
    kept, notes = import_entries(entries, Settings(), broken)
    assert kept.mcp.servers[0].secret_env == ["GITHUB_TOKEN"] and any("this session only" in n for n in notes)


def test_replacing_a_server_says_what_it_was_and_drops_its_old_secrets():
    store = SecretStore(keyring_backend=DictKeyring())
    first, _ = import_entries({"gh": {"command": "old-server", "env": {"GITHUB_TOKEN": "ghp_1"}}}, Settings(), store)
    second, notes = import_entries({"gh": {"command": "new-server"}}, first, store)
    assert "replaced the existing server gh (it was: old-server)" in notes
    assert second.mcp.servers[0].command == "new-server"
    assert store.get_secret("mcp:gh:env:GITHUB_TOKEN") is None


def test_a_huge_or_deeply_nested_file_is_refused(tmp_path):
    huge = tmp_path / "huge.json"
    huge.write_text('{"mcpServers": {"a": {"command": "x", "args": ["' + "x" * (6 * 1024 * 1024) + '"]}}}',
                    encoding="utf-8")
    with pytest.raises(UnreadableFile, match="at most 5 MB"):
        import_file(huge, Settings(), None)
    with pytest.raises(UnreadableFile, match="nested too deeply"):
        parse("[" * 200_000 + "]" * 200_000)


# ---- the server gets its secrets ----------------------------------------------------------------------

ARGV_SERVER = ("import sys\nfrom mcp.server.mcpserver import MCPServer\ns = MCPServer('argv')\n"
               "@s.tool()\ndef argv() -> str:\n    '''The arguments.'''\n    return ' '.join(sys.argv[1:])\n"
               "s.run()\n")


def test_a_stdio_server_is_started_with_the_secrets_of_its_arguments():
    store = SecretStore(keyring_backend=DictKeyring())
    settings, _ = import_entries({"argv": {"command": sys.executable,
                                           "args": ["-c", ARGV_SERVER, "--api-key", "abc123", "--token=t0ken"]}},
                                 Settings(), store)
    [server] = settings.mcp.servers
    assert server.secret_args == [3, 4]
    manager = McpManager([server], store, start_timeout_s=60)
    manager.start()
    try:
        assert manager.wait_ready(60)[0].state == READY
        tools = {t.name: t for t in manager.tools()}
        assert dispatch_call(tools, "argv__argv", {}, chat=ALLOW).content == "--api-key abc123 --token=t0ken"
    finally:
        manager.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def header_server():
    """A real Streamable HTTP MCP server (the SDK's) on 127.0.0.1 that answers only requests with the header
    ``X-Api-Key: k3y``; yields its URL and the headers it saw."""
    import uvicorn
    from mcp.server.mcpserver import MCPServer

    seen: list[str | None] = []
    server = MCPServer("guarded")

    @server.tool()
    def ping() -> str:
        """Answer pong."""
        return "pong"

    inner = server.streamable_http_app()

    async def app(scope, receive, send):
        if scope["type"] == "http":
            key = dict(scope["headers"]).get(b"x-api-key")
            seen.append(key.decode() if key else None)
            if key != b"k3y":
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"no key"})
                return
        await inner(scope, receive, send)

    port = _free_port()
    web = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", lifespan="on"))
    thread = threading.Thread(target=web.run, daemon=True)
    thread.start()
    while not web.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp", seen
    web.should_exit = True
    thread.join(10)


def test_a_remote_servers_headers_go_through_a_client_with_the_sdks_timeouts(header_server, monkeypatch):
    import mcp.shared._httpx_utils as httpx_utils  # the SDK's defaults, to compare ours with

    from desktop_agent.core.backends import http

    url, seen = header_server
    made = []
    original = http.mcp_client

    def spy(*args, **kwargs):
        client = original(*args, **kwargs)
        made.append(client)
        return client

    monkeypatch.setattr(http, "mcp_client", spy)
    store = SecretStore(keyring_backend=DictKeyring())
    settings, _ = import_entries({"guarded": {"url": url, "headers": {"X-Api-Key": "k3y"}}}, Settings(), store)
    [server] = settings.mcp.servers
    assert server.secret_headers == ["X-Api-Key"] and server.headers == {}
    manager = McpManager([server], store, start_timeout_s=30)
    manager.start()
    try:
        assert manager.wait_ready(30)[0].state == READY, manager.states()
        tools = {t.name: t for t in manager.tools()}
        assert dispatch_call(tools, "guarded__ping", {}, chat=ALLOW).content == "pong"
    finally:
        manager.close()
    assert seen and all(key == "k3y" for key in seen)
    [client] = made
    assert client.timeout.read == httpx_utils.MCP_DEFAULT_SSE_READ_TIMEOUT  # the SDK's timeouts, not httpx2's 5 s
    assert client.timeout.connect == httpx_utils.MCP_DEFAULT_TIMEOUT
    assert client.is_closed


def test_a_settings_file_round_trip_keeps_the_new_fields(tmp_path):
    server = McpServerSettings(name="a", command="x", args=["--token=", "y"], secret_args=[0], secret_url=False)
    settings = Settings().updated({"mcp.servers": [server.model_dump()]})
    path = tmp_path / "settings.json"
    settings.save(path)
    again, _warnings = Settings.load(path)
    assert again.mcp.servers[0].secret_args == [0]
