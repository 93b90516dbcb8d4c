"""The terminal chat (``desktop-agent chat``) on the real local model, as a user runs it: a separate
process, its own data folder, the real llama.cpp server (issue 5 items 1, 2, 6) and the Ollama
translator in front of it (item 4). Temperature 0; the protocol is asserted, never the model's wisdom.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e

# At temperature 0 this prompt gets a short (if useless) date from the 135M model; some wordings make it
# write a date string until the context window is full (minutes), which would test nothing more.
DAY_PROMPT = "What day of the week was 2024-01-01?"


def openai_args(base_url: str) -> list[str]:
    return ["chat", "--backend", "openai", "--base-url", base_url, "--model", "smollm2", "--temperature", "0"]


def ollama_args(host: str) -> list[str]:
    return ["chat", "--backend", "ollama", "--host", host, "--model", "smollm2", "--temperature", "0"]


def assert_no_traceback(result) -> None:
    assert "Traceback" not in result.stderr, result
    assert "Traceback" not in result.stdout, result


def saved_titles(run_cli) -> str:
    listing = run_cli("history", "list", timeout=30)
    assert listing.returncode == 0, listing
    assert_no_traceback(listing)
    return listing.stdout


def real_result(name: str, arguments: dict):
    """What the shipped tool really returns for these arguments, run here in-process."""
    from desktop_agent.core.tools.loader import load_tools
    from desktop_agent.core.tools.registry import ToolRegistry

    registry = ToolRegistry()
    load_tools(registry, user_dir=False, entry_points=False)
    return registry.dispatch(name, arguments)


def check_tool_turn(result, tool: str) -> dict:
    """The ``--events`` protocol of a turn with a forced tool call: ToolCallStarted, then
    ToolCallFinished for the same call with the tool's real result, the tool result added to the
    conversation, then exactly one end of turn. Returns the ToolCallStarted event."""
    assert_no_traceback(result)
    events = result.events()
    types = [e["type"] for e in events]
    assert "ToolCallStarted" in types, result
    start_i = types.index("ToolCallStarted")
    started = events[start_i]
    assert started["name"] == tool
    assert isinstance(started["arguments"], dict)
    assert started["call_id"]

    finished = next(e for e in events[start_i:] if e["type"] == "ToolCallFinished")
    assert finished["call_id"] == started["call_id"]
    assert finished["name"] == tool
    call = next(
        c for e in events if e["type"] == "MessageAdded" for c in e["message"].get("tool_calls", [])
        if c["id"] == started["call_id"]
    )  # fmt: skip
    if call.get("arguments_error"):
        # The model wrote arguments that are not JSON: the tool is not run, the model is told why.
        assert not finished["ok"] and finished["status"] == "error"
        assert "not valid JSON" in finished["result"]
    else:
        expected = real_result(tool, started["arguments"])
        assert finished["ok"] == expected.ok
        assert finished["status"] == expected.status
        if expected.ok:
            assert finished["result"] == expected.full
        else:
            assert finished["error"] == expected.error

    tool_messages = [
        e["message"] for e in events if e["type"] == "MessageAdded" and e["message"]["role"] == "tool"
    ]
    assert tool_messages and tool_messages[0]["tool_call_id"] == started["call_id"]
    assert tool_messages[0]["content"]

    ends = [e for e in events if e["type"] in ("AnswerFinished", "TurnFailed", "TurnCancelled")]
    assert len(ends) == 1 and events[-1] is ends[0], types
    end = ends[0]
    if end["type"] == "AnswerFinished":
        assert result.returncode == 0, result
        assert end["message"]["role"] == "assistant" and end["message"]["content"].strip()
    else:
        # What this server's quirks produce after the tool result (tool_choice "auto" streaming).
        assert end["type"] == "TurnFailed", end
        assert result.returncode == 1, result
        assert end["error"]["kind"] in ("EmptyAnswer", "MaxStepsExceeded"), end
        assert len(result.stderr.strip().splitlines()) == 1, result
    return started


# ---- item 1 -------------------------------------------------------------------------------------------


def test_chat_without_tools_answers_and_is_saved(llama_server, run_cli, e2e_metrics):
    result = run_cli(*openai_args(llama_server), "--no-tools", "-p", "Say hello")
    assert result.returncode == 0, result
    assert result.stdout.strip(), result
    assert_no_traceback(result)
    e2e_metrics["terminal chat, one turn (s, incl. start-up)"] = round(result.elapsed_s, 2)
    assert "Say hello" in saved_titles(run_cli)


@pytest.mark.timeout(300)
def test_chat_with_tools_auto_answers(llama_server, run_cli):
    """Tools on (``tool_choice="auto"``, the default): this server sends an empty 200 stream when tools
    are offered; the agent asks again without streaming (then without tools) and the command answers."""
    # (a message some tools fit, none clearly: they are offered with automatic choice)
    result = run_cli(*openai_args(llama_server), "-p", "Read the file notes.txt", timeout=240)
    assert_no_traceback(result)
    assert result.returncode == 0, result
    assert result.stdout.strip(), result
    assert "asked again without" in result.stderr, result  # the notice, on stderr
    assert "Read the file notes.txt" in saved_titles(run_cli)


def test_chat_events_stream_several_text_deltas(llama_server, run_cli):
    result = run_cli(*openai_args(llama_server), "--no-tools", "--events", "-p", "Say hello")
    assert result.returncode == 0, result
    events = result.events()
    deltas = [e for e in events if e["type"] == "TextDelta"]
    assert len(deltas) >= 2
    assert events[-1]["type"] == "AnswerFinished"
    assert events[-1]["message"]["content"] == "".join(d["text"] for d in deltas)


# ---- item 2 -------------------------------------------------------------------------------------------


def test_forced_tool_call_runs_the_real_tool_and_sends_the_result_back(llama_server, run_cli):
    result = run_cli(*openai_args(llama_server), "--tool-choice", "day_of_week", "--max-steps", "3", "--events",
                     "-p", DAY_PROMPT)  # fmt: skip
    check_tool_turn(result, "day_of_week")
    assert DAY_PROMPT[:20] in saved_titles(run_cli)


# ---- item 4: the Ollama path through the translator ---------------------------------------------------


def test_ollama_chat_without_tools_answers_and_is_saved(ollama_translator, run_cli):
    before = len(ollama_translator.requests)
    result = run_cli(*ollama_args(ollama_translator.url), "--no-tools", "--events", "-p", "Say hello")
    assert result.returncode == 0, result
    events = result.events()
    assert len([e for e in events if e["type"] == "TextDelta"]) >= 2
    assert events[-1]["type"] == "AnswerFinished" and events[-1]["message"]["content"].strip()
    chats = [r for r in ollama_translator.requests[before:] if "messages" in r]
    assert chats and chats[-1]["model"] == "smollm2" and chats[-1].get("stream", True) is not False
    assert "tools" not in chats[-1] or not chats[-1]["tools"]
    assert "Say hello" in saved_titles(run_cli)


def test_ollama_forced_tool_call_round_trip(ollama_translator, run_cli):
    """The Ollama backend's tool path: object arguments without ids in, our ids out, the result sent
    back as ``role: "tool"`` with ``tool_name`` (the translator forces the tool: Ollama has no
    ``tool_choice``)."""
    before = len(ollama_translator.requests)
    with ollama_translator.forcing_tool("day_of_week"):
        result = run_cli(*ollama_args(ollama_translator.url), "--tool-choice", "day_of_week", "--max-steps", "2",
                         "--events", "-p", DAY_PROMPT)  # fmt: skip
    started = check_tool_turn(result, "day_of_week")
    chats = [r for r in ollama_translator.requests[before:] if "messages" in r]
    assert len(chats) >= 2
    follow_up = chats[1]["messages"]
    call_msg = next(m for m in follow_up if m["role"] == "assistant" and m.get("tool_calls"))
    assert call_msg["tool_calls"][0]["function"] == {"name": "day_of_week", "arguments": started["arguments"]}
    tool_msg = next(m for m in follow_up if m["role"] == "tool")
    assert tool_msg["tool_name"] == "day_of_week" and tool_msg["content"]


def test_an_image_for_the_local_model_which_cannot_see_is_warned_before_it_is_sent(llama_server, run_cli, tmp_path):
    """The README's local model: llama.cpp's server lists no capabilities and smollm2 is no vision model — the
    terminal warns before sending the image (and sends it: the user chose to attach it)."""
    from tests.helpers.files import png_bytes

    image = tmp_path / "cat.png"
    image.write_bytes(png_bytes(8, 8))
    result = run_cli(*openai_args(llama_server), "--no-tools", "--attach", str(image), "-p", "What is in the image?")
    assert "warning: smollm2 may not see images: its server does not say" in result.stderr, result
    assert_no_traceback(result)
