"""Signing in to a protected remote MCP server, end to end: a REAL OAuth 2.1 authorization server and a protected
SDK Streamable-HTTP MCP server on 127.0.0.1 (tests/mcp_servers/oauth_protected.py, the MCP SDK's own auth server
pieces), the app's sign-in (desktop_agent/core/mcp/oauth.py) with its tokens in a REAL Secret Service keyring.

Run with ``bash scripts/with-keyring.sh python -m pytest tests/e2e/test_mcp_oauth.py``.
The browser step is driven by the test: it fetches the authorization URL with an HTTP client and follows the
redirect to the app's loopback listener, as a browser would after the user's consent.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys

import httpx
import pytest

from desktop_agent.core.mcp.manager import FAILED, READY, McpManager
from desktop_agent.core.mcp.oauth import sign_in, sign_in_state, sign_out
from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.settings import McpServerSettings
from tests.e2e.test_keyring_real import ROOT, real_keyring  # noqa: F401 (fixture)
from tests.helpers.oauth import Browser, protected, protected_server  # noqa: F401 (fixture)
from tests.helpers.oauth import server_state as _state
from tests.mcp_servers.everything import free_port, wait_listening
from tests.servers.openai import OpenAIServer

pytestmark = pytest.mark.keyring


def _keyring_values(keyring_backend, url: str) -> list[str]:
    """Every secret the app stored for ``url``'s sign-in (from the real keyring)."""
    from desktop_agent.core.mcp import oauth

    secrets = SecretStore()
    record = oauth._loads(secrets.get_secret(oauth._record_key(url)))
    if not record:
        return []
    return [v for v in (secrets.get_secret(oauth._record_key(url)),
                        secrets.get_secret(oauth._tokens_key(record["issuer"], record["client_id"], url)),
                        secrets.get_secret(oauth._client_key(record["issuer"], record["client_id"]))) if v]


def _manager(config: McpServerSettings) -> McpManager:
    manager = McpManager([config], SecretStore(), start_timeout_s=30)
    manager.start()
    manager.wait_ready(60)
    return manager


def test_sign_in_call_refresh_and_sign_out_with_the_real_keyring(real_keyring, protected, tmp_path, caplog):  # noqa: F811
    caplog.set_level(logging.DEBUG)
    url = f"{protected}/mcp"
    config = McpServerSettings(name="protected", url=url)
    secrets = SecretStore()

    # before the sign-in: the server is reachable but says who to ask; the app says how to sign in
    manager = _manager(config)
    try:
        state = manager.states()[0]
        assert state.state == FAILED and "mcp login protected" in state.error and "Sign in…" in state.error, state
    finally:
        manager.close()
    assert not sign_in_state(secrets, url).signed_in

    # sign in: discovery, dynamic registration, PKCE, the browser, the redirect caught on 127.0.0.1
    browser = Browser()
    result = sign_in(config, secrets, browser, timeout_s=60)
    browser.join()
    assert result.ok, result.message
    assert result.tools == 1 and "signed in to protected" in result.message
    assert len(browser.opened) == 1 and "code_challenge_method=S256" in browser.opened[0]
    assert browser.landed[0].status_code == 200 and "Signed in" in browser.landed[0].text
    assert _state(protected)["registrations"] == 1
    signed = sign_in_state(secrets, url)
    assert signed.signed_in and signed.issuer.rstrip("/") == protected

    # the tokens are in the real keyring, keyed by issuer and client
    stored = _keyring_values(real_keyring, url)
    assert len(stored) == 3
    assert '"access_token"' in stored[1] and '"refresh_token"' in stored[1]

    # a tool call with the stored sign-in (a fresh manager, as after a restart)
    manager = _manager(config)
    try:
        assert manager.states()[0].state == READY, manager.states()[0].line()
        assert "signed in" in str(manager.call("protected", "whoami", {}))
        # the server expires the access token early: the next call gets a 401 and the app refreshes silently
        assert httpx.post(f"{protected}/test/expire", timeout=10).json()["expired"] >= 1
        assert "signed in" in str(manager.call("protected", "whoami", {}))
        assert _state(protected)["refreshes"] == 1
        # the tokens sent to the server are among what is masked in its errors, the refreshed ones too
        from desktop_agent.core.mcp.masking import mask

        sent = json.loads(_keyring_values(real_keyring, url)[1])["token"]["access_token"]
        assert mask(f"error: {sent}", manager._servers["protected"].handed) == "error: ***"
    finally:
        manager.close()
    refreshed = _keyring_values(real_keyring, url)[1]
    assert refreshed != stored[1], "the refreshed tokens replace the old ones in the keyring"

    # a restart after the expiry: the stored (now refused) token is refreshed before the server is listed
    httpx.post(f"{protected}/test/expire", timeout=10)
    manager = _manager(config)
    try:
        assert manager.states()[0].state == READY, manager.states()[0].line()
        assert _state(protected)["refreshes"] == 2
    finally:
        manager.close()
    assert len(browser.opened) == 1, "no browser for a refresh"

    # sign out: revoked at the authorization server, gone from the keyring, the server needs a sign-in again
    tokens = _keyring_values(real_keyring, url)[1]
    message = sign_out(config, secrets)
    assert message == "signed out of protected and revoked its tokens"
    after = _state(protected)
    assert after["revocations"] == 2 and after["live_access_tokens"] == 0 and after["refresh_tokens"] == 0
    assert not sign_in_state(secrets, url).signed_in and _keyring_values(real_keyring, url) == []
    manager = _manager(config)
    try:
        assert manager.states()[0].state == FAILED and "mcp login protected" in manager.states()[0].error
    finally:
        manager.close()

    # no token in the log (and none in the temporary data folder this run used)
    token = json.loads(tokens)["token"]
    for secret in (token["access_token"], token["refresh_token"]):
        assert secret not in caplog.text
        for path in tmp_path.rglob("*"):
            if path.is_file():
                assert secret not in path.read_text(errors="replace")


def test_a_wrong_issuer_in_the_answer_is_refused_as_a_mix_up(real_keyring, protected):  # noqa: F811
    url = f"{protected}/mcp"
    config = McpServerSettings(name="protected", url=url)
    secrets = SecretStore()
    httpx.post(f"{protected}/test/iss", params={"value": "http://127.0.0.1:9/evil"}, timeout=10)
    browser = Browser()
    try:
        result = sign_in(config, secrets, browser, timeout_s=60)
        browser.join()
        assert not result.ok
        assert "mix-up" in result.message and "http://127.0.0.1:9/evil" in result.message, result.message
        assert not sign_in_state(secrets, url).signed_in, "nothing saved from a refused sign-in"
    finally:
        sign_out(config, secrets)


def test_a_pasted_client_id_is_used_instead_of_registering(real_keyring):  # noqa: F811
    with protected_server("--client-id", "desktop-agent-by-hand") as base:
        config = McpServerSettings(name="byhand", url=f"{base}/mcp", oauth_client_id="desktop-agent-by-hand")
        secrets = SecretStore()
        browser = Browser()
        try:
            result = sign_in(config, secrets, browser, timeout_s=60)
            browser.join()
            assert result.ok, result.message
            assert "client_id=desktop-agent-by-hand" in browser.opened[0]
            assert _state(base)["registrations"] == 0
            assert sign_in_state(secrets, config.url).client_id == "desktop-agent-by-hand"
        finally:
            sign_out(config, secrets)


def test_no_browser_coming_back_ends_the_sign_in_with_a_message(real_keyring, protected):  # noqa: F811
    config = McpServerSettings(name="protected", url=f"{protected}/mcp")
    opened: list[str] = []
    result = sign_in(config, SecretStore(), opened.append, timeout_s=2)
    assert not result.ok and "did not come back" in result.message
    assert opened and not sign_in_state(SecretStore(), config.url).signed_in


def test_the_terminal_signs_in_and_out_with_mcp_login_and_logout(real_keyring, protected, tmp_path):  # noqa: F811
    home = tmp_path / "agent-home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "OLLAMA_", "PYTHON_KEYRING"))}
    env.update(DESKTOP_AGENT_HOME=str(home), PYTHONIOENCODING="utf-8",
               BROWSER=f"{sys.executable} -m tests.helpers.oauth_browser %s")

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "desktop_agent", "mcp", *args], capture_output=True,
                              text=True, env=env, cwd=ROOT, timeout=120)

    url = f"{protected}/mcp"
    assert cli("add", "protected", "--url", url).returncode == 0
    listed = cli("list")
    assert "mcp login protected" in listed.stdout, listed

    # a terminal chat before the sign-in says how to sign in, and still answers
    model = OpenAIServer().start()
    try:
        chat = subprocess.run([sys.executable, "-m", "desktop_agent", "chat", "--backend", "openai", "--base-url",
                               model.url, "--model", "m", "-p", "hi"], capture_output=True, text=True,
                              env={**env, "OPENAI_API_KEY": "sk-local-test"}, cwd=ROOT, timeout=120)
    finally:
        model.stop()
    assert "MCP server protected: failed — this server needs a sign-in" in chat.stderr, chat.stderr
    assert "desktop-agent mcp login protected" in chat.stderr and chat.stdout.strip() == "You said: hi", chat

    login = cli("login", "protected")
    assert login.returncode == 0, login
    assert "Opening your browser to sign in at 127.0.0.1" in login.stdout
    assert "Signed in to protected; tools it offers: 1." in login.stdout
    listed = cli("list")
    assert listed.returncode == 0 and "[ready (1 tool)]" in listed.stdout and "whoami" in listed.stdout, listed
    assert f"signed in at {protected}" in listed.stdout, listed
    token = json.loads(_keyring_values(real_keyring, url)[1])["token"]

    logout = cli("logout", "protected")
    assert logout.returncode == 0 and "Signed out of protected and revoked its tokens." in logout.stdout, logout
    assert _state(protected)["live_access_tokens"] == 0
    assert not sign_in_state(SecretStore(), url).signed_in

    # nothing of the sign-in in the data folder or the log
    files = [p for p in home.rglob("*") if p.is_file()]
    assert any(p.suffix == ".log" for p in files) and any(p.name == "settings.json" for p in files), files
    for path in files:
        data = path.read_bytes()
        assert token["access_token"].encode() not in data and token["refresh_token"].encode() not in data, path


def test_a_sign_in_the_server_no_longer_honours_asks_for_a_new_one(real_keyring, protected):  # noqa: F811
    config = McpServerSettings(name="protected", url=f"{protected}/mcp")
    secrets = SecretStore()
    browser = Browser()
    try:
        assert sign_in(config, secrets, browser, timeout_s=60).ok
        browser.join()
        httpx.post(f"{protected}/test/expire", params={"refresh": "1"}, timeout=10)
        manager = _manager(config)
        try:
            state = manager.states()[0]
            assert state.state == FAILED and "needs a sign-in" in state.error and "mcp login protected" in state.error
        finally:
            manager.close()
        assert len(browser.opened) == 1, "a background connection never opens the browser"
        assert not sign_in_state(secrets, config.url).signed_in, "the refused tokens are gone from the keyring"
    finally:
        sign_out(config, secrets)


def test_access_denied_in_the_browser_is_said_and_nothing_is_kept(real_keyring, protected):  # noqa: F811
    config = McpServerSettings(name="protected", url=f"{protected}/mcp")
    secrets = SecretStore()
    httpx.post(f"{protected}/test/deny", timeout=10)
    browser = Browser()
    result = sign_in(config, secrets, browser, timeout_s=60)
    browser.join()
    assert not result.ok
    assert result.message == "the authorization server said no: access_denied (The user denied access)"
    assert browser.landed and "Sign-in declined" in browser.landed[0].text
    assert not sign_in_state(secrets, config.url).signed_in
    assert sign_out(config, secrets) == "signed out of protected"
    assert _keyring_values(real_keyring, config.url) == [], "its registration is forgotten with it"


def test_signing_in_again_reuses_the_registration_and_replaces_the_tokens(real_keyring, protected):  # noqa: F811
    config = McpServerSettings(name="protected", url=f"{protected}/mcp")
    secrets = SecretStore()
    try:
        browser = Browser()
        assert sign_in(config, secrets, browser, timeout_s=60).ok
        first = _keyring_values(real_keyring, config.url)[1]
        assert sign_in(config, secrets, browser, timeout_s=60).ok
        browser.join()
        assert len(browser.opened) == 2 and _state(protected)["registrations"] == 1
        assert _keyring_values(real_keyring, config.url)[1] != first
    finally:
        sign_out(config, secrets)


def test_a_refused_api_key_header_is_not_mistaken_for_a_missing_sign_in(real_keyring, protected):  # noqa: F811
    config = McpServerSettings(name="protected", url=f"{protected}/mcp", headers={"Authorization": "Bearer wrong"})
    manager = _manager(config)
    try:
        state = manager.states()[0]
        assert state.state == FAILED and "refused the credentials it was given (HTTP 401" in state.error, state
        assert "Authorization header" in state.error
    finally:
        manager.close()


def test_a_server_that_needs_no_sign_in_says_so_and_nothing_is_stored(real_keyring):  # noqa: F811
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tests.mcp_servers.flaky", "--http", str(port)], cwd=str(ROOT),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listening(proc, port, "the flaky HTTP server")
        config = McpServerSettings(name="open", url=f"http://127.0.0.1:{port}/mcp")
        opened: list[str] = []
        result = sign_in(config, SecretStore(), opened.append, timeout_s=30)
        assert result.ok and result.message == "open does not ask for a sign-in: it works without one"
        assert not opened and _keyring_values(real_keyring, config.url) == []
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_token_that_expired_while_the_app_was_closed_is_refreshed_before_it_is_sent(real_keyring, protected):  # noqa: F811
    from desktop_agent.core.mcp import oauth

    config = McpServerSettings(name="protected", url=f"{protected}/mcp")
    secrets = SecretStore()
    try:
        browser = Browser()
        assert sign_in(config, secrets, browser, timeout_s=60).ok
        record = oauth._loads(secrets.get_secret(oauth._record_key(config.url)))
        assert record["token_endpoint"] == f"{protected}/token"
        key = oauth._tokens_key(record["issuer"], record["client_id"], config.url)
        stored = json.loads(secrets.get_secret(key))
        secrets.set_secret(key, json.dumps({**stored, "expires_at": 1.0}))  # long past
        before = _state(protected)["refreshes"]
        manager = _manager(config)
        try:
            assert manager.states()[0].state == READY, manager.states()[0].line()
        finally:
            manager.close()
        assert _state(protected)["refreshes"] == before + 1
        assert json.loads(secrets.get_secret(key))["expires_at"] > 1.0
    finally:
        sign_out(config, secrets)


def test_without_a_keyring_mcp_login_refuses_and_says_why(run_cli, protected):  # noqa: F811
    assert run_cli("mcp", "add", "protected", "--url", f"{protected}/mcp").returncode == 0
    login = run_cli("mcp", "login", "protected")
    assert login.returncode == 1, login
    assert "can't sign in to protected" in login.stderr and "install and unlock a Secret Service" in login.stderr
    assert _state(protected)["registrations"] == 0, "nothing was started"
