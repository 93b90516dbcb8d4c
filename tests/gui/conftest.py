"""Fixtures and helpers for the window tests: real widgets offscreen, real backends against the local protocol
servers. ``make_window`` and ``ollama_settings`` are in tests/conftest.py (the adversarial window tests use
them too).
"""

from __future__ import annotations

import socket
import textwrap
from pathlib import Path

import pytest

import desktop_agent.ui  # noqa: F401  (applies the PySide6 6.12 refcount guard before any Qt use)


def wait_idle(qtbot, window, timeout: int = 10_000) -> None:
    qtbot.waitUntil(lambda: not window.busy, timeout=timeout)


def last_turn_text(window) -> str:
    from desktop_agent.ui.chat.turn import AssistantTurn

    turns = [b for b in window.chat.blocks if isinstance(b, AssistantTurn)]
    return turns[-1].text_content() if turns else ""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def tools_dir(tmp_path) -> Path:
    """A user tools folder with a slow tool and a tool that needs approval."""
    d = tmp_path / "extra_tools"
    d.mkdir()
    (d / "testing_tools.py").write_text(
        textwrap.dedent(
            '''
            import time
            from desktop_agent import tool

            @tool
            def slow_op(seconds: float = 0.6) -> str:
                """Wait a little, then say done."""
                time.sleep(seconds)
                return "done"

            @tool(timeout_s=60)
            def hang() -> str:
                """Never returns in time (case 28)."""
                time.sleep(100)
                return "never"

            @tool(requires_approval=True)
            def delete_everything(path: str) -> str:
                """Pretend to delete a folder (needs the user's approval)."""
                return f"deleted {path}"
            '''
        ),
        encoding="utf-8",
    )
    return d


def tool_call_lines(name: str, arguments: dict | None = None) -> list[dict]:
    """An Ollama NDJSON reply asking for one tool call."""
    return [
        {"message": {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": name, "arguments": arguments or {}}}]}, "done": False},
        {"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"},
    ]


def text_lines(pieces: list[str], thinking: str = "") -> list[dict]:
    lines: list[dict] = []
    if thinking:
        lines.append({"message": {"role": "assistant", "content": "", "thinking": thinking}, "done": False})
    lines += [{"message": {"role": "assistant", "content": p}, "done": False} for p in pieces]
    lines.append({"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"})
    return lines


def confirm_stop(qtbot, window) -> None:
    """Answer "Stop and …" to the question New chat / opening a chat asks while an answer is written."""
    qtbot.waitUntil(lambda: window.confirm_stop is not None, timeout=3000)
    window.confirm_stop.stop_button.click()


@pytest.fixture
def view(qtbot):
    """A chat view, 900 × 700, shown (the streaming and rendering tests)."""
    from desktop_agent.ui.chat.view import ChatView

    v = ChatView()
    v.resize(900, 700)
    v.show()
    qtbot.waitExposed(v)
    yield v
    v.close()
    v.deleteLater()


def source_of(tokens: list) -> str:
    """The text of parsed markdown blocks (their inline text and code): what a render was given."""
    return "".join(t.content for t in tokens if t.content)
