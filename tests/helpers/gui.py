"""Helpers for the window tests: waiting for a turn to end, the last answer's text, answering the Stop question, a
free port, the source a markdown render was given, the approval cards of the answer being written."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_agent.ui.chat.cards import ApprovalCard


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


def cards(w) -> list[ApprovalCard]:
    from desktop_agent.ui.chat.cards import ApprovalCard

    turn = w.chat.live
    return [p for p in (turn.parts if turn else []) if isinstance(p, ApprovalCard)]



def waiting_card(qtbot, w) -> ApprovalCard:
    qtbot.waitUntil(lambda: any(not c.request.answered for c in cards(w)) or not w.busy, timeout=5000)
    found = [c for c in cards(w) if not c.request.answered]
    assert found, "no approval card was shown"
    qtbot.waitUntil(found[0].isVisible, timeout=2000)  # a widget added to a shown layout shows a moment later
    return found[0]



def last_run(w):
    return list(w.sidebar.runs.values())[-1]
