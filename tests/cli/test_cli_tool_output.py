"""A tool that prints, run from the terminal chat: what it prints goes to the call's details, never into the
answer on stdout nor between the `--events` JSON Lines (the tool runs in the tool host, apart from the app)."""

from __future__ import annotations

import json
import textwrap

from tests.helpers.cli import run_cli

PRINTING_TOOL = textwrap.dedent('''
    import os, sys
    from desktop_agent import tool

    @tool
    def noisy(word: str) -> str:
        """Print a lot, then answer."""
        print("NOISE on stdout", word)
        print("NOISE on stderr", word, file=sys.stderr)
        os.write(1, b"NOISE raw fd 1\\n")
        return "quiet " + word
''')


def _tool_call(name: str, arguments: dict) -> list[dict]:
    return [
        {"message": {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": name, "arguments": arguments}}]}, "done": False},
        {"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"},
    ]


def _tools_dir(tmp_path):
    folder = tmp_path / "noisy_tools"
    folder.mkdir()
    (folder / "noisy.py").write_text(PRINTING_TOOL, encoding="utf-8")
    return folder


def test_events_stay_json_lines_when_a_tool_prints(ollama_server, tmp_path):
    ollama_server.script(_tool_call("noisy", {"word": "hi"}))
    proc = run_cli(tmp_path / "home", "chat", "--host", ollama_server.url, "--tools-dir", str(_tools_dir(tmp_path)),
                   "-p", "make noise", "--events")
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    events = [json.loads(line) for line in lines]  # every line is one JSON event
    finished = next(e for e in events if e["type"] == "ToolCallFinished")
    assert finished["ok"] is True and finished["result"] == "quiet hi"
    assert "NOISE on stdout hi" in finished["output"] and "NOISE raw fd 1" in finished["output"]
    assert "NOISE on stderr hi" in finished["output"]
    assert not any("NOISE" in line for line in lines if not line.startswith('{"type": "ToolCallFinished"'))
    assert events[-1]["type"] == "AnswerFinished"
    assert "NOISE" not in proc.stderr


def test_the_plain_answer_is_not_mixed_with_what_a_tool_prints(ollama_server, tmp_path):
    ollama_server.script(_tool_call("noisy", {"word": "there"}))
    proc = run_cli(tmp_path / "home", "chat", "--host", ollama_server.url, "--tools-dir", str(_tools_dir(tmp_path)),
                   "-p", "make noise")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("The tool said: quiet there")
    assert "NOISE" not in proc.stdout and "NOISE" not in proc.stderr
