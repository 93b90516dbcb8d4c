"""The terminal's one line for the errors of issue 13 ("errors a user can read"), from the same texts as the
window's cards with the command-line fix: a web page where the API should be, a proxy's error page, a server
trickling its headers, a locked keyring; and base URLs as people paste them."""

from __future__ import annotations

import pytest

from tests.helpers.cli import events_of, run_cli
from tests.servers.misbehaving import PageServer, TrickleServer

PAGE = b"<!DOCTYPE html><html><head><title>Welcome</title></head><body><h1>It works!</h1></body></html>"


@pytest.fixture
def home(tmp_path):
    return tmp_path / "app-home"


@pytest.fixture
def servers():
    started: list = []
    yield started
    for server in started:
        server.close()


def one_line(proc) -> str:
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("desktop-agent: ")
    return lines[0]


def test_a_web_page_at_the_base_url_is_one_line_saying_it_is_not_an_openai_api(home, servers):
    server = PageServer(200, PAGE, "text/html")
    servers.append(server)
    base = f"http://127.0.0.1:{server.port}"
    line = one_line(run_cli(home, "chat", "--backend", "openai", "--base-url", base, "--model", "m", "--no-tools",
                            "-p", "hi"))  # fmt: skip
    assert "This address does not look like an OpenAI-compatible API:" in line
    assert f"{base}/chat/completions answered with a web page" in line
    assert f"Check --base-url: try {base}/v1." in line
    assert "<" not in line and "It works" not in line and "empty answer" not in line and "Settings" not in line


def test_a_proxy_error_page_is_one_line_with_status_and_url(home, servers):
    server = PageServer(502, b"<html><body><h1>502 Bad Gateway</h1><hr>nginx/1.25</body></html>", "text/html")
    servers.append(server)
    host = f"http://127.0.0.1:{server.port}"
    line = one_line(run_cli(home, "chat", "--host", host, "--no-tools", "-p", "hi"))
    assert f"{host}/api/chat answered HTTP 502 with a web page" in line and "proxy or gateway" in line
    assert "--host" in line and "nginx" not in line and "<" not in line


def test_a_trickling_server_is_not_responding(home, servers):
    server = TrickleServer()
    servers.append(server)
    url = f"http://127.0.0.1:{server.port}/v1"
    line = one_line(run_cli(home, "chat", "--backend", "openai", "--base-url", url, "--model", "m", "--timeout", "1",
                            "--no-tools", "-p", "hi"))  # fmt: skip
    assert f"{url} did not answer within 1 s" in line and "Can't reach" not in line


def test_a_locked_keyring_is_one_line_saying_unlock_it(home):
    proc = run_cli(home, "chat", "--backend", "openai", "--base-url", "https://api.example.invalid/v1", "--model",
                   "m", "--no-tools", "--events", "-p", "hi",
                   env={"PYTHON_KEYRING_BACKEND": "tests.helpers.keyrings.LockedKeyring"})  # fmt: skip
    line = one_line(proc)
    assert "The keyring is locked — unlock it" in line and "OPENAI_API_KEY" in line
    assert "No API key is set" not in line and "Settings" not in line
    assert events_of(proc.stdout)[-1]["error"]["kind"] == "KeyringLocked"


@pytest.mark.parametrize("pasted", ["{url}/chat/completions", " {url}/ ", "{url}/models"],
                         ids=["endpoint", "spaces-slash", "models"])  # fmt: skip
def test_a_pasted_endpoint_url_just_works(home, openai_server, pasted):
    proc = run_cli(home, "chat", "--backend", "openai", "--base-url", pasted.format(url=openai_server.url),
                   "--model", "m", "--no-tools", "-p", "hello")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "You said: hello"
    assert openai_server.chat_requests[-1].path == "/v1/chat/completions"


def test_a_404_at_a_base_url_without_v1_suggests_it(home, openai_server):
    base = openai_server.url.removesuffix("/v1")
    line = one_line(run_cli(home, "chat", "--backend", "openai", "--base-url", base, "--model", "m", "--no-tools",
                            "-p", "hi"))  # fmt: skip
    assert f"try {base}/v1" in line
