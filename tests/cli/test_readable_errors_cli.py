"""The terminal's one line for the errors of issue 13 ("errors a user can read"), from the same texts as the
window's cards with the command-line fix: a web page where the API should be, a proxy's error page, a server
trickling its headers, a locked keyring; and base URLs as people paste them. The texts that name the
command-line fix (a rejected or missing key, max steps, a missing model …)."""

from __future__ import annotations

import pytest

from desktop_agent.core import errors
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


# ---- error texts that name the command-line fix ------------------------------------------------


def test_rejected_key_from_the_environment_says_check_openai_api_key(home, openai_server):
    openai_server.required_keys = {"sk-good"}
    proc = run_cli(home, "chat", "--backend", "openai", "--base-url", openai_server.url, "--model", "m",
                   "-p", "hi", env={"OPENAI_API_KEY": "sk-bad-0123456789"})
    assert proc.returncode == 1
    (line,) = proc.stderr.strip().splitlines()
    assert "was rejected (401)" in line and line.endswith("Check OPENAI_API_KEY.")
    assert "Settings" not in line and "sk-bad-0123456789" not in line


def test_local_server_that_wants_a_key_says_none_is_set(home, openai_server):
    """Shared case 21-openai-api-key-missing-or-401.json, from the terminal: no key was sent, so the
    line does not say a key was rejected; it names OPENAI_API_KEY, not a Settings dialog."""
    openai_server.required_keys = {"sk-good"}
    proc = run_cli(home, "chat", "--backend", "openai", "--base-url", openai_server.url, "--model", "m", "-p", "hi")
    assert proc.returncode == 1
    (line,) = proc.stderr.strip().splitlines()
    assert "No API key is set" in line and "asks for one (401)" in line and "OPENAI_API_KEY" in line
    assert "rejected" not in line and "Settings" not in line


def test_no_api_key_flag_reaches_a_keyless_server_that_is_not_local(home, openai_server):
    """Report item 8: a keyless server on another address (here 0.0.0.0, which is not counted as
    local) — without a key the line points at --no-api-key; with it, the chat works."""
    url = openai_server.url.replace("127.0.0.1", "0.0.0.0")
    base = ["chat", "--backend", "openai", "--base-url", url, "--model", "m", "--no-tools", "-p", "hi"]
    refused = run_cli(home, *base)
    assert refused.returncode == 1 and openai_server.requests == []
    (line,) = refused.stderr.strip().splitlines()
    assert f"No API key is set for {url}" in line and "--no-api-key" in line and "Settings" not in line
    ok = run_cli(home, *base, "--no-api-key")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout == "You said: hi\n"


def test_max_steps_line_names_the_flag_and_counts_right():
    """The step limit's terminal line (kept for a turn whose steps ran out with nothing to answer from)."""
    from desktop_agent.cli.errors import terminal_text
    from desktop_agent.core.errors import MaxStepsExceeded

    line = terminal_text(MaxStepsExceeded(1), None)
    assert "did not finish in 1 step." in line and "--max-steps" in line and "Settings" not in line


def test_when_the_steps_run_out_the_terminal_still_gets_an_answer(home, ollama_server):
    """Issue 20: a turn that used all its steps on tools ends with the model's answer from their results."""
    proc = run_cli(home, "chat", "--host", ollama_server.url, "--max-steps", "1", "--tool-choice", "today",
                   "--events", "-p", "what day is it?")
    assert proc.returncode == 0, proc.stderr
    evs = events_of(proc.stdout)
    assert any(e["type"] == "Notice" and "used all 1 steps" in e["text"] for e in evs)
    assert evs[-1]["type"] == "AnswerFinished" and evs[-1]["message"]["content"]


def test_openai_missing_model_lists_the_served_models(home, openai_server):
    openai_server.strict_models = True
    openai_server.models = ["local-model", "other-model"]
    proc = run_cli(home, "chat", "--backend", "openai", "--base-url", openai_server.url, "--model", "nosuch",
                   "-p", "hi")
    assert proc.returncode == 1
    (line,) = proc.stderr.strip().splitlines()
    assert "'nosuch'" in line and "local-model, other-model" in line and "--model" in line


def test_wrong_server_behind_a_v1_url_is_not_told_to_end_it_in_v1(home, ollama_server):
    """An Ollama port given as an OpenAI base URL (it already ends in /v1 — Ollama answers 404)."""
    ollama_server.strict_models = False
    proc = run_cli(home, "chat", "--backend", "openai", "--base-url", ollama_server.url + "/v1", "--model", "m",
                   "-p", "hi")
    assert proc.returncode == 1
    (line,) = proc.stderr.strip().splitlines()
    assert "usually ends in /v1" not in line and "an OpenAI-compatible server?" in line


@pytest.mark.parametrize(
    "error, window, terminal",
    [
        (errors.AuthenticationFailed("http://h/v1"), "Settings → OpenAI-compatible", "OPENAI_API_KEY"),
        (errors.NoApiKey("http://h/v1"), "turn off 'needs a key'", "--no-api-key"),
        (errors.MaxStepsExceeded(3), "'max steps' in Settings", "--max-steps N"),
        (errors.ContextTooLong(), "in Settings", "without --chat"),
        (errors.ToolsNotSupported("tiny"), "Choose a model with tool support.", "--no-tools"),
        (errors.ModelNotFound("gpt-x", "openai"), "Choose another model.", "--model NAME"),
        (errors.ServerTimedOut("http://h/v1", 60, "openai"), "timeout in Settings", "--timeout SECONDS"),
        (errors.BackendUnreachable("http://h/v1", "openai", "Connection refused"), "Check the base URL", "--base-url"),
        (errors.BackendUnreachable("http://h:11434"), "ollama serve", "--host URL or OLLAMA_HOST"),
    ],
)
def test_errors_carry_a_window_hint_and_a_command_line_hint(error, window, terminal):
    """Report item 8: str(error) — what the window shows (tests/gui/test_errors.py) — names Settings;
    for_terminal() names flags and environment variables instead. Both start with the same fact."""
    assert window in str(error) and terminal not in str(error)
    assert terminal in error.for_terminal()
    assert "Settings" not in error.for_terminal() or isinstance(error, errors.AuthenticationFailed)
    assert str(error).startswith(error.what) and error.for_terminal().startswith(error.what)
