"""`desktop-agent chat` / `tools` as a user runs them: a real subprocess, against the local protocol
servers (the official ollama / openai clients speak to real HTTP servers on 127.0.0.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_agent.core.settings import Settings
from desktop_agent.core.store import ConversationStore
from tests.helpers.cli import closed_port, events_of, run_cli, saved_chats


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
