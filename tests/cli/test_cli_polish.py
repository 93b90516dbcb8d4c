"""Fixes from the new-user CLI report (/tmp/newuser-cli-report.md): stuck servers, one-line failures,
the README's tool example, the chat id for scripts, command-line hints in error texts, exit codes,
`--data-dir` after the command, `OLLAMA_HOST=:PORT`, usage errors, `chat --help`.

Real `python -m desktop_agent` subprocesses against the local protocol servers (and, for a stuck
server, a TCP socket that accepts connections and never answers). Terminal behaviour is checked with a
real pseudo-terminal (``pty``), not by faking ``isatty``.
"""

from __future__ import annotations

import os
import pty
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop_agent.core import errors
from tests.helpers.cli import (
    ROOT,
    StuckServer,
    cli_env,
    closed_port,
    events_of,
    run_cli,
    run_with_terminal_stderr,
    saved_chats,
    wait_for,
    write_settings,
)

SHIPPED_TOOLS = {"calculator", "day_of_week", "get_current_weather", "say_hello", "today"}


@pytest.fixture
def stuck():
    server = StuckServer()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def home(tmp_path) -> Path:
    return tmp_path / "app-home"


# ---- (1) a stuck OpenAI-compatible server ---------------------------------------------------------


def test_stuck_openai_server_fails_once_saying_it_did_not_answer(home, stuck):
    """Report item 4: a server that accepted the request but never answers. One attempt (a second
    copy would only queue behind the first), then ONE line that says it did not answer within the
    timeout — not "Can't reach" (it was reached) and no retry notices."""
    proc = run_cli(home, "chat", "--backend", "openai", "--base-url", f"http://127.0.0.1:{stuck.port}/v1",
                   "--model", "m", "--timeout", "1", "-p", "hi")
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert f"http://127.0.0.1:{stuck.port}/v1 did not answer within 1 s" in lines[0]
    assert "--timeout" in lines[0] and "Can't reach" not in lines[0] and "Settings" not in lines[0]
    # the model's window asked for once (GET /models, given up after the timeout), then ONE attempt of the chat
    assert stuck.connections == 2
    assert proc.stdout == ""


def test_ctrl_c_stops_a_stuck_openai_server_promptly(home, stuck):
    """Report item 1: Ctrl+C while the OpenAI-compatible server has not answered stops the turn at
    once — exit 130, "[stopped]" on stderr (not in the answer on stdout), no traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop_agent", "chat", "--backend", "openai", "--base-url",
         f"http://127.0.0.1:{stuck.port}/v1", "--model", "m", "-p", "hi"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(home), cwd=ROOT,
    )
    try:
        wait_for(lambda: stuck.connections >= 1)
        time.sleep(0.3)  # the request is written and waiting for an answer
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
        took = time.monotonic() - sent
    finally:
        proc.kill()
    assert proc.returncode == 130, err.decode()
    assert took < 10  # generous: the 60 s timeout is what is being ruled out
    assert out == b"" and b"[stopped]" in err and b"Traceback" not in err


# ---- (10) a stuck Ollama server ----------------------------------------------------------------


def test_stuck_ollama_server_times_out_with_one_line(home, stuck):
    """Report item 10: a stuck Ollama server no longer waits forever; --timeout sets the wait."""
    proc = run_cli(home, "chat", "--host", f"http://127.0.0.1:{stuck.port}", "--timeout", "1", "-p", "hi")
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert f"Ollama at http://127.0.0.1:{stuck.port} did not answer within 1 s" in lines[0]
    assert "--timeout" in lines[0]


def test_events_of_a_failed_turn_carry_the_command_line_text(home, stuck):
    """With --events the TurnFailed error's message is the terminal's text (flags, not Settings),
    and stderr still has the one line."""
    proc = run_cli(home, "chat", "--host", f"http://127.0.0.1:{stuck.port}", "--timeout", "1", "--events",
                   "-p", "hi")
    assert proc.returncode == 1
    evs = events_of(proc.stdout)
    assert [e["type"] for e in evs] == ["Chat", "MessageAdded", "ChatUpdated", "ToolsOffered", "RequestSent",
                                        "TurnFailed"]
    error = evs[-1]["error"]
    assert error["kind"] == "ServerTimedOut" and "--timeout SECONDS" in error["message"]
    assert proc.stderr.strip() == f"desktop-agent: {error['message']}"


def test_unusable_ollama_host_is_a_warning_naming_it(home):
    """An OLLAMA_HOST that is not an address is no longer ignored silently: a warning says so and
    which host is used instead (here the saved one)."""
    saved = f"http://127.0.0.1:{closed_port()}"
    write_settings(home, ollama_host=saved)
    proc = run_cli(home, "chat", "--no-tools", "-p", "hi", env={"OLLAMA_HOST": "not a host"})
    assert proc.returncode == 1
    warning, failure = proc.stderr.strip().splitlines()
    assert warning.startswith("desktop-agent: warning: OLLAMA_HOST is not usable") and "not a host" in warning
    assert warning.endswith(f"using {saved}")
    assert failure.startswith(f"desktop-agent: Can't reach Ollama at {saved}")


def test_ollama_has_a_default_read_timeout_of_300_s():
    """Report item 10: the default (documented in README and `chat --help`) reaches the backend."""
    from desktop_agent.core.assembly import backend_spec, build_backend
    from desktop_agent.core.settings import Settings

    backend = build_backend(backend_spec(Settings()))
    try:
        assert backend.timeout_s == 300
        assert backend._http.timeout.read == 300 and backend._http.timeout.connect <= 5
    finally:
        backend.close()


def test_timeout_setting_in_settings_file_is_used(home, stuck):
    """The read timeout can be saved (settings.json ``ollama_timeout_s``), and --timeout overrides it."""
    write_settings(home, ollama_timeout_s=1)
    proc = run_cli(home, "chat", "--host", f"http://127.0.0.1:{stuck.port}", "-p", "hi")
    assert proc.returncode == 1 and "did not answer within 1 s" in proc.stderr, proc.stderr


# ---- (4) one line per failed turn; retry notices on a terminal only ---------------------------------


def test_failed_turn_is_one_line_with_the_retries_folded_in(home):
    """Report item 4: connection refused on the OpenAI backend, stderr a pipe: exactly one line,
    which says how many retries were made (the notices are not printed)."""
    write_settings(home, openai_retry_interval_s=0.1)
    port = closed_port()
    proc = run_cli(home, "chat", "--backend", "openai", "--base-url", f"http://127.0.0.1:{port}/v1",
                   "--model", "m", "-p", "hi")
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"desktop-agent: Can't reach the server at http://127.0.0.1:{port}/v1")
    assert "(Connection refused)" in lines[0] and "[Errno" not in lines[0]
    assert "--base-url" in lines[0] and lines[0].endswith("(gave up after 2 retries)")


def test_retry_notices_and_chat_id_on_a_terminal(home):
    """On a terminal (stderr a pty) the retry notices are shown as they happen, and the chat id is
    given with the command that continues the chat."""
    write_settings(home, openai_retry_interval_s=0.1)
    port = closed_port()
    code, out, err = run_with_terminal_stderr(
        home, "chat", "--backend", "openai", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m",
        "-p", "hi")
    assert code == 1
    assert err.count("[can't reach the server — retrying in 0.1 s]") == 2, err
    assert "gave up after" not in err  # already told, one notice at a time
    (chat,) = saved_chats(home)
    assert f"[chat {chat.id[:8]} — continue it with: desktop-agent chat --chat {chat.id[:8]}]" in err
    assert out == ""


def test_chat_id_is_not_printed_to_a_pipe(home, ollama_server):
    """Report item 7: scripts get the answer alone on stdout and nothing on stderr."""
    proc = run_cli(home, "chat", "--host", ollama_server.url, "--no-tools", "-p", "hi")
    assert proc.returncode == 0
    assert proc.stdout == "You said: hi\n" and proc.stderr == ""


# ---- (7) the chat id for scripts -------------------------------------------------------------------


def test_events_start_with_the_chat_line_and_the_id_continues_the_chat(home, openai_server):
    """Report item 7: `--events` begins with {"type": "Chat", "id", "new"}; that id continues the chat."""
    base = ["chat", "--backend", "openai", "--base-url", openai_server.url, "--model", "m", "--no-tools", "--events"]
    first = run_cli(home, *base, "-p", "Remember the number 7.")
    assert first.returncode == 0, first.stderr
    evs = events_of(first.stdout)
    assert evs[0] == {"type": "Chat", "id": evs[0]["id"], "new": True}
    assert evs[-1]["type"] == "AnswerFinished"
    assert all(e["type"] != "Chat" for e in evs[1:])
    (chat,) = saved_chats(home)
    assert chat.id == evs[0]["id"]

    second = run_cli(home, *base, "--chat", evs[0]["id"], "-p", "Which number?")
    assert second.returncode == 0, second.stderr
    assert events_of(second.stdout)[0] == {"type": "Chat", "id": chat.id, "new": False}
    (chat,) = saved_chats(home)
    assert [m.content for m in chat.messages if m.role == "user"] == ["Remember the number 7.", "Which number?"]


# ---- (5) the README's tool example -----------------------------------------------------------------


def readme_section(title: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 3)
    return text[start: end if end != -1 else None]


def test_readme_tool_example_loads_without_a_warning(home):
    """Report item 5: the example of "Writing a tool", copied verbatim into the user tools folder,
    loads (its name is not a shipped tool's) with no warning, and is listed as the README says."""
    section = readme_section("Writing a tool")
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    name = re.search(r"@tool\s+def (\w+)", code).group(1)
    assert name not in SHIPPED_TOOLS
    tools = home / "data" / "tools"
    tools.mkdir(parents=True)
    (tools / "example.py").write_text(code, encoding="utf-8")
    proc = run_cli(home, "tools")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    line = next(ln for ln in proc.stdout.splitlines() if ln.split()[0] == name)
    assert " ".join(line.split()) in " ".join(section.split())  # the listing line the README shows
    assert {ln.split()[0] for ln in proc.stdout.splitlines()} >= SHIPPED_TOOLS


# ---- (8) error texts that name the command-line fix ------------------------------------------------


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


# ---- (11) exit codes and [stopped] -------------------------------------------------------------


def test_ctrl_c_during_a_prompt_turn_prints_stopped_on_stderr(home, ollama_server):
    ollama_server.chunk_delay_s = 0.5
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop_agent", "chat", "--host", ollama_server.url, "--no-tools", "-p",
         "tell me a long story"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(home), cwd=ROOT,
    )
    try:
        wait_for(lambda: len(ollama_server.chat_requests) == 1)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert b"[stopped]" not in out and err.decode().strip().splitlines() == ["[stopped]"]


def test_ctrl_c_mid_turn_in_a_terminal_session_then_bye_exits_0(home, ollama_server):
    """Report item 11 (decision): in an interactive session Ctrl+C stops the answer and returns to
    the prompt; the session then ended with `bye` exits 0 (the stop was the user's choice, and the
    session ended normally)."""
    ollama_server.chunk_delay_s = 0.5
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop_agent", "chat", "--host", ollama_server.url, "--no-tools"],
        stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(home), cwd=ROOT,
    )
    os.close(slave)
    try:
        os.write(master, b"tell me a long story\n")
        wait_for(lambda: len(ollama_server.chat_requests) == 1)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        os.write(master, b"bye\n")  # read at the prompt once the stopped turn has ended
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
        os.close(master)
    assert proc.returncode == 0, err.decode()
    assert b"[stopped]" in err and b"[stopped]" not in out
    assert out.decode().strip().endswith("Bye")
    assert len(ollama_server.chat_requests) == 1


def test_ctrl_c_mid_turn_with_piped_input_ends_the_session_with_130(home, ollama_server):
    """With stdin not a terminal, Ctrl+C stops the whole run: the lines after it are not sent."""
    ollama_server.chunk_delay_s = 0.5
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop_agent", "chat", "--host", ollama_server.url, "--no-tools"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(home), cwd=ROOT,
    )
    try:
        proc.stdin.write(b"tell me a long story\nsecond line\n")
        proc.stdin.flush()
        wait_for(lambda: len(ollama_server.chat_requests) == 1)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 130, err.decode()
    assert len(ollama_server.chat_requests) == 1


def test_a_failed_turn_in_a_session_makes_the_exit_status_1(home):
    port = closed_port()
    proc = run_cli(home, "chat", "--host", f"http://127.0.0.1:{port}", "--no-tools", stdin="hi\nbye\n")
    assert proc.returncode == 1
    assert proc.stdout == "Bye\n" and len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("word", ["exit", "QUIT", "/quit"])
def test_exit_and_quit_end_the_session(home, ollama_server, word):
    """Report item 19: `exit` / `quit` end the session like `bye` instead of going to the model."""
    proc = run_cli(home, "chat", "--host", ollama_server.url, "--no-tools", stdin=f"hello\n{word}\nnot sent\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "You said: hello\nBye\n"
    assert len(ollama_server.chat_requests) == 1


def test_full_disk_on_stdout_is_one_line_and_exit_1(home, ollama_server):
    """`chat -p … > /dev/full` (and `tools`, `history list`): one line on stderr, exit 1, no traceback."""
    with open("/dev/full", "w") as full:
        chat = run_cli(home, "chat", "--host", ollama_server.url, "--no-tools", "-p", "hi", stdout=full)
        tools = run_cli(home, "tools", stdout=full)
        history = run_cli(home, "history", "list", stdout=full)
    for proc in (chat, tools, history):
        assert proc.returncode == 1, proc.stderr
        (line,) = proc.stderr.strip().splitlines()
        assert line.startswith("desktop-agent: can't write") and "No space left on device" in line


# ---- (12) --data-dir after the command; (13) OLLAMA_HOST=:PORT ------------------------------------


def test_data_dir_works_after_the_command(tmp_path, ollama_server):
    data = tmp_path / "data-here"
    proc = run_cli(None, "chat", "--data-dir", str(data), "--host", ollama_server.url, "--no-tools", "-p", "hi",
                   env={"XDG_DATA_HOME": str(tmp_path / "xdg")})
    assert proc.returncode == 0, proc.stderr
    assert (data / "data" / "conversations.sqlite3").exists()
    listing = run_cli(None, "history", "list", "--data-dir", str(data))
    assert listing.returncode == 0 and " hi" in listing.stdout, listing.stderr
    before = run_cli(None, "--data-dir", str(data), "history", "list")
    assert before.stdout == listing.stdout
    assert run_cli(None, "tools", "--data-dir", str(data)).returncode == 0


def test_data_dir_that_is_a_file_is_bad_usage(tmp_path):
    afile = tmp_path / "a-file"
    afile.write_text("x")
    proc = run_cli(None, "chat", "--data-dir", str(afile), "-p", "hi")
    assert proc.returncode == 2
    assert f"argument --data-dir: {afile} is not a folder" in proc.stderr and "Traceback" not in proc.stderr


def test_ollama_host_with_only_a_port_keeps_the_port(home, ollama_server):
    """Report item 13: Ollama reads OLLAMA_HOST=":PORT" as 127.0.0.1:PORT; so do we."""
    port = ollama_server.url.rsplit(":", 1)[1]
    proc = run_cli(home, "chat", "--no-tools", "-p", "hi", env={"OLLAMA_HOST": f":{port}"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "You said: hi\n"


# ---- (14)(15) usage errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, usage, error",
    [
        (["chat", "--bogus"], "usage: desktop-agent chat",
         "desktop-agent chat: error: unrecognized arguments: --bogus"),
        (["history", "list", "--bogus"], "usage: desktop-agent history list",
         "desktop-agent history list: error: unrecognized arguments: --bogus"),
        (["tools", "--bogus"], "usage: desktop-agent tools", "desktop-agent tools: error: unrecognized arguments"),
        (["chat", "--host", "not a url", "-p", "x"], "usage: desktop-agent chat",
         "desktop-agent chat: error: argument --host: 'http://not a url:11434' is not a URL"),
        # a local address without http:// is used as http (issue 13); one elsewhere is still refused
        (["chat", "--backend", "openai", "--base-url", "gpu-box:1/v1", "-p", "x"], "usage: desktop-agent chat",
         "desktop-agent chat: error: argument --base-url: 'gpu-box:1/v1' is not a URL"),
        (["chat", "--temperature", "5", "-p", "x"], "usage: desktop-agent chat",
         "desktop-agent chat: error: argument --temperature: must be from 0 to 2, not 5"),
        (["chat", "--max-steps", "0", "-p", "x"], "usage: desktop-agent chat",
         "desktop-agent chat: error: argument --max-steps: must be from 1 to 100, not 0"),
        (["chat", "--timeout", "0", "-p", "x"], "usage: desktop-agent chat",
         "desktop-agent chat: error: argument --timeout: must be more than 0"),
        (["chat", "-p", ""], "usage: desktop-agent chat",
         "desktop-agent chat: error: argument -p/--prompt: the prompt is empty"),
        (["chat", "-p", "   "], "usage: desktop-agent chat", "argument -p/--prompt: the prompt is empty"),
        (["chat", "--chat", "", "-p", "x"], "usage: desktop-agent chat", "argument --chat: the chat id is empty"),
        (["chat", "--no-tools", "--tool-choice", "today", "-p", "x"], "usage: desktop-agent chat",
         "desktop-agent chat: error: --tool-choice today needs tools: drop --no-tools"),
        (["history"], "usage: desktop-agent history", "desktop-agent history: error: choose one of"),
    ],
)
def test_usage_errors_show_the_commands_usage_and_name_the_flag(home, ollama_server, argv, usage, error):
    """Report items 14 and 15: exit 2, the usage of the (sub-)command, and an error line that names the
    flag (not a settings field like ollama_host, not pydantic's "Value error,"); nothing is sent."""
    proc = run_cli(home, *argv, env={"OLLAMA_HOST": ollama_server.url})
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stderr.startswith(usage), proc.stderr
    assert error in proc.stderr
    for leak in ("ollama_host", "openai_base_url", "max_steps", "Value error", "Traceback"):
        assert leak not in proc.stderr
    assert ollama_server.chat_requests == []


def test_chat_help_shows_defaults_environment_and_exit_codes():
    """Report item 16."""
    proc = run_cli(None, "chat", "--help")
    assert proc.returncode == 0
    text = proc.stdout
    for needle in ("llama3.2", "gpt-4o-mini", "http://localhost:11434", "https://api.openai.com/v1",
                   "--timeout 300 (ollama) / 60 (openai)", "OLLAMA_HOST", "OPENAI_API_KEY", "DESKTOP_AGENT_HOME",
                   "exit status", "130", '"bye"', '{"type": "Chat"', "--data-dir"):
        assert needle in text, needle


def test_readme_documents_the_scripting_surface():
    """Report item 19: no `a | b | c` line meaning "or"; the chat id, --timeout, --no-api-key,
    --data-dir after the command, Ollama's best-effort tool choice and the exit codes are documented."""
    section = readme_section("Terminal chat and scripting")
    assert "list | search" not in section
    for needle in ('{"type": "Chat"', "--timeout", "--no-api-key", "desktop-agent chat --data-dir DIR",
                   "Ollama has no tool", "130", "exit, quit", "(gave up after 2 retries)"):
        assert needle in section, needle


def test_a_slow_first_byte_is_said_on_a_terminal(home, ollama_server):
    """Issue 20: after 3 s with nothing from the server, a terminal's stderr says the model is reading the
    prompt (and how long it is); the answer follows on stdout as usual."""
    ollama_server.first_chunk_delay_s = 4.0
    code, out, err = run_with_terminal_stderr(home, "chat", "--host", ollama_server.url, "-p", "hi")
    assert code == 0, err
    assert re.search(r"\[The model is reading the prompt \([\d,]+ tokens\)…\]", err), err
    assert out == "You said: hi\n"
