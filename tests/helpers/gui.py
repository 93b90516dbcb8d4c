"""Helpers for the window tests: waiting for a turn to end, the last answer's text, answering the Stop question, a
free port, the source a markdown render was given."""

from __future__ import annotations

import socket


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


def confirm_stop(qtbot, window) -> None:
    """Answer "Stop and …" to the question New chat / opening a chat asks while an answer is written."""
    qtbot.waitUntil(lambda: window.confirm_stop is not None, timeout=3000)
    window.confirm_stop.stop_button.click()


def source_of(tokens: list) -> str:
    """The text of parsed markdown blocks (their inline text and code): what a render was given."""
    return "".join(t.content for t in tokens if t.content)
