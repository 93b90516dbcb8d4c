"""`desktop-agent chat` / `tools` as a user runs them: a real subprocess, against the local protocol
servers (the official ollama / openai clients speak to real HTTP servers on 127.0.0.1) — and against a stuck
server (a TCP socket that accepts connections and never answers): one-line failures, the chat id for scripts,
exit codes and [stopped], `--data-dir` after the command, `OLLAMA_HOST=:PORT`, usage errors, `chat --help`,
the README's tool example. Terminal behaviour is checked with a real pseudo-terminal (``pty``), not by faking
``isatty``."""

from __future__ import annotations

import json
import os
import pty
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop_agent.core.settings import Settings
from desktop_agent.core.store import ConversationStore
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


@pytest.fixture
def home(tmp_path) -> Path:
    return tmp_path / "app-home"


def test_ollama_prompt_runs_today_tool_and_prints_answer(ollama_server, home):
    """Issue 2 "Done when": the `today` tool runs and an answer prints, over the Ollama backend."""
    proc = run_cli(home, "chat", "--host", ollama_server.url, "-p", "what day is it?")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("The tool said:")
    import datetime as dt  # the tool's own words (its result as text), not its JSON
    assert dt.date.today().strftime("%A") in proc.stdout and '"weekday"' not in proc.stdout
    first, second = ollama_server.chat_requests
    assert [t["function"]["name"] for t in first["tools"]] == ["today"]
    # the tool the message meant answered: the answer is asked for without tools, the result as text (issue 20)
    assert "tools" not in second and "today() returned: " in second["messages"][-1]["content"]
    assert first["messages"][0]["role"] == "system"


def test_openai_prompt_runs_today_tool_with_events(openai_server, home):
    """Issue 2 "Done when" with --backend openai and --events: a local server needs no key."""
    proc = run_cli(home, "chat", "--backend", "openai", "--base-url", openai_server.url, "--model", "m",
                   "-p", "what day is it?", "--events")
    assert proc.returncode == 0, proc.stderr
    evs = events_of(proc.stdout)
    types = [e["type"] for e in evs]
    assert types[-1] == "AnswerFinished"
    started = next(e for e in evs if e["type"] == "ToolCallStarted")
    finished = next(e for e in evs if e["type"] == "ToolCallFinished")
    assert started["name"] == "today" and finished["ok"] is True
    assert finished["call_id"] == started["call_id"] and finished["duration_ms"] >= 0
    assert "weekday" in json.loads(finished["result"])
    assert types.index("ToolCallStarted") < types.index("ToolCallFinished") < types.index("AnswerFinished")
    # the chat is saved like the window's
    (chat,) = saved_chats(home)
    assert [m.role for m in chat.messages] == ["user", "assistant", "tool", "assistant"]


def test_unreachable_ollama_exits_1_with_one_clear_line(home):
    """Shared case 07-ollama-connection-refused.json, from the terminal: exit 1, one line, no traceback."""
    port = closed_port()
    proc = run_cli(home, "chat", "--host", f"http://127.0.0.1:{port}", "-p", "hi")
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert f"Can't reach Ollama at http://127.0.0.1:{port}" in lines[0] and "ollama serve" in lines[0]
    assert "Traceback" not in proc.stderr
    # the typed message is kept in the saved chat, with no empty assistant reply
    (chat,) = saved_chats(home)
    assert [(m.role, m.content) for m in chat.messages] == [("user", "hi")]


def test_missing_model_exits_1_and_says_how_to_pull(ollama_server, home):
    """Shared case 06-ollama-model-not-found-404.json, from the terminal."""
    ollama_server.strict_models = True
    proc = run_cli(home, "chat", "--host", ollama_server.url, "--model", "llama2", "-p", "hi")
    assert proc.returncode == 1
    assert "ollama pull llama2" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_rejected_key_exits_1_and_never_prints_the_key(openai_server, home):
    """Shared case 21-openai-api-key-missing-or-401.json (B): a wrong key is a clear line, never echoed."""
    openai_server.required_keys = {"sk-the-right-one"}
    secret = "sk-wrong-but-secret-1234567890"
    proc = run_cli(home, "chat", "--backend", "openai", "--base-url", openai_server.url, "--model", "m",
                   "-p", "hi", env={"OPENAI_API_KEY": secret})
    assert proc.returncode == 1
    assert "rejected" in proc.stderr and openai_server.url in proc.stderr
    assert secret not in proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr
    for path in home.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path


@pytest.mark.parametrize(
    "args",
    [
        ["--temperature", "hot"],
        ["--temperature", "7"],
        ["--backend", "gemini"],
        ["--tool-choice", "no_such_tool"],
        ["--max-steps", "0"],
        ["--host", "not a url at all"],
    ],
)
def test_bad_usage_exits_2(args, home, ollama_server):
    proc = run_cli(home, "chat", "--host", ollama_server.url, *args, "-p", "hi")
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stderr.strip() and "Traceback" not in proc.stderr
    assert ollama_server.chat_requests == []


def test_stdin_loop_until_bye_keeps_history(ollama_server, home):
    proc = run_cli(
        home, "chat", "--host", ollama_server.url, "--no-tools", stdin="first line\nsecond line\nbye\nnever sent\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert "You said: first line" in proc.stdout and "You said: second line" in proc.stdout
    assert "Bye" in proc.stdout and "never sent" not in proc.stdout
    assert len(ollama_server.chat_requests) == 2
    second = ollama_server.chat_requests[1]
    assert "tools" not in second or not second["tools"]
    assert [m["content"] for m in second["messages"] if m["role"] == "user"] == ["first line", "second line"]


def test_system_temperature_and_forced_tool_choice_reach_the_server(openai_server, home):
    proc = run_cli(home, "chat", "--backend", "openai", "--base-url", openai_server.url, "--model", "m",
                   "--system", "Be brief.", "--temperature", "0.3", "--tool-choice", "say_hello",
                   "-p", "please say hello to Ada")
    assert proc.returncode == 0, proc.stderr
    first, second = openai_server.chat_requests[:2]
    assert first["messages"][0] == {"role": "system", "content": "Be brief."}
    assert first["temperature"] == 0.3
    assert first["tool_choice"] == {"type": "function", "function": {"name": "say_hello"}}
    assert second["tool_choice"] == "auto"  # a forced choice applies to the first call only
    assert "Hello, Ada" in proc.stdout


def test_tools_dir_adds_a_user_tool(tmp_path, openai_server, home):
    tools = tmp_path / "mytools"
    tools.mkdir()
    (tools / "shout.py").write_text(
        "from typing import Annotated\nfrom pydantic import Field\nfrom desktop_agent import tool\n\n"
        "@tool\ndef shout(text: Annotated[str, Field(description='What to shout')] = 'hey') -> str:\n"
        "    \"\"\"Shout a text back in capitals.\"\"\"\n    return text.upper() + '!'\n",
        encoding="utf-8",
    )
    listing = run_cli(home, "tools", "--tools-dir", str(tools))
    assert listing.returncode == 0
    line = next(ln for ln in listing.stdout.splitlines() if ln.startswith("shout"))
    assert "Shout a text back in capitals." in line
    assert {"today", "calculator"} <= {ln.split()[0] for ln in listing.stdout.splitlines()}

    proc = run_cli(home, "chat", "--backend", "openai", "--base-url", openai_server.url, "--model", "m",
                   "--tools-dir", str(tools), "--tool-choice", "shout", "--events", "-p", "shout please")
    assert proc.returncode == 0, proc.stderr
    finished = next(e for e in events_of(proc.stdout) if e["type"] == "ToolCallFinished")
    assert finished["name"] == "shout" and finished["ok"] is True


def test_continue_a_saved_chat_on_another_backend(ollama_server, openai_server, home):
    """`--chat ID` continues a chat begun on Ollama, on the OpenAI backend: its tool call is replayed
    with JSON-string arguments and the same id as the tool result (issue 6)."""
    first = run_cli(home, "chat", "--host", ollama_server.url, "-p", "what day is it?")
    assert first.returncode == 0, first.stderr
    (chat,) = saved_chats(home)
    call_id = chat.messages[1].tool_calls[0].id
    second = run_cli(home, "chat", "--chat", chat.id[:8], "--backend", "openai", "--base-url", openai_server.url,
                     "--model", "m", "--no-tools", "-p", "thanks")
    assert second.returncode == 0, second.stderr
    sent = openai_server.chat_requests[0]["messages"]
    assistant = next(m for m in sent if m["role"] == "assistant" and m.get("tool_calls"))
    assert assistant["tool_calls"][0]["id"] == call_id
    assert isinstance(assistant["tool_calls"][0]["function"]["arguments"], str)
    assert assistant["content"] == ""
    tool_msg = next(m for m in sent if m["role"] == "tool")
    assert tool_msg["tool_call_id"] == call_id
    assert sent[-1] == {"role": "user", "content": "thanks"}
    (chat,) = saved_chats(home)
    assert len(chat.messages) == 6


def test_unknown_chat_id_exits_1(home, ollama_server):
    proc = run_cli(home, "chat", "--host", ollama_server.url, "--chat", "doesnotexist", "-p", "hi")
    assert proc.returncode == 1
    assert "doesnotexist" in proc.stderr and "Traceback" not in proc.stderr


def test_ollama_host_environment_variable_is_honoured(ollama_server, home):
    host = ollama_server.url.removeprefix("http://")  # OLLAMA_HOST is often given without a scheme
    proc = run_cli(home, "chat", "--no-tools", "-p", "hi", env={"OLLAMA_HOST": host})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "You said: hi"


def test_tools_listing_lines_up_its_descriptions(tmp_path):
    """`desktop-agent tools`: a tool from another folder no longer shifts its description out of line."""
    import argparse
    import io

    from desktop_agent.cli.tools import run_tools

    (tmp_path / "shout.py").write_text(
        "from desktop_agent import tool\n\n@tool\ndef shout(text: str) -> str:\n"
        '    """Repeat a text in capital letters."""\n    return text.upper()\n', encoding="utf-8")
    out = io.StringIO()
    assert run_tools(argparse.Namespace(tools_dir=[str(tmp_path)]), out=out, err=io.StringIO()) == 0
    lines = out.getvalue().splitlines()
    starts = {line.index(line.split("]", 1)[1].strip()) for line in lines}
    assert len(lines) >= 2 and len(starts) == 1, lines


def test_tools_listing_shows_the_shipped_file_web_and_shell_tools_with_their_source(home):
    proc = run_cli(home, "tools")
    assert proc.returncode == 0, proc.stderr
    rows = {line.split()[0]: line.split()[1] for line in proc.stdout.splitlines()}
    for name in ("list_directory", "read_text_file", "search_files", "write_text_file", "fetch_url",
                 "run_shell_command", "calculator", "today"):
        assert rows.get(name) == "[shipped]", proc.stdout


def test_tools_listing_marks_the_tools_switched_off_in_settings(home):
    from desktop_agent.core import paths

    paths.set_home(home)
    try:
        Settings().updated({"tools.disabled": ["run_shell_command"]}).save()
    finally:
        paths.set_home(None)
    proc = run_cli(home, "tools")
    assert proc.returncode == 0, proc.stderr
    lines = {line.split()[0]: line for line in proc.stdout.splitlines()}
    assert lines["run_shell_command"].endswith("(off: not offered to the model; Settings → Tools)")
    assert "(off" not in lines["calculator"]


def test_compact_in_the_chat_loop_summarises_and_the_chat_goes_on(ollama_server, home):
    """Issue 13: ``/compact`` in terminal chat: the model summarises the earlier messages; the next message is
    sent with the summary instead of them; everything stays in the saved chat."""
    lines = "".join(f"message number {i}\n" for i in range(6))
    proc = run_cli(home, "chat", "--host", ollama_server.url, "--no-tools", "--events",
                   stdin=f"{lines}/compact\nafter the summary\nbye\n")
    assert proc.returncode == 0, proc.stderr
    kinds = [e["type"] for e in events_of(proc.stdout)]
    assert "ChatCompacted" in kinds and "ContextUsage" in kinds
    summary_request, last = ollama_server.chat_requests[-2:]
    assert summary_request["messages"][0]["content"].startswith("You summarise") and "tools" not in summary_request
    assert "Summary of the earlier part" in last["messages"][0]["content"]
    assert last["messages"][-1]["content"] == "after the summary"
    with ConversationStore(home / "data" / "conversations.sqlite3") as store:
        (chat,) = store.list()
        messages = store.load(chat.id).messages
    assert [m.kind for m in messages].count("summary") == 1
    assert sum(m.role == "user" for m in messages) == 7


def test_compact_of_a_long_chat_reads_it_all_piece_by_piece_with_progress(ollama_server, home):
    """Issue 20: an imported chat of 200 long messages continued on a 2k window costs one summary request before
    the answer (the oldest left out, said); ``/compact`` then summarises the whole chat, a request per piece,
    each announced ("Summarising earlier messages (2/5)…")."""
    from desktop_agent.core.messages import Conversation, Message

    ollama_server.model_facts["llama3.2"] = (2048, ["completion"])
    chat = Conversation(messages=[Message(role="user" if i % 2 == 0 else "assistant",
                                          content=f"message {i} " + "about the long report " * 20)
                                  for i in range(200)])
    (home / "data").mkdir(parents=True, exist_ok=True)
    with ConversationStore(home / "data" / "conversations.sqlite3") as store:
        store.add_conversations([chat])
    proc = run_cli(home, "chat", "--host", ollama_server.url, "--no-tools", "--events", "--chat", chat.id,
                   stdin="what now?\n/compact\nbye\n")
    assert proc.returncode == 0, proc.stderr
    events = events_of(proc.stdout)
    answered = next(i for i, e in enumerate(events) if e["type"] == "AnswerFinished")
    asks = [r for r in ollama_server.chat_requests if r["messages"][0]["content"].startswith("You summarise")]
    before = [e for e in events[:answered] if e["type"] == "ChatCompacted"]
    assert len(before) == 1 and before[0]["automatic"] and before[0]["summary"]["status"] == "interrupted"
    assert any(e["type"] == "Notice" and "oldest" in e["text"] for e in events[:answered])
    pieces = len(asks) - 1
    assert pieces >= 3, "the whole chat takes several requests"
    progress = [e["text"] for e in events[answered:] if e["type"] == "Notice" and "(" in e["text"]]
    assert progress == [f"Summarising earlier messages ({i}/{pieces})…" for i in range(1, pieces + 1)]
    assert events[-1]["type"] == "ChatCompacted" and not events[-1]["automatic"]
    assert events[-1]["summary"]["status"] == "complete"


SHIPPED_TOOLS = {"calculator", "day_of_week", "get_current_weather", "say_hello", "today"}


@pytest.fixture
def stuck():
    server = StuckServer()
    try:
        yield server
    finally:
        server.close()


# ---- a stuck OpenAI-compatible server ---------------------------------------------------------


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


# ---- a stuck Ollama server ----------------------------------------------------------------


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


# ---- one line per failed turn; retry notices on a terminal only ---------------------------------


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


# ---- the chat id for scripts -------------------------------------------------------------------


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


# ---- the README's tool example -----------------------------------------------------------------


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


# ---- exit codes and [stopped] -------------------------------------------------------------


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


# ---- --data-dir after the command; OLLAMA_HOST=:PORT ------------------------------------


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


# ---- usage errors ------------------------------------------------------------------------


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


@pytest.mark.parametrize("command", [("chat", "-p", "hi"), ("tools",), ("mcp", "list"), ("history", "list"), ()],
                         ids=["chat", "tools", "mcp", "history", "window"])
def test_desktop_agent_home_that_is_a_file_is_one_line_not_a_traceback(tmp_path, command):
    """``DESKTOP_AGENT_HOME`` says the same as ``--data-dir``: a value that cannot be the app's folder is told
    in one line by every sub-command and the window (which has no window to show it in yet)."""
    afile = tmp_path / "a-file"
    afile.write_text("x")
    proc = run_cli(None, *command, env={"DESKTOP_AGENT_HOME": str(afile), "QT_QPA_PLATFORM": "offscreen"},
                   stdin="")
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"DESKTOP_AGENT_HOME: {afile} is not a folder" in proc.stderr
